#include "cloth/simulator.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "cloth_fixtures.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

using namespace tryon;
using namespace tryon::cloth;
using tryon::cloth::test::hanging_square;
using tryon::cloth::test::two_panels;

namespace {
constexpr double kG = 9.81;

// Square cloth of `n`×`n` vertices and 0.5 m side, held horizontal at y = 1 (in the x-z plane)
// and pinned for good at the two corners of one edge: released, it swings down and hangs.
ClothModel pinned_square(const Material& mat, int n = 11) {
  garments::GarmentMesh g;
  const int first = test::add_grid_panel(g, "square", n, n, 0.5, 0.5, Vec3(0, 1, 0), Vec3::UnitX(),
                                         Vec3::UnitZ());
  g.labelled_vertices["top_left"] = {first};
  g.labelled_vertices["top_right"] = {first + n - 1};
  ClothModel m = build_cloth_model(g, mat);
  for (int p : labelled_particles(m, g, {"top_left", "top_right"})) m.set_pinned(p, true);
  return m;
}

// A test double for the contact hook: counts calls and keeps particles above a floor plane.
class FloorStage : public ContactStage {
 public:
  explicit FloorStage(double floor) : floor_(floor) {}
  void begin_frame(const ClothModel& model, double time) override {
    ++frames;
    last_time = time;
  }
  void resolve(const ClothModel& model, ConstRef<Points3> x_prev, Points3& x_new, Points3& v_new,
               double dt) override {
    ++steps;
    prev_matches_model = prev_matches_model && (x_prev - model.x).norm() == 0.0;
    for (int p = 0; p < x_new.rows(); ++p)
      if (x_new(p, 1) < floor_) {
        x_new(p, 1) = floor_;
        v_new.row(p).setZero();
      }
  }
  int frames = 0, steps = 0;
  double last_time = -1;
  bool prev_matches_model = true;

 private:
  double floor_;
};

// Makes the state non-finite at call `first` and, with every > 0, at every multiple of `every`.
class PoisonStage : public ContactStage {
 public:
  PoisonStage(int first, int every) : first_(first), every_(every) {}
  void resolve(const ClothModel&, ConstRef<Points3>, Points3& x_new, Points3&, double) override {
    ++calls_;
    if (calls_ == first_ || (every_ > 0 && calls_ % every_ == 0))
      x_new(0, 0) = std::numeric_limits<double>::quiet_NaN();
  }

 private:
  int first_, every_, calls_ = 0;
};

// Moves the chosen particles `step` metres along x in every step, whatever the integrator did.
class ShiftStage : public ContactStage {
 public:
  ShiftStage(std::vector<char> chosen, double step) : chosen_(std::move(chosen)), step_(step) {}
  void resolve(const ClothModel&, ConstRef<Points3> x_prev, Points3& x_new, Points3&, double) override {
    for (int p = 0; p < x_new.rows(); ++p)
      if (chosen_[p]) x_new(p, 0) = x_prev(p, 0) + step_;
  }

 private:
  std::vector<char> chosen_;
  double step_;
};

// Two panels hung from the top end of their seam only.
ClothModel hang_from_seam_top(const garments::GarmentMesh& g, const Material& mat) {
  ClothModel m = build_cloth_model(g, mat);
  m.set_pinned(m.particle_of_vertex[g.seam_pairs(0, 0)], true);
  return m;
}
}  // namespace

