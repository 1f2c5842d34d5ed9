// The drape pipeline: triangulate, sew, drape, judge (see drape.hpp).
#include "tryon/drape.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "avatars/landmarks.hpp"
#include "cloth/cloth_model.hpp"
#include "cloth/contact.hpp"
#include "cloth/simulator.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/logger.hpp"
#include "core/mesh_io.hpp"
#include "garments/garment_builder.hpp"
#include "garments/transfer.hpp"
#include "outputs/glb.hpp"
#include "outputs/preview.hpp"
#include "tryon/materials.hpp"

namespace tryon {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr double kBodyGrowthPerFrame = 1e-3;  // m, under ContactSettings::thickness (2.5 mm)
// N/m, body contacts' penalty stiffness in the drape: a 1 N load sinks 1 mm into the 2.5 mm
// contact layer. Measured at 600 frames, 3 cm, on the slim tank on makehuman_female: 1e4 N/m
// 6.9 % moving, 3e3 N/m 7.8 %, 1e3 N/m clean at frame 349 (at 3.05 cm clean at 151, at 2.95 cm
// 5.5 % moving); the skirts rest clean with each.
constexpr double kBodyStiffness = 1e3;
// Untangling after sewing (phase 1b): stride a step (m), frame budget, and how many frames it
// goes on without a new fewest count of crossings. Measured on the shirt spec on
// makehuman_female: at 2.98 cm the 39 crossings the sewing left were down to 11 after 60 frames
// with 3 mm a step, and gone after 4 frames with 5 mm; at 1 cm, 169 took 83 frames with 5 mm
// (falling unevenly: 131 at frame 8, 55 at 59), while 10 mm kept 86 % of the cloth moving.
constexpr double kUntangleStep = 5e-3;
constexpr int kUntangleFrames = 150;
constexpr int kUntangleStall = 40;
// Coarse start: only for a drape at least this many times finer than the coarse resolution.
constexpr double kCoarseRatio = 1.5;

// Settings for a phase before the drape (sewing, untangling): no gravity, no pins (a pinned
// waist corner could never meet its partner: the skirt's top side-seam pair stayed 2 cm open,
// so the waist was no closed loop and slid down), and never "static": its callback ends it.
cloth::SimulatorSettings weightless(const cloth::SimulatorSettings& s) {
  cloth::SimulatorSettings w = s;
  w.gravity = Vec3::Zero();
  w.temporary_pins.clear();
  w.pin_frames = 0;
  w.min_frames = 1000000;
  return w;
}

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

json range_json(const Eigen::VectorXd& v) {
  const outputs::Range r = outputs::range_of(v);
  return json{{"min", std::isfinite(r.min) ? json(r.min) : json(nullptr)},
              {"max", std::isfinite(r.max) ? json(r.max) : json(nullptr)}};
}

/// What each particle does while draping, from the panel it belongs to.
struct ParticleRoles {
  /// Particles that do not collide with the arms, as GarmentCode's simulation filters body
  /// parts by panel [Korosteleva et al. 2024]: every particle of a garment placed wholly below
  /// the armpits (an A-pose hand beside the hips otherwise catches a skirt's hem or side seam),
  /// and otherwise those of the panels that are not sleeves (a shirt's torso panels: their
  /// side and armhole seams run between the A-pose arm and the torso), while they are sewn:
  /// then those clear of the arms collide with them (Contact::collide_with_part_where_clear).
  /// Sleeves keep the arms. The checker judges against the whole body.
  std::vector<char> ignores_arms;
  /// Particles of the upper torso's panels (not sleeves, reaching above the armpits, not mostly
  /// above the neck base like a hood's): the seams among them are sewn first, as they hold the
  /// garment on the shoulders.
  std::vector<char> upper_torso;
  /// Whether the garment lies wholly below the armpits: then it ignores the arms while it
  /// drapes too (the A-pose hand is in its way then).
  bool below_armpits = false;
};

ParticleRoles particle_roles(const garments::GarmentMesh& garment, const cloth::ClothModel& model,
                             const avatars::Landmarks& lm) {
  const std::size_t n = static_cast<std::size_t>(model.num_particles());
  ParticleRoles roles{std::vector<char>(n, 0), std::vector<char>(n, 0), false};
  if (!lm.left.found || !lm.right.found || garment.V.rows() == 0 ||
      garment.panel_of_vertex.size() != static_cast<std::size_t>(garment.V.rows()))
    return roles;
  const bool below_armpits = garment.V.col(1).maxCoeff() <= lm.armpit_y - 0.05;
  roles.below_armpits = below_armpits;
  // A panel is a sleeve when most of its vertices lie beyond an armpit, seen from the front:
  // farther out sideways than the arm's axis at the armpit (torso panels lie between the arms).
  auto beyond_armpit = [&](const Vec3& p) {
    return p.x() > lm.left.axis_point.x() || p.x() < lm.right.axis_point.x();
  };
  const std::size_t panels = garment.panel_names.size();
  std::vector<int> beyond(panels, 0), total(panels, 0), above_neck(panels, 0);
  std::vector<double> top(panels, -std::numeric_limits<double>::infinity());
  for (Eigen::Index v = 0; v < garment.V.rows(); ++v) {
    const int p = garment.panel_of_vertex[v];
    ++total[p];
    beyond[p] += beyond_armpit(garment.V.row(v).transpose());
    above_neck[p] += garment.V(v, 1) > lm.neck_y;
    top[p] = std::max(top[p], garment.V(v, 1));
  }
  std::vector<char> sleeve(panels, 0), upper(panels, 0);
  std::string kept;
  for (std::size_t p = 0; p < panels; ++p) {
    sleeve[p] = !below_armpits && 2 * beyond[p] >= total[p];
    // A hood (most of it above the neck base) waits for the second stage. As GarmentCode places
    // the hoody spec, the hood's neck edges lie 12-13 cm above the neckline they are sewn to;
    // sewn first, they pulled the torso up (no gravity while sewing: its hem rose 16 cm on
    // mean_all in 40 frames, 8 cm with the hood second), its armholes rode up into the arms, and
    // the side seams' top pairs stayed apart (at 3 cm, 240 frames: 101 of 111 pairs closed,
    // 105 mm open, on mean_all; 108, 49 mm open, on makehuman_female; with the hood second, all
    // 111 by frame 77 on both).
    const bool head = 2 * above_neck[p] > total[p];
    upper[p] = !sleeve[p] && !head && top[p] > lm.armpit_y;
    if (sleeve[p]) kept += (kept.empty() ? "" : ", ") + garment.panel_names[p];
  }
  // A particle (merged seam vertices share one) ignores the arms when all its vertices do, and
  // is upper torso when all its vertices are.
  std::vector<char> in_sleeve(n, 0), not_upper(n, 0);
  for (Eigen::Index v = 0; v < garment.V.rows(); ++v) {
    const int p = garment.panel_of_vertex[v], i = model.particle_of_vertex[v];
    if (sleeve[p]) in_sleeve[i] = 1;
    if (!upper[p]) not_upper[i] = 1;
  }
  for (std::size_t i = 0; i < n; ++i) {
    roles.ignores_arms[i] = !in_sleeve[i];
    roles.upper_torso[i] = !not_upper[i];
  }
  logger().info("contact: the arms collide with {}", kept.empty() ? std::string("no panel") : "panels " + kept);
  return roles;
}

/// Sewing in two stages: the seam pairs whose particles are both upper torso close first; the
/// others wait with their sewing springs slack until release().
class SewingStages {
 public:
  SewingStages(const Segments& seams, const std::vector<char>& first_stage, int first_sewing_spring,
               cloth::ClothModel& model)
      : seams_(seams), first_spring_(first_sewing_spring) {
    bool any_first = false;
    for (Eigen::Index i = 0; i < seams.rows(); ++i) {
      if (first_stage[seams(i, 0)] && first_stage[seams(i, 1)]) {
        any_first = true;
        first_.push_back(static_cast<int>(i));
      } else {
        later_.push_back(static_cast<int>(i));
      }
    }
    if (!any_first) later_.clear();  // nothing to sew first: one stage
    for (int i : later_) {
      stiffness_.push_back(model.springs.stiffness[first_spring_ + i]);
      damping_.push_back(model.springs.damping[first_spring_ + i]);
      model.springs.stiffness[first_spring_ + i] = 0;
      model.springs.damping[first_spring_ + i] = 0;
    }
  }
  bool waiting() const { return !later_.empty() && !released_; }
  /// Whether every pair of the first stage is closer than `distance`.
  bool first_closed(ConstRef<Points3> x, double distance) const {
    for (int i : first_)
      if ((x.row(seams_(i, 0)) - x.row(seams_(i, 1))).norm() > distance) return false;
    return true;
  }
  void release(cloth::ClothModel& model) {
    for (std::size_t k = 0; k < later_.size(); ++k) {
      model.springs.stiffness[first_spring_ + later_[k]] = stiffness_[k];
      model.springs.damping[first_spring_ + later_[k]] = damping_[k];
    }
    released_ = true;
  }