TEST(Simulator, FreeFallFollowsGravity) {
  for (auto kind : {IntegratorKind::explicit_euler, IntegratorKind::implicit_euler}) {
    Material mat = load_material("cotton_poplin");
    mat.air_drag = 0;
    ClothModel m = build_cloth_model(hanging_square(4, 0.2), mat);
    const Points3 x0 = m.x;
    SimulatorSettings s;
    s.integrator = kind;  // automatic step (explicit: the stable step; implicit: 1/120 s)
    s.cg.cg_tolerance = 1e-12;
    Simulator sim(std::move(m), s);
    const int frames = 30;  // 0.5 s
    const RunResult r = sim.run(frames);
    ASSERT_EQ(r.frames, frames);
    const double h = sim.current_dt();
    const long long n = r.steps;
    const double t = n * h;
    EXPECT_NEAR(t, 0.5, 1e-12);
    EXPECT_EQ(r.rollbacks, 0);
    // Symplectic and implicit Euler both give y_n = y_0 − g h² n(n+1)/2 for a free body, which
    // is g t²/2 plus a first-order term g t h/2.
    const double drop_discrete = kG * h * h * n * (n + 1) / 2.0;
    for (int p = 0; p < sim.model().num_particles(); ++p) {
      const double drop = x0(p, 1) - sim.model().x(p, 1);
      EXPECT_NEAR(drop, drop_discrete, 1e-9) << integrator_name(kind);
      EXPECT_NEAR(drop, 0.5 * kG * t * t, 0.5 * kG * t * h + 1e-9);
      EXPECT_NEAR(sim.model().x(p, 0), x0(p, 0), 1e-12);
      EXPECT_NEAR(sim.model().v(p, 1), -kG * t, 1e-9);
    }
  }
}

class HangingCloth : public ::testing::TestWithParam<std::tuple<std::string, IntegratorKind>> {};

TEST_P(HangingCloth, ComesToRestWithinStrainLimit) {
  const auto& [name, kind] = GetParam();
  const Material mat = load_material(name);
  SimulatorSettings s;
  s.integrator = kind;
  Simulator sim(pinned_square(mat), s);
  const RunResult r = sim.run(1200);  // 20 s at most
  EXPECT_EQ(r.status, RunStatus::static_reached) << name << " moving " << r.moving_fraction;
  EXPECT_TRUE(r.is_static);
  EXPECT_LT(r.moving_fraction, 0.015);
  EXPECT_EQ(r.rollbacks, 0);
  ASSERT_TRUE(sim.model().x.allFinite());
  const StrainStats st = strain_stats(sim.model(), sim.model().x);
  EXPECT_LE(st.max, 0.10) << name;
  EXPECT_LE(st.max, mat.strain_limit + 1e-3) << name;
  // It hangs: the far edge swung down by about the cloth's length (0.5 m), no further than the
  // strain limit allows.
  double lowest = 1e9;
  for (int p = 0; p < sim.model().num_particles(); ++p) lowest = std::min(lowest, sim.model().x(p, 1));
  EXPECT_LT(lowest, 1.0 - 0.4);
  EXPECT_GT(lowest, 1.0 - 0.5 * (1 + mat.strain_limit) * std::sqrt(2.0));  // diagonal at most
  EXPECT_GT(r.frames, 30);  // it did swing for a while
  RecordProperty("frames_" + name + "_" + integrator_name(kind), r.frames);
}

INSTANTIATE_TEST_SUITE_P(
    Materials, HangingCloth,
    ::testing::Combine(::testing::Values("cotton_jersey", "cotton_poplin", "denim",
                                         "silk_charmeuse", "polyester"),
                       ::testing::Values(IntegratorKind::explicit_euler,
                                         IntegratorKind::implicit_euler)),
    [](const auto& info) {
      return std::get<0>(info.param) + "_" + integrator_name(std::get<1>(info.param));
    });

TEST(Simulator, DihedralBendingComesToRest) {
  for (auto kind : {IntegratorKind::explicit_euler, IntegratorKind::implicit_euler}) {
    Material mat = load_material("denim");
    mat.bend_model = BendModel::dihedral;
    SimulatorSettings s;
    s.integrator = kind;
    Simulator sim(pinned_square(mat), s);
    const RunResult r = sim.run(900);
    EXPECT_EQ(r.status, RunStatus::static_reached) << integrator_name(kind);
    EXPECT_LE(strain_stats(sim.model(), sim.model().x).max, 0.10);
  }
}

TEST(Simulator, ExplicitStableDtHoldsAndFourTimesIsRolledBack) {
  const Material mat = load_material("cotton_poplin");
  ClothModel m = pinned_square(mat);
  const double dt_stable = explicit_stable_dt(m, m.x);
  for (bool limiting : {true, false}) {
    SimulatorSettings s;
    s.integrator = IntegratorKind::explicit_euler;
    s.strain_limiting = limiting;
    s.dt = dt_stable;
    Simulator ok(m, s);
    const RunResult r1 = ok.run(120);
    EXPECT_EQ(r1.rollbacks, 0) << "strain limiting " << limiting;
    EXPECT_NE(r1.status, RunStatus::failed);
    EXPECT_LE(ok.current_dt(), dt_stable);

    s.dt = 4 * dt_stable;
    Simulator fast(m, s);
    const RunResult r4 = fast.run(120);
    EXPECT_GE(r4.rollbacks, 1) << "strain limiting " << limiting;
    EXPECT_NE(r4.status, RunStatus::failed);
    EXPECT_LE(fast.current_dt(), 2 * dt_stable);  // retried with a smaller step
    EXPECT_TRUE(fast.model().x.allFinite());
    EXPECT_TRUE(fast.model().v.allFinite());
  }
}

TEST(Simulator, FailsWithReasonAndNeverKeepsNaN) {
  SimulatorSettings s;
  s.max_retries = 2;
  Simulator sim(pinned_square(load_material("polyester"), 6), s);
  PoisonStage poison(1, 1);  // every step goes bad
  sim.set_contact(&poison);
  const RunResult r = sim.run(10);
  EXPECT_EQ(r.status, RunStatus::failed);
  EXPECT_NE(r.reason.find("NaN"), std::string::npos) << r.reason;
  EXPECT_EQ(r.rollbacks, 3);
  EXPECT_EQ(r.frames, 0);
  EXPECT_TRUE(sim.model().x.allFinite());
  // An occasional bad step is recovered by a retry.
  Simulator sim2(pinned_square(load_material("polyester"), 6), s);
  PoisonStage rare(3, 0);  // one bad step, in frame 2
  sim2.set_contact(&rare);
  const RunResult r2 = sim2.run(3);
  EXPECT_EQ(r2.frames, 3);
  EXPECT_GE(r2.rollbacks, 1);
  EXPECT_TRUE(sim2.model().x.allFinite());
}

TEST(Simulator, ContactHookIsCalledAndItsCorrectionsKept) {
  SimulatorSettings s;
  s.dt = 1.0 / 240;
  Simulator sim(build_cloth_model(hanging_square(6, 0.3, 0.5), load_material("denim")), s);
  FloorStage floor(0.1);
  sim.set_contact(&floor);
  const RunResult r = sim.run(120);
  EXPECT_EQ(floor.frames, r.frames);
  EXPECT_EQ(floor.steps, r.steps);
  EXPECT_EQ(r.steps, 4LL * r.frames);
  EXPECT_TRUE(floor.prev_matches_model);
  EXPECT_NEAR(floor.last_time, (r.frames - 1) / 60.0, 1e-12);
  // Unpinned, the cloth fell onto the floor and stays on it.
  EXPECT_GE(sim.model().x.col(1).minCoeff(), 0.1 - 1e-12);
  EXPECT_LT(sim.model().x.col(1).maxCoeff(), 0.5);
}

TEST(Simulator, SeamClosesAndSettles) {
  const auto g = two_panels(6, 8, 0.2, 0.3, 0.3, 0.05);
  const Material mat = load_material("cotton_poplin");
  Simulator sim(hang_from_seam_top(g, mat));
  const RunResult r = sim.run(900);
  EXPECT_EQ(r.status, RunStatus::static_reached);
  EXPECT_EQ(seam_gap_max(sim.model(), g, sim.model().x), 0.0);
  // The gap-spanning springs have reached their 2D rest lengths.
  EXPECT_EQ(sim.model().springs.rest_now, sim.model().springs.rest);
  EXPECT_LE(strain_stats(sim.model(), sim.model().x).max, 0.10);
}