 private:
  const Segments& seams_;
  int first_spring_;
  std::vector<int> first_, later_;
  std::vector<double> stiffness_, damping_;
  bool released_ = false;
};

}  // namespace

json quality_json(const quality::Quality& q) {
  auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  return {{"body_intersections", q.body_intersections},
          {"vertices_inside_body", q.vertices_inside_body},
          {"self_intersections", q.self_intersections},
          {"seam_gap_max_m", q.seam_gap_max_m},
          {"strain_max", opt(q.strain_max)},
          {"strain_mean", opt(q.strain_mean)},
          {"moving_fraction", opt(q.moving_fraction)}};
}

json body_frame_json(const avatars::Avatar& body) {
  const avatars::BodyFrameGuess& f = body.frame;
  return {{"up", f.up.name()},         {"up_detected", f.up_detected},         {"up_how", f.up_how},
          {"facing", f.facing.name()}, {"facing_detected", f.facing_detected}, {"facing_how", f.facing_how}};
}

void write_garment_obj(const fs::path& path, const garments::GarmentMesh& g, const Points3& V,
                       const std::string& title) {
  ObjExtras extras;
  extras.lines = g.seam_pairs;
  extras.groups = g.panel_names;
  extras.group_of = g.panel_of_triangle;
  extras.comment = title + "\nuv = 2D panel coordinates (m); 'l' elements = seam vertex pairs";
  write_obj(path, TriMesh{V, g.F, g.rest}, extras);
}