TEST(Simulator, MovingFractionCountsGarmentVerticesAsTheCheckerDoes) {
  // Two panels merged at their seam: each seam particle stands for two garment vertices. The
  // cloth is pinned; only the seam particles move, 1 mm a step. the report's moving fraction
  // (and the checker's) is a share of the garment's vertices, not of the particles.
  const auto g = two_panels(6, 8, 0.2, 0.3, 0.3, 0.05);
  ClothModel m = build_cloth_model(g, load_material("cotton_poplin"));
  for (int p = 0; p < m.num_particles(); ++p) m.set_pinned(p, true);
  std::vector<char> seam(m.num_particles(), 0);
  for (Eigen::Index i = 0; i < g.seam_pairs.rows(); ++i) seam[m.particle_of_vertex[g.seam_pairs(i, 0)]] = 1;
  int seam_vertices = 0, seam_particles = 0;
  for (int v = 0; v < g.num_vertices(); ++v) seam_vertices += seam[m.particle_of_vertex[v]];
  for (char c : seam) seam_particles += c;
  ASSERT_EQ(seam_vertices, 2 * seam_particles);
  const int particles = m.num_particles();
  ASSERT_LT(particles, g.num_vertices());
  ShiftStage stage(seam, 1e-3);
  Simulator sim(std::move(m));
  sim.set_contact(&stage);
  sim.run(1);
  EXPECT_DOUBLE_EQ(sim.moving_fraction(), static_cast<double>(seam_vertices) / g.num_vertices());
  EXPECT_NE(sim.moving_fraction(), static_cast<double>(seam_particles) / particles);
}

TEST(Simulator, GatheredSeamBehaves) {
  // Left seam edge 0.3 m, right one 0.2 m, same number of seam vertices: the longer side is
  // gathered onto the shorter one.
  const int ny = 9;
  const double hA = 0.3, hB = 0.2;
  const auto g = two_panels(6, ny, 0.2, hA, hB, 0.02);
  const Material mat = load_material("cotton_jersey");
  Simulator sim(hang_from_seam_top(g, mat));
  const RunResult r = sim.run(900);
  EXPECT_EQ(r.status, RunStatus::static_reached);
  EXPECT_TRUE(sim.model().x.allFinite());
  double seam_length = 0;
  for (int j = 0; j + 1 < ny; ++j) {
    const int a = sim.model().particle_of_vertex[g.seam_pairs(j, 0)];
    const int b = sim.model().particle_of_vertex[g.seam_pairs(j + 1, 0)];
    seam_length += (sim.model().x.row(a) - sim.model().x.row(b)).norm();
  }
  // Held near the short side's length by its strain limit, the long side compressed.
  EXPECT_LE(seam_length, (1 + mat.strain_limit) * hB + 1e-3);
  EXPECT_GE(seam_length, 0.9 * hB);
  const StrainStats st = strain_stats(sim.model(), sim.model().x);
  EXPECT_LE(st.max, mat.strain_limit + 1e-3);
  EXPECT_LT(st.min, -0.2);  // the gathered side is compressed (it buckles)
}

TEST(Simulator, LabelledVerticesPinnedForFirstFrames) {
  const auto g = hanging_square(6, 0.3);
  ClothModel m = build_cloth_model(g, load_material("denim"));
  SimulatorSettings s;
  s.temporary_pins = labelled_particles(m, g, {"top", "no_such_label"});
  s.pin_frames = 10;
  ASSERT_EQ(s.temporary_pins.size(), 6u);
  const Points3 x0 = m.x;
  Simulator sim(std::move(m), s);
  const RunResult r10 = sim.run(10);
  EXPECT_EQ(r10.frames, 10);
  for (int p : s.temporary_pins) EXPECT_EQ(Vec3(sim.model().x.row(p)), Vec3(x0.row(p)));
  EXPECT_FALSE(r10.is_static);  // never static while pinned
  sim.run(10);
  for (int p : s.temporary_pins) {
    EXPECT_FALSE(sim.model().pinned(p));
    EXPECT_LT(sim.model().x(p, 1), x0(p, 1) - 0.01);  // released: it falls
  }
}

// An attachment is one-sided: with a reach that covers a step's fall, the labelled particles
// fall no lower than its plane while it holds (the rest of the cloth falls), move freely above
// it, and fall once it is released.
TEST(Simulator, AttachmentsHoldParticlesAbovePlaneForFirstFrames) {
  const auto g = hanging_square(6, 0.3);
  ClothModel m = build_cloth_model(g, load_material("denim"));
  SimulatorSettings s;
  const std::vector<int> top = labelled_particles(m, g, {"top"});
  ASSERT_EQ(top.size(), 6u);
  const double floor_y = m.x(top[0], 1) - 0.02;  // 2 cm below the top edge
  for (int p : top) s.attachments.push_back({p, Vec3(0, floor_y, 0), Vec3::UnitY()});
  s.attachment_frames = 30;
  s.attachment_speed = 50.0;
  const Points3 x0 = m.x;
  Simulator sim(std::move(m), s);
  const RunResult held = sim.run(30);
  EXPECT_FALSE(held.is_static);  // never static while attached
  for (int p : top) {
    EXPECT_GE(sim.model().x(p, 1), floor_y - 1e-9);
    EXPECT_LT(sim.model().x(p, 1), x0(p, 1) - 0.01);  // it moved down to the plane: one-sided, not a pin
  }
  // The cloth below the edge fell farther.
  EXPECT_LT(sim.model().x.col(1).minCoeff(), floor_y - 0.1);
  sim.run(20);
  for (int p : top) EXPECT_LT(sim.model().x(p, 1), floor_y - 0.05);  // released: it falls
  // Out of range or not a unit normal: refused.
  SimulatorSettings bad;
  bad.attachments.push_back({1000, Vec3::Zero(), Vec3::UnitY()});
  EXPECT_THROW(Simulator(build_cloth_model(g, load_material("denim")), bad), InputError);
  bad.attachments = {{0, Vec3::Zero(), Vec3(0, 2, 0)}};
  EXPECT_THROW(Simulator(build_cloth_model(g, load_material("denim")), bad), InputError);
}

// A particle on the wrong side of its attachment's plane is brought back gently: without gravity
// it rises, by at most attachment_speed a second (a weight hanging from it can hold it down).
TEST(Simulator, AttachmentLiftsParticlesPlacedBelowItAtItsSpeed) {
  const auto g = hanging_square(6, 0.3);
  ClothModel m = build_cloth_model(g, load_material("denim"));
  SimulatorSettings s;
  const std::vector<int> top = labelled_particles(m, g, {"top"});
  const double plane_y = m.x(top[0], 1) + 0.05;  // 5 cm above the top edge
  for (int p : top) s.attachments.push_back({p, Vec3(0, plane_y, 0), Vec3::UnitY()});
  s.attachment_frames = 1000;
  s.attachment_speed = 0.2;
  s.gravity = Vec3::Zero();
  const Points3 x0 = m.x;
  Simulator sim(std::move(m), s);
  const int frames = 6;
  sim.run(frames);
  const double most = s.attachment_speed * frames * sim.settings().frame_dt + 1e-9;
  for (int p : top) {
    const double rise = sim.model().x(p, 1) - x0(p, 1);
    EXPECT_GT(rise, 0.5 * most);
    EXPECT_LE(rise, most);
  }
}

TEST(Simulator, CancelAndProgress) {
  Simulator sim(pinned_square(load_material("denim"), 6));
  std::atomic<bool> cancel{false};
  int calls = 0;
  const RunResult r = sim.run(50, [&](const FrameReport& f) {
    ++calls;
    EXPECT_EQ(f.frame, calls);
    EXPECT_GT(f.steps, 0);
    EXPECT_EQ(f.degenerate, 0);
    if (calls == 3) cancel = true;
  }, &cancel);
  EXPECT_EQ(r.status, RunStatus::cancelled);
  EXPECT_EQ(r.frames, 3);
  EXPECT_EQ(calls, 3);
}