namespace {

// Refuses options out of range, before any work.
void check_options(const DrapeOptions& o) {
  if (o.seams != "sew" && o.seams != "merge")
    throw InputError("unknown seam mode '" + o.seams + "' (use sew or merge)");
  if (!(o.resolution_cm >= 0.2 && o.resolution_cm <= 50.0))
    throw InputError("resolution_cm must be between 0.2 and 50");
  if (o.max_frames < 1) throw InputError("max_frames must be at least 1");
  if (o.substeps < 1 || o.substeps > 64) throw InputError("substeps must be between 1 and 64");
  if (!(o.time_limit_s >= 0)) throw InputError("time_limit_s must be 0 (none) or positive");
  if (!(o.body_inset_m >= 0 && o.body_inset_m <= 0.1)) throw InputError("body_inset_m must be between 0 and 0.1");
  if (!(o.coarse_start_cm == 0 || (o.coarse_start_cm >= 0.2 && o.coarse_start_cm <= 50.0)))
    throw InputError("coarse_start_cm must be 0 (off) or between 0.2 and 50");
}

// What the coarse start and the fine mesh share: read, parsed and found once, and the time the
// drape started (the time limit and the progress's elapsed time count from it).
struct Shared {
  cloth::Material material;
  cloth::IntegratorKind integrator;
  avatars::Landmarks landmarks;
  Clock::time_point started;
};

DrapeResult drape_with(const garments::Pattern& pattern, const avatars::Avatar& body, const Shared& shared,
                       const DrapeOptions& o, const DrapeProgressCallback& progress,
                       const std::atomic<bool>* user_cancel) {
  const auto t_start = Clock::now();
  const cloth::Material& material = shared.material;
  const cloth::IntegratorKind integrator = shared.integrator;
  const avatars::Landmarks& landmarks = shared.landmarks;

  // Coarse start: sewing and the first of the drape on a coarse mesh, carried over to the fine
  // one (see DrapeOptions::coarse_start_cm).
  std::optional<DrapeResult> coarse;
  bool coarse_used = false;
  if (o.coarse_start_cm > 0 && o.seams == "sew" && o.contact &&
      kCoarseRatio * o.resolution_cm <= o.coarse_start_cm) {
    DrapeOptions co = o;
    co.resolution_cm = o.coarse_start_cm;
    co.coarse_start_cm = 0;
    coarse = drape_with(
        pattern, body, shared, co,
        [&](const DrapeProgress& p) {
          if (!progress) return;
          DrapeProgress q = p;
          q.phase = "coarse " + p.phase;
          progress(q);
        },
        user_cancel);
    // Clean but for rest: its report's only failure, if any, is not_static (a cancelled, timed
    // out or failed run, an intersection or an open seam each add their own).
    const json& failures = coarse->report["failures"];
    coarse_used = failures.empty() || (failures.size() == 1 && failures[0] == "not_static");
    // Stopped in it (cancelled, or out of time): the drape ends where it stopped, the coarse
    // cloth, at once. Meshing the fine garment and running a frame of it before looking at the
    // stop took longer than a batch's 2 s between SIGTERM and SIGKILL under the sanitizers, and
    // left an unsewn fine garment behind.
    const std::string coarse_run = coarse->report["run"]["status"];
    if (coarse_run == cloth::run_status_name(cloth::RunStatus::cancelled) ||
        coarse_run == cloth::run_status_name(cloth::RunStatus::time_limit)) {
      logger().info("coarse start: stopped in the drape at {} cm ({}); it is the result", o.coarse_start_cm,
                    coarse_run);
      DrapeResult stopped = std::move(*coarse);
      stopped.report["run"]["coarse_start"] = {
          {"resolution_cm", o.coarse_start_cm},
          {"used", false},
          {"stopped_in_it", true},
          {"status", stopped.report["status"]},
          {"failures", stopped.report["failures"]},
          {"frames", stopped.report["simulation"]["frames"]},
          {"simulate_s", stopped.report["timings_s"].value("simulate", 0.0)}};
      return stopped;
    }
    logger().info("coarse start: the drape at {} cm is {}{}", o.coarse_start_cm,
                  coarse->clean ? "clean" : "not clean (" + coarse->report["failures"].dump() + ")",
                  coarse_used ? "; the fine mesh starts from it" : "; the fine mesh is sewn itself");
  }

  garments::BuildOptions bopt;
  bopt.resolution_m = o.resolution_cm / 100.0;
  bopt.body_height_m = body.height_m;
  garments::GarmentBuild build = garments::build_garment(pattern, bopt);
  for (const auto& w : build.warnings) logger().warn("{}", w);
  DrapeResult result;
  result.name = pattern.name;
  result.garment = std::move(build.mesh);
  const garments::GarmentMesh& garment = result.garment;
  // Seams: "sew" keeps the panels apart and pulls the seam pairs together while the body
  // holds the cloth out (the start is then free of intersections); "merge" joins them at
  // once at their mean position, as GarmentCode does.
  cloth::ModelOptions mopt;
  mopt.merge_seams = o.seams == "merge" || coarse_used;
  cloth::ClothModel model = [&] {
    if (!coarse_used) return cloth::build_cloth_model(garment, material, mopt);
    // The coarse drape's seams are closed: the fine mesh starts there, its seams merged.
    garments::GarmentMesh start = garment;
    start.V = garments::transfer_positions(coarse->garment, coarse->positions, garment);
    return cloth::build_cloth_model(start, material, mopt);
  }();
  Segments seam_particles(mopt.merge_seams ? 0 : garment.seam_pairs.rows(), 2);
  for (Eigen::Index i = 0; i < seam_particles.rows(); ++i)
    seam_particles.row(i) << model.particle_of_vertex[garment.seam_pairs(i, 0)],
        model.particle_of_vertex[garment.seam_pairs(i, 1)];
  const ParticleRoles roles = particle_roles(garment, model, landmarks);
  const int first_sewing_spring = model.springs.size();
  if (seam_particles.rows() > 0) {
    // Sewing springs as stiff as the fabric's stretch springs on average.
    const double k = model.springs.stiffness.head(model.springs.num_stretch).mean();
    cloth::add_sewing_springs(model, seam_particles, k);
    // And cross springs over the seams, switched on stitch by stitch once sewn, so a sewn
    // seam does not fold one panel over the other.
    const int n = cloth::add_seam_cross_springs(model, garment);
    logger().debug("cloth: {} cross springs over the seams", n);
  }

  cloth::ContactSettings csettings;
  csettings.friction = material.friction;
  csettings.self_collision = o.self_collision;
  cloth::Contact contact(body.mesh, model, csettings, seam_particles);
  contact.ignore_body_part(avatars::arm_vertices(body.mesh, landmarks), roles.ignores_arms);
  // Sewing happens around a slimmer body (limbs thin, torso a little smaller) that grows back
  // once the seams are closed, pushing the sewn garment out with it.
  const double inset =
      mopt.merge_seams || seam_particles.rows() == 0 || o.body_inset_m <= 0 ? 0.0 : contact.shrink_body(o.body_inset_m);
  const int pushed = contact.push_out(model);
  if (pushed > 0) logger().info("{} cloth vertices started inside or against the body and were pushed out", pushed);
  // Started from a sewn drape: as after the sewing (below), the particles clear of the arms
  // collide with them.
  if (coarse_used && !roles.below_armpits) {
    const int clear = contact.collide_with_part_where_clear(model);
    logger().info("contact: {} particles clear of the arms collide with them", clear);
  }
  // The coarse start's figures go into the timings (its judging with the judging).
  auto coarse_timing = [&](const char* key) {
    return coarse ? coarse->report["timings_s"].value(key, 0.0) : 0.0;
  };
  const double t_mesh = since(t_start) - coarse_timing("total") + coarse_timing("mesh");

  cloth::SimulatorSettings ssettings;
  ssettings.integrator = integrator;
  ssettings.implicit_substeps = o.substeps;
  ssettings.temporary_pins =
      cloth::labelled_particles(model, garment, {"lower_interface", "left_collar", "right_collar", "strapless_top"});
  // Not from a coarse drape: it rests on the body already.
  ssettings.pin_frames = ssettings.temporary_pins.empty() || coarse_used ? 0 : 90;
  ssettings.seam_close_speed = 0.5;
  ssettings.seam_sewn_distance = csettings.sew_distance;
  ssettings.zero_gravity_frames = mopt.merge_seams && !coarse_used ? 60 : 0;

  std::atomic<bool> cancel{false};
  bool timed_out = false;
  Points3 previous = model.x, current = model.x;
  int frames_done = 0;
  // Per phase: steps, CG iterations and wall time, for the debug log (where the time goes).
  struct PhaseFigures {
    long long steps = 0, cg = 0;
  } phase_figures;
  auto phase_start = Clock::now();
  double collision_at_start = 0;
  auto log_phase = [&](const char* phase) {
    const double coll = contact.stats().seconds - collision_at_start;
    logger().debug("{}: {} steps, {:.1f} CG iterations a step, {:.2f} s ({:.2f} s in contact)", phase,
                   phase_figures.steps,
                   static_cast<double>(phase_figures.cg) / std::max(1LL, phase_figures.steps),
                   since(phase_start), coll);
    phase_figures = {};
    phase_start = Clock::now();
    collision_at_start = contact.stats().seconds;
  };
  auto on_frame = [&](const cloth::FrameReport& f, const char* phase, const Points3& x) {
    phase_figures.steps += f.steps;
    phase_figures.cg += f.cg_iterations;
    previous = current;
    current = x;
    if (progress)
      progress(DrapeProgress{frames_done + f.frame, o.max_frames, f.moving_fraction, phase, since(shared.started)});
    if (o.time_limit_s > 0 && since(shared.started) > o.time_limit_s) timed_out = true;
    if (timed_out || (user_cancel && user_cancel->load())) cancel = true;
  };
  const auto t_sim0 = Clock::now();
  cloth::RunResult run, sewing_run;
  // Phase 1, sewing: no gravity and no self-collision (the panels' edges must meet), until
  // every seam pair is closed or the sewing budget is spent.
  if (!mopt.merge_seams && seam_particles.rows() > 0) {
    const cloth::SimulatorSettings sewing = weightless(ssettings);  // ends when the seams are closed
    contact.set_self_collision(false);
    contact.set_friction(0.0);
    // Nor strain limiting on the body: it holds back panel edges the seams must stretch to
    // close (measured: skirt_2_panels on mean_all at 3 cm, 43 of 48 pairs closed with it).
    contact.set_strain_limit_sweeps(0);
    cloth::Simulator sew(std::move(model), sewing);
    if (o.contact) sew.set_contact(&contact);
    std::atomic<bool> sewn{false};
    // Closing budget, then the body grows back by body_growth_per_frame_m a frame (less than the
    // contact thickness, so the cloth it reaches is still outside and is pushed out with it).
    const int close_frames = std::max(1, std::min(o.max_frames / 2, 240));
    const double growth_step = inset > 0 ? std::min(1.0, kBodyGrowthPerFrame / inset) : 1.0;
    const int grow_frames = inset > 0 ? static_cast<int>(std::ceil(1.0 / growth_step)) : 0;
    bool growing = inset <= 0;
    // Upper torso seams first: the others (sleeves, a dress's skirt) wait with their sewing
    // springs slack until those are closed or half the closing budget is spent. Sewn all at
    // once, the sleeves, placed out along the arms, pulled the torso's armholes outwards, and
    // the shoulder seams slid off the shoulders before they closed (measured: the shirt spec
    // on mean_all at 3 cm went down to the waist, 119 of 139 pairs closed; torso first, it
    // stays on the shoulders and 139 of 139 close).
    SewingStages stages(seam_particles, roles.upper_torso, first_sewing_spring, sew.model());
    sewing_run = sew.run(close_frames + grow_frames, [&](const cloth::FrameReport& f) {
      if (stages.waiting() && (stages.first_closed(sew.model().x, csettings.sew_distance) || f.frame >= close_frames / 2)) {
        logger().info("sewing: the seams below and beside the upper torso start at frame {}", f.frame);
        stages.release(sew.model());
      }
      on_frame(f, "sewing", sew.model().x);
      if (cancel) sewn = true;
      if (!growing && (contact.closed_seam_pairs() == contact.num_seam_pairs() || f.frame >= close_frames)) growing = true;
      if (growing && inset > 0) contact.set_body_growth(contact.body_growth() + growth_step);
      if (growing && contact.body_growth() >= 1 &&
          (contact.closed_seam_pairs() == contact.num_seam_pairs() || f.frame >= close_frames + grow_frames))
        sewn = true;
    }, &sewn);
    if (inset > 0) contact.set_body_growth(1);
    frames_done = sewing_run.frames;
    log_phase("sewing");
    model = sew.model();
    model.v.setZero();
    logger().info("sewing: {} of {} seam pairs closed after {} frames, gap {:.1f} mm", contact.closed_seam_pairs(),
                  contact.num_seam_pairs(), sewing_run.frames, 1000 * contact.seam_gap(model.x));
    // Name the seams still open: a pattern maker can see which ones did not close.
    std::vector<double> open_gap(pattern.stitches.size(), 0.0);
    for (Eigen::Index i = 0; i < seam_particles.rows(); ++i)
      open_gap[garment.stitch_of_pair[i]] =
          std::max(open_gap[garment.stitch_of_pair[i]],
                   (model.x.row(seam_particles(i, 0)) - model.x.row(seam_particles(i, 1))).norm());
    for (std::size_t st = 0; st < open_gap.size(); ++st)
      if (open_gap[st] >= csettings.sew_distance)
        logger().info("seam {} ({} edge {} to {} edge {}) still open by {:.1f} mm", st,
                      pattern.panels[pattern.stitches[st].a.panel].name, pattern.stitches[st].a.edge,
                      pattern.panels[pattern.stitches[st].b.panel].name, pattern.stitches[st].b.edge,
                      1000 * open_gap[st]);
    // The torso panels of a top ignored the arms while they were sewn; sewn, they fell through
    // the arms as they draped (the dress on makehuman_female at 3 cm: 6 cloth edges through the
    // arm at the back of the armhole, 2 vertices inside; 0 and 0 when they collide again).
    if (!roles.below_armpits) {
      const int clear = contact.collide_with_part_where_clear(model);
      logger().info("contact: {} particles clear of the arms collide with them from now on", clear);
    }
    contact.set_self_collision(o.self_collision);
    contact.set_friction(material.friction);
    contact.set_strain_limit_sweeps(csettings.strain_limit_sweeps);
  }
  // Phase 1b, untangling: the sewing ran without self-collision, and panel edges on their way
  // to their partners can pass through other cloth (the shirt spec on makehuman_female at
  // 2.98 cm: the sleeve's underarm seam through the torso's side seam at both armpits, 39 edges
  // through triangles). Cloth in a crossing moves along its direction of untangling, here
  // without gravity and with a longer stride than in the drape, until no crossing is left or
  // the budget is spent; with none, the drape starts at once, as before.
  cloth::RunResult untangle_run;
  if (o.self_collision && o.contact && !cancel) {
    contact.begin_frame(model, 0.0);
    const int found = contact.crossings();
    if (found > 0) {
      // Ends when the crossings are undone, or the budget is spent.
      const cloth::SimulatorSettings untangling = weightless(ssettings);
      contact.set_untangle_step(kUntangleStep);
      cloth::Simulator untangle(std::move(model), untangling);
      untangle.set_contact(&contact);
      std::atomic<bool> undone{false};
      int fewest = found, fewest_frame = 0;
      const int budget = std::max(1, std::min(kUntangleFrames, o.max_frames - frames_done - 1));
      untangle_run = untangle.run(
          budget,
          [&](const cloth::FrameReport& f) {
            on_frame(f, "untangle", untangle.model().x);
            contact.begin_frame(untangle.model(), 0.0);
            logger().debug("untangling: frame {}, {} cloth edges through cloth", f.frame,
                           contact.crossings());
            if (contact.crossings() < fewest) {
              fewest = contact.crossings();
              fewest_frame = f.frame;
            }
            if (contact.crossings() == 0 || f.frame - fewest_frame >= kUntangleStall || cancel) undone = true;
          },
          &undone);
      frames_done += untangle_run.frames;
      log_phase("untangling");
      model = untangle.model();
      model.v.setZero();
      contact.set_untangle_step(csettings.untangle_step);
      logger().info("untangling: {} cloth edges through cloth after sewing, {} after {} frames", found,
                    contact.crossings(), untangle_run.frames);
    }
  }
  // The drape: body contact as penalty forces in the implicit solve, so the cloth can settle
  // where the body's push balances gravity and tension (see cloth::PenaltyContacts). Not while
  // sewing: the slim tank on makehuman_female closed 25 of 38 seam pairs in 150 frames with
  // them (1e4 N/m), all 38 in 47 frames with the projection.
  if (integrator == cloth::IntegratorKind::implicit_euler) contact.set_body_stiffness(kBodyStiffness);
  // Phase 2, drape: gravity, self-collision, until static or the frame limit.
  cloth::Simulator sim(std::move(model), ssettings);
  if (o.contact) sim.set_contact(&contact);
  if (!cancel) {
    run = sim.run(std::max(1, o.max_frames - frames_done),
                  [&](const cloth::FrameReport& f) { on_frame(f, "drape", sim.model().x); }, &cancel);
  } else {
    run.status = cloth::RunStatus::cancelled;
  }
  if (timed_out && run.status == cloth::RunStatus::cancelled) run.status = cloth::RunStatus::time_limit;
  log_phase("drape");
  run.frames += frames_done;
  run.steps += sewing_run.steps + untangle_run.steps;
  run.sim_time += sewing_run.sim_time + untangle_run.sim_time;
  const double t_sim = since(t_sim0);

  // Judge the result with the checker, which knows nothing of the simulator.
  const auto t_judge0 = Clock::now();
  const cloth::ClothModel& m = sim.model();
  quality::Cloth judged;
  judged.V = cloth::garment_positions(m);
  judged.F = garment.F;
  judged.rest = garment.rest;
  judged.seam_pairs = garment.seam_pairs;
  {
    Points3 prev(garment.num_vertices(), 3);
    for (int v = 0; v < garment.num_vertices(); ++v) prev.row(v) = previous.row(m.particle_of_vertex[v]);
    judged.previous = prev;
  }
  if (!judged.V.allFinite()) throw std::runtime_error("the simulation produced non-finite positions");
  result.quality = quality::check(judged, body.mesh);
  result.positions = judged.V;
  result.fit_maps = outputs::compute_fit_maps(judged.V, garment.F, garment.rest, body.mesh);
  const quality::Quality& q = result.quality;

  json failures = json::array();
  if (run.status == cloth::RunStatus::failed) failures.push_back("simulation_failed");
  if (run.status == cloth::RunStatus::cancelled) failures.push_back("cancelled");
  if (run.status == cloth::RunStatus::time_limit) failures.push_back("time_limit");
  if (q.body_intersections > 0) failures.push_back("body_intersection");
  if (q.vertices_inside_body > 0) failures.push_back("vertices_inside_body");
  if (q.self_intersections > 0) failures.push_back("self_intersection");
  if (!(q.seam_gap_max_m < 1e-3)) failures.push_back("seam_gap");
  // At rest by the checker (nothing moved in the last frame) and by the simulator (the fail-safe
  // did not stop the cloth for want of a resolution during that frame).
  const bool at_rest = q.is_static.value_or(false) && run.status == cloth::RunStatus::static_reached;
  if (!at_rest) failures.push_back("not_static");
  result.clean = failures.empty();

  json& report = result.report;
  report = {{"status", result.clean ? "ok" : "failed"},
            {"failures", failures},
            {"pattern", pattern.name},
            {"avatar", body.name},
            {"mesh",
             {{"vertices", garment.num_vertices()},
              {"triangles", garment.num_triangles()},
              {"panels", static_cast<int>(pattern.panels.size())},
              {"stitches", static_cast<int>(pattern.stitches.size())}}},
            {"simulation",
             {{"integrator", cloth::integrator_name(integrator)},
              {"dt_s", run.dt},
              {"steps", run.steps},
              {"frames", run.frames},
              {"sim_time_s", run.sim_time},
              {"static", at_rest}}},
            {"timings_s",
             {{"load", 0.0},
              {"mesh", t_mesh},
              {"simulate", t_sim + coarse_timing("simulate")},
              {"collision", contact.stats().seconds + coarse_timing("collision")},
              {"judge", since(t_judge0) + coarse_timing("judge")},
              {"write", 0.0},
              {"total", since(t_start)}}},
            {"quality", quality_json(q)}};
  report["material"] = material.name;
  report["avatar_frame"] = body_frame_json(body);
  report["fit_maps"] = {{"strain", range_json(result.fit_maps.strain)},
                        {"distance_m", range_json(result.fit_maps.distance_m)}};
  report["run"] = {{"status", cloth::run_status_name(run.status)}, {"reason", run.reason},
                   {"rollbacks", run.rollbacks}, {"pushed_out", pushed},
                   {"body_contacts", contact.stats().body_contacts}, {"self_contacts", contact.stats().self_contacts},
                   {"failsafe_reverts", contact.stats().failsafe_reverts},
                   {"failsafe_unsettled_steps", contact.stats().failsafe_unsettled},
                   {"resting_contacts", contact.stats().resting},
                   {"resting_contacts_kept", contact.stats().resting_kept}};
  if (coarse)
    report["run"]["coarse_start"] = {{"resolution_cm", o.coarse_start_cm},
                                     {"used", coarse_used},
                                     {"stopped_in_it", false},
                                     {"status", coarse->report["status"]},
                                     {"failures", coarse->report["failures"]},
                                     {"frames", coarse->report["simulation"]["frames"]},
                                     {"simulate_s", coarse_timing("simulate")}};
  return result;
}

}  // namespace

DrapeResult drape(const garments::Pattern& pattern, const avatars::Avatar& body, const DrapeOptions& o,
                  const DrapeProgressCallback& progress, const std::atomic<bool>* user_cancel) {
  // Everything that can be refused is checked before any work.
  check_options(o);
  const auto t_start = Clock::now();
  const Shared shared{cloth::load_material(resolve_material(o.material)), cloth::parse_integrator(o.integrator),
                      avatars::find_landmarks(body.mesh), t_start};
  const double t_shared = since(t_start);
  DrapeResult result = drape_with(pattern, body, shared, o, progress, user_cancel);
  json& timings = result.report["timings_s"];
  timings["mesh"] = timings.value("mesh", 0.0) + t_shared;
  timings["total"] = timings.value("total", 0.0) + t_shared;
  return result;
}

json save_drape(const DrapeResult& result, const avatars::Avatar& body, const fs::path& outdir,
                const SaveOptions& o) {
  if (o.format != "obj" && o.format != "glb") throw InputError("unknown format '" + o.format + "' (use obj or glb)");
  const outputs::FitMap fit_map = outputs::parse_fit_map(o.fit_map);
  const auto t0 = Clock::now();
  const garments::GarmentMesh& garment = result.garment;
  const std::string& name = result.name;
  const bool clean = result.clean;
  fs::create_directories(outdir);
  TriMesh out{result.positions, garment.F, garment.rest};
  if (o.format == "glb") {
    outputs::GlbOptions go;
    go.body = o.with_body ? &body.mesh : nullptr;
    go.fit_maps = &result.fit_maps;
    outputs::write_glb(outdir / "garment.glb", out, garment.rest,
                       outputs::fit_map_colors(result.fit_maps,
                                               fit_map == outputs::FitMap::none ? outputs::FitMap::strain : fit_map),
                       go);
  } else {
    write_garment_obj(outdir / "garment.obj", garment, out.V, "tryon drape: '" + name + "' on '" + body.name + "'");
  }
  if (o.preview) {
    outputs::PreviewOptions po;
    po.title = name + " ON " + body.name + (clean ? "" : " (NOT CLEAN)");
    po.legend_note = outputs::legend_range_note(result.fit_maps, fit_map);
    outputs::write_preview(outdir / "preview.png", body.mesh, out, outputs::fit_map_colors(result.fit_maps, fit_map),
                           fit_map, po);
  }
  json report = result.report;
  const double t_write = since(t0);
  report["timings_s"]["write"] = t_write;
  report["timings_s"]["total"] = report["timings_s"].value("total", 0.0) + t_write;
  write_file_atomic(outdir / "report.json", report.dump(2) + "\n");
  return report;
}

}  // namespace tryon