TEST(Simulator, ZeroGravityFramesAndTimeLimit) {
  ClothModel m = build_cloth_model(hanging_square(5, 0.2), load_material("denim"));
  const Points3 x0 = m.x;
  SimulatorSettings s;
  s.zero_gravity_frames = 5;
  Simulator sim(std::move(m), s);
  sim.run(5);
  EXPECT_LT((sim.model().x - x0).cwiseAbs().maxCoeff(), 1e-12);  // at rest, no gravity: no motion
  sim.run(5);
  EXPECT_LT(sim.model().x(0, 1), x0(0, 1) - 0.001);
  SimulatorSettings t;
  t.max_wall_seconds = 1e-9;
  Simulator timed(build_cloth_model(hanging_square(5, 0.2), load_material("denim")), t);
  const RunResult r = timed.run(100);
  EXPECT_EQ(r.status, RunStatus::time_limit);
  EXPECT_LE(r.frames, 1);
}

TEST(Simulator, BadSettingsAreInputError) {
  SimulatorSettings s;
  s.frame_dt = 0;
  EXPECT_THROW(Simulator(pinned_square(load_material("denim"), 4), s), InputError);
  SimulatorSettings p;
  p.temporary_pins = {1000};
  EXPECT_THROW(Simulator(pinned_square(load_material("denim"), 4), p), InputError);
}

TEST(Simulator, SameResultOnOneAndTwoThreads) {
  // Big enough (about 19k springs and 9k hinges) for the parallel paths to run; a few steps.
  Material mat = load_material("silk_charmeuse");
  mat.bend_model = BendModel::dihedral;
  const ClothModel base = pinned_square(mat, 70);
  ASSERT_GT(base.springs.size(), 8192);
  for (auto kind : {IntegratorKind::explicit_euler, IntegratorKind::implicit_euler}) {
    Points3 result[2];
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      SimulatorSettings s;
      s.integrator = kind;
      Simulator sim(base, s);
      const double dt = kind == IntegratorKind::explicit_euler ? explicit_stable_dt(base, base.x) : 1e-3;
      for (int i = 0; i < (kind == IntegratorKind::explicit_euler ? 40 : 3); ++i) ASSERT_TRUE(sim.step(dt));
      result[threads - 1] = sim.model().x;
      EXPECT_GT((sim.model().x - base.x).cwiseAbs().maxCoeff(), 0.0);
    }
    set_num_threads(0);
    EXPECT_EQ((result[0] - result[1]).cwiseAbs().maxCoeff(), 0.0) << integrator_name(kind);
  }
}

TEST(Simulator, SewingSpringsPullAnOpenSeamShut) {
  // Open seam (not merged), 10 cm apart, in zero gravity: the sewing springs close it at the
  // seam-closing speed, without overshooting into the other panel.
  const auto g = two_panels(5, 6, 0.2, 0.3, 0.3, 0.10);
  ModelOptions open;
  open.merge_seams = false;
  ClothModel m = build_cloth_model(g, load_material("cotton_poplin"), open);
  Segments pairs(g.seam_pairs.rows(), 2);
  for (Eigen::Index i = 0; i < pairs.rows(); ++i)
    pairs.row(i) << m.particle_of_vertex[g.seam_pairs(i, 0)], m.particle_of_vertex[g.seam_pairs(i, 1)];
  const int before = m.springs.size();
  add_sewing_springs(m, pairs, m.springs.stiffness.head(m.springs.num_stretch).mean());
  ASSERT_EQ(m.springs.size(), before + pairs.rows());
  ASSERT_EQ(m.spring_start.back(), 2 * m.springs.size());  // incidence lists rebuilt
  EXPECT_NEAR(m.springs.rest_now[before], 0.10, 1e-12);
  SimulatorSettings s;
  s.gravity = Vec3::Zero();
  Simulator sim(std::move(m), s);
  const double gap0 = seam_gap_max(sim.model(), g, sim.model().x);
  sim.run(30);  // 0.5 s at 0.2 m/s closes 10 cm
  const double gap = seam_gap_max(sim.model(), g, sim.model().x);
  EXPECT_NEAR(gap0, 0.10, 1e-12);
  EXPECT_LT(gap, 0.01);
  // Nothing crossed over: the left panel stays left of the right one.
  EXPECT_LT(sim.model().x(pairs(0, 0), 0), sim.model().x(pairs(0, 1), 0) + 1e-3);
}
