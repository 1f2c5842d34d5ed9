#include <gtest/gtest.h>

#include <cmath>

#include "cloth/cloth_model.hpp"
#include "cloth/contact.hpp"
#include "cloth/material.hpp"
#include "cloth/simulator.hpp"
#include "cloth_fixtures.hpp"
#include "collision/geometry.hpp"
#include "collision/untangle.hpp"
#include "collision/test_meshes.hpp"

using namespace tryon;
using namespace tryon::cloth;
using tryon::test::cube;

namespace {

// A 2×2 cm square of cloth parallel to the cube's +z face, at z = h + offset.
ClothModel square_at(double z) {
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "square", 3, 3, 0.02, 0.02, Vec3(-0.01, -0.01, z));
  return build_cloth_model(g, load_material("cotton_poplin"));
}

// A flat 2×2 cm body patch in the plane z = 0 centred on the origin: n×n vertices, normals +z.
TriMesh body_patch(int n) {
  TriMesh patch;
  patch.V.resize(n * n, 3);
  const double spacing = 0.02 / (n - 1);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) patch.V.row(j * n + i) << -0.01 + spacing * i, -0.01 + spacing * j, 0.0;
  patch.F.resize(2 * (n - 1) * (n - 1), 3);
  for (int j = 0, f = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      const int a = j * n + i;
      patch.F.row(f++) << a, a + 1, a + n + 1;
      patch.F.row(f++) << a, a + n + 1, a + n;
    }
  return patch;
}

// Appends a one-triangle panel with corners p, q, r (rest coordinates: their x and y).
void add_triangle(garments::GarmentMesh& g, const std::string& name, const Vec3& p, const Vec3& q, const Vec3& r) {
  const int first = g.num_vertices(), panel = static_cast<int>(g.panel_names.size());
  g.panel_names.push_back(name);
  g.V.conservativeResize(first + 3, 3);
  g.rest.conservativeResize(first + 3, 2);
  int k = 0;
  for (const Vec3& x : {p, q, r}) {
    g.V.row(first + k) = x.transpose();
    g.rest.row(first + k) = Vec2(x.x(), x.y()).transpose();
    g.panel_of_vertex.push_back(panel);
    ++k;
  }
  g.F.conservativeResize(g.num_triangles() + 1, 3);
  g.F.row(g.num_triangles() - 1) << first, first + 1, first + 2;
  g.panel_of_triangle.push_back(panel);
}

// Cloth edges through cloth triangles now.
std::size_t crossings(const ClothModel& model) {
  const collision::MeshTopology topo = collision::MeshTopology::build(model.F, model.num_particles());
  const collision::Bvh<collision::Aabb> bvh(model.x, model.F);
  return collision::edges_through_triangles(model.x, model.F, topo, bvh).size();
}

// Steps of the contact stage alone (the cloth asks to stay where it is) until no crossing is
// left, at most max_steps; returns the steps taken.
int steps_until_untangled(ClothModel& model, Contact& contact, int max_steps) {
  const double dt = 0.01;
  int step = 0;
  for (; step < max_steps && crossings(model) > 0; ++step) {
    contact.begin_frame(model, step * dt);
    EXPECT_EQ(static_cast<std::size_t>(contact.crossings()), crossings(model));
    Points3 x_new = model.x, v_new = Points3::Zero(model.num_particles(), 3);
    contact.resolve(model, model.x, x_new, v_new, dt);
    model.x = x_new;
  }
  return step;
}

}  // namespace

TEST(Contact, ShrunkBodyLeavesNearClothAloneAndGrowsBack) {
  const double h = 0.1;
  const TriMesh body = cube(h);
  // Cloth 5 mm inside the +z face: the body as given pushes it out.
  {
    ClothModel model = square_at(h - 0.005);
    Contact contact(body, model);
    EXPECT_EQ(contact.push_out(model), model.num_particles());
  }
  // Shrunk by up to 3 cm along the corners' pseudo-normals (the face moves in by 3/√3 cm):
  // the same cloth is now more than the thickness outside and stays where it is.
  ClothModel model = square_at(h - 0.005);
  Contact contact(body, model);
  const double inset = contact.shrink_body(0.03);
  EXPECT_NEAR(inset, 0.03, 1e-12);  // the cube is 20 cm thick: 40 % of it is more than 3 cm
  EXPECT_EQ(contact.body_growth(), 0.0);
  const Points3 before = model.x;
  EXPECT_EQ(contact.push_out(model), 0);
  EXPECT_EQ(model.x, before);
  // Grown back, the body reaches the cloth again.
  contact.set_body_growth(1.0);
  EXPECT_EQ(contact.push_out(model), model.num_particles());
  EXPECT_GT(model.x.col(2).minCoeff(), h);
}

TEST(Contact, ClothLeavingTheBodyIsLetThroughEnteringIsNot) {
  const double h = 0.1;
  const TriMesh body = cube(h);
  ClothModel model = square_at(h - 0.01);  // 1 cm inside the +z face
  ContactSettings settings;
  settings.self_collision = false;
  Contact contact(body, model, settings);
  // Leaving: from 1 cm inside to 1 cm outside in one step; the fail-safe must not hold it inside.
  const Points3 x_prev = model.x;
  Points3 x_new = x_prev, v_new = Points3::Zero(x_prev.rows(), 3);
  x_new.col(2).array() += 0.02;
  v_new.col(2).setConstant(0.02 / 0.01);
  const Points3 wanted = x_new;
  contact.resolve(model, x_prev, x_new, v_new, 0.01);
  EXPECT_TRUE(x_new.isApprox(wanted));
  // Entering: from 1 cm outside to 1 cm inside is stopped outside the body.
  ClothModel outside = square_at(h + 0.01);
  Contact contact2(body, outside, settings);
  Points3 y_new = outside.x, w_new = Points3::Zero(outside.x.rows(), 3);
  y_new.col(2).array() -= 0.02;
  w_new.col(2).setConstant(-2.0);
  contact2.resolve(outside, outside.x, y_new, w_new, 0.01);
  EXPECT_GE(y_new.col(2).minCoeff(), h);
  EXPECT_GE(w_new.col(2).minCoeff(), 0.0);  // the approaching velocity is removed
}

TEST(Contact, ClothEdgeSlidingOutwardAcrossABodyEdgeIsStoppedOutside) {
  // A cloth edge PQ across the cube's edge at x = z = h (the ridge along y), just outside it.
  // In one step P moves back along the top and Q out and down beside the side: both ends stay
  // outside the cube and the ends' displacements add up to an outward one along the ridge's
  // normal, but at the step's end PQ cuts the corner, through the body. Judged by the motion's
  // direction, the fail-safe took this for cloth leaving the body and let it through.
  const double h = 0.1;
  const TriMesh body = cube(h);
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "quad", 2, 2, 0.05, 0.05, Vec3::Zero());
  ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
  ASSERT_EQ(model.num_particles(), 4);
  // Triangles (0, 1, 3) and (0, 3, 2): P = 0, Q = 1, and 2 and 3 far outside the corner.
  model.x.row(0) << 0.09, 0.0, 0.111;
  model.x.row(1) << 0.111, 0.0, 0.09;
  model.x.row(2) << 0.15, 0.05, 0.25;
  model.x.row(3) << 0.15, 0.05, 0.15;
  ContactSettings settings;
  settings.self_collision = false;
  settings.strain_limit_sweeps = 0;
  Contact contact(body, model, settings);
  const Points3 x_prev = model.x;
  Points3 x_new = x_prev, v_new = Points3::Zero(4, 3);
  x_new.row(0) << 0.05, 0.0, 0.1005;
  x_new.row(1) << 0.2, 0.0, 0.08;
  const double dt = 0.1;  // slow enough for the speed guard (2 m/s) to leave the motion as it is
  v_new = (x_new - x_prev) / dt;
  // The end positions cut the corner (the premise of the test).
  auto crosses_body = [&](const Points3& x, int a, int b) {
    for (Eigen::Index f = 0; f < body.F.rows(); ++f)
      if (collision::segment_triangle_intersect(x.row(a), x.row(b), body.V.row(body.F(f, 0)), body.V.row(body.F(f, 1)),
                                                body.V.row(body.F(f, 2))))
        return true;
    return false;
  };
  ASSERT_FALSE(crosses_body(x_prev, 0, 1));
  ASSERT_TRUE(crosses_body(x_new, 0, 1));
  contact.resolve(model, x_prev, x_new, v_new, dt);
  const int edges[5][2] = {{0, 1}, {1, 3}, {0, 3}, {3, 2}, {0, 2}};
  for (const auto& e : edges) EXPECT_FALSE(crosses_body(x_new, e[0], e[1])) << "edge " << e[0] << "-" << e[1];
}

// The resting-contact counters: a square lying on the cube's +z face, sinking 1 mm a step, is
// put back at `thickness` every step; from the second step on its particles were resting in
// the step before too. A square that lifts off rests in no step.
TEST(Contact, CountsRestingContactsKeptFromTheStepBefore) {
  const double h = 0.1;
  const TriMesh body = cube(h);
  ContactSettings settings;
  settings.self_collision = false;
  ClothModel model = square_at(h + settings.thickness);
  Contact contact(body, model, settings);
  const int n = model.num_particles();
  for (int step = 1; step <= 3; ++step) {
    const Points3 x_prev = model.x;
    Points3 x_new = x_prev, v_new = Points3::Zero(n, 3);
    x_new.col(2).array() -= 0.001;
    v_new.col(2).setConstant(-0.1);
    contact.resolve(model, x_prev, x_new, v_new, 0.01);
    EXPECT_NEAR(x_new.col(2).minCoeff(), h + settings.thickness, 1e-12);
    model.x = x_new;
    EXPECT_EQ(contact.stats().resting, static_cast<long long>(step) * n);
    EXPECT_EQ(contact.stats().resting_kept, static_cast<long long>(step - 1) * n);
  }
  ClothModel lifting = square_at(h + settings.thickness);
  Contact contact2(body, lifting, settings);
  Points3 x_new = lifting.x, v_new = Points3::Zero(n, 3);
  x_new.col(2).array() += 0.001;
  v_new.col(2).setConstant(0.1);
  contact2.resolve(lifting, lifting.x, x_new, v_new, 0.01);
  EXPECT_EQ(contact2.stats().resting, 0);
  EXPECT_EQ(contact2.stats().resting_kept, 0);
}

TEST(Contact, ImpactZoneMovesTogetherInsteadOfFreezing) {
  // Two 2×2 cm squares far from a small body: A 5 mm above B, A falling at 1 m/s, B at rest.
  // In a 10 ms step A would pass through B; the zone (A's and B's particles) moves with the
  // mean velocity instead: A stays above B, and both move down (nothing is frozen in place).
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "b", 3, 3, 0.02, 0.02, Vec3(-0.01, 1.0, -0.01), Vec3::UnitX(), Vec3::UnitZ());
  cloth::test::add_grid_panel(g, "a", 3, 3, 0.02, 0.02, Vec3(-0.01, 1.005, -0.01), Vec3::UnitX(), Vec3::UnitZ());
  ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
  ASSERT_EQ(model.num_particles(), 18);
  Contact contact(cube(0.1), model);
  contact.begin_frame(model, 0.0);
  const double dt = 0.01;
  Points3 v_new = Points3::Zero(18, 3);
  v_new.bottomRows(9).col(1).setConstant(-1.0);
  Points3 x_new = model.x + dt * v_new;
  contact.resolve(model, model.x, x_new, v_new, dt);
  const double a_low = x_new.bottomRows(9).col(1).minCoeff(), b_high = x_new.topRows(9).col(1).maxCoeff();
  EXPECT_GT(a_low, b_high);                         // no pass-through
  EXPECT_LT(b_high, 1.0);                           // B was carried down with the zone
  EXPECT_LT(x_new.bottomRows(9).col(1).maxCoeff(), 1.005);  // A kept moving too
  EXPECT_LT(v_new.col(1).maxCoeff(), 0.0);          // the whole zone still falls
}

TEST(Contact, ImpactZoneTakesTheSeamPartnersOfItsParticlesAlong) {
  // As above, A (3 mm above B, half a cell to the left) falls through B in one step, and B's
  // right edge is sewn to the left edge of a third square C beside it, at rest (closed seam
  // pairs, held as one particle). The zone of A and B moves down with its mean velocity, about
  // 13 mm in the step. Were C's edge not in the zone, holding each seam pair together would
  // pull B's edge back towards C in every fail-safe round, against the zone's rigid motion (on
  // a garment, the dress on makehuman_female, that brought a crossing back in every round until
  // the rounds ran out, step after step).
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "b", 3, 3, 0.02, 0.02, Vec3(-0.01, 1.0, -0.01), Vec3::UnitX(), Vec3::UnitZ());
  cloth::test::add_grid_panel(g, "c", 3, 3, 0.02, 0.02, Vec3(0.01, 1.0, -0.01), Vec3::UnitX(), Vec3::UnitZ());
  cloth::test::add_grid_panel(g, "a", 3, 3, 0.02, 0.02, Vec3(-0.015, 1.003, -0.01), Vec3::UnitX(), Vec3::UnitZ());
  ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
  ASSERT_EQ(model.num_particles(), 27);
  Segments seams(3, 2);
  seams << 2, 9, 5, 12, 8, 15;  // B's right edge (i = 2) to C's left edge (i = 0), row by row
  for (Eigen::Index k = 0; k < seams.rows(); ++k)
    ASSERT_LT((model.x.row(seams(k, 0)) - model.x.row(seams(k, 1))).norm(), 1e-12);
  ContactSettings settings;
  settings.strain_limit_sweeps = 0;
  Contact contact(cube(0.1), model, settings, seams);
  contact.begin_frame(model, 0.0);
  const double dt = 0.02;
  Points3 v_new = Points3::Zero(27, 3);
  v_new.bottomRows(9).col(1).setConstant(-1.5);  // 3 cm in the step: through B
  Points3 x_new = model.x + dt * v_new;
  contact.resolve(model, model.x, x_new, v_new, dt);
  EXPECT_EQ(contact.stats().failsafe_unsettled, 0);
  EXPECT_FALSE(contact.held_back());
  // The zone (A, B and C's sewn edge) moved down as one rigid body: B and C's edge by the same
  // amount, A still 3 mm above B. Without C's edge in the zone, B's edge ended 3.75 mm above the
  // rest of B (the zone's motion and the seam's hold averaged).
  const double drop = 1.0 - x_new(0, 1);
  EXPECT_GT(drop, 0.005);
  for (int p = 0; p < 9; ++p) EXPECT_NEAR(x_new(p, 1), 1.0 - drop, 1e-12) << "B particle " << p;
  for (int p : {9, 12, 15}) EXPECT_NEAR(x_new(p, 1), 1.0 - drop, 1e-12) << "C's sewn particle " << p;
  for (int p = 18; p < 27; ++p) EXPECT_NEAR(x_new(p, 1), 1.003 - drop, 1e-12) << "A particle " << p;
  EXPECT_EQ(contact.closed_seam_pairs(), 3);
  EXPECT_LT(contact.seam_gap(x_new), 1e-12);
}

namespace {
// Square B's right edge sewn to square C's left edge (21 particles), the three pairs
// kOpenGaps apart and open.
constexpr double kOpenGaps[3] = {0.006, 0.010, 0.003};
struct SquaresSewnOpen {
  ClothModel model;
  Segments seams;
};
SquaresSewnOpen squares_sewn_open() {
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "b", 3, 3, 0.02, 0.02, Vec3(-0.01, 1.0, -0.01), Vec3::UnitX(), Vec3::UnitZ());
  cloth::test::add_grid_panel(g, "c", 4, 3, 0.03, 0.02, Vec3(0.01, 1.0, -0.01), Vec3::UnitX(), Vec3::UnitZ());
  SquaresSewnOpen s{build_cloth_model(g, load_material("cotton_poplin")), Segments(3, 2)};
  s.seams << 2, 9, 5, 13, 8, 17;  // B's right edge (i = 2) to C's left edge (i = 0), row by row
  for (Eigen::Index k = 0; k < 3; ++k) s.model.x(s.seams(k, 1), 0) += kOpenGaps[k];
  return s;
}
}  // namespace

TEST(Contact, StitchesShutTheOpenSeamPairsWithinADistance) {
  // The pairs 6, 10 and 3 mm apart. Stitched within 8 mm, the 6 and 3 mm pairs meet at their
  // mass-weighted means and are held from then on; the 10 mm pair stays as it was, and a step
  // does not close it (the sewing distance is the settings' again).
  auto [model, seams] = squares_sewn_open();
  ASSERT_EQ(model.num_particles(), 21);
  ContactSettings settings;
  settings.strain_limit_sweeps = 0;
  Contact contact(cube(0.1), model, settings, seams);
  ASSERT_EQ(contact.closed_seam_pairs(), 0);
  Points3 x = model.x;
  EXPECT_EQ(contact.stitch_pairs_within(model, x, 0.008), 2);
  EXPECT_EQ(contact.closed_seam_pairs(), 2);
  for (Eigen::Index k : {0, 2}) {
    const int a = seams(k, 0), b = seams(k, 1);
    const Vec3 mean = (model.mass[a] * Vec3(model.x.row(a)) + model.mass[b] * Vec3(model.x.row(b))) /
                      (model.mass[a] + model.mass[b]);
    EXPECT_LT((Vec3(x.row(a)) - mean).norm(), 1e-12) << "pair " << k;
    EXPECT_LT((Vec3(x.row(b)) - mean).norm(), 1e-12) << "pair " << k;
  }
  EXPECT_NEAR((x.row(seams(1, 0)) - x.row(seams(1, 1))).norm(), 0.010, 1e-12);
  for (int p = 0; p < 21; ++p) {
    if (p == 2 || p == 9 || p == 8 || p == 17) continue;
    EXPECT_EQ(x.row(p), model.x.row(p)) << "particle " << p;
  }
  model.x = x;
  contact.begin_frame(model, 0.0);
  Points3 v_new = Points3::Zero(21, 3);
  Points3 x_new = model.x;
  contact.resolve(model, model.x, x_new, v_new, 0.01);
  EXPECT_EQ(contact.closed_seam_pairs(), 2);
  EXPECT_LT((x_new.row(seams(0, 0)) - x_new.row(seams(0, 1))).norm(), 1e-12);
  EXPECT_GT((x_new.row(seams(1, 0)) - x_new.row(seams(1, 1))).norm(), 0.009);
}

TEST(Contact, SeamCloseDistanceClosesOpenPairsWithinItInAStep) {
  // The pairs 6, 10 and 3 mm apart. A step with the settings' 2 mm closes none; with a seam
  // close distance of 8 mm the next step closes the 6 and 3 mm pairs and holds them together;
  // the 10 mm pair stays open. A close distance under sew_distance leaves sew_distance the
  // least: a pair 1.5 mm apart still closes.
  auto [model, seams] = squares_sewn_open();
  ContactSettings settings;
  settings.strain_limit_sweeps = 0;
  settings.self_collision = false;
  Contact contact(cube(0.1), model, settings, seams);
  auto step = [&] {
    contact.begin_frame(model, 0.0);
    Points3 v_new = Points3::Zero(model.num_particles(), 3);
    Points3 x_new = model.x;
    contact.resolve(model, model.x, x_new, v_new, 0.01);
    return x_new;
  };
  auto gap = [&](const Points3& x, Eigen::Index k) { return (x.row(seams(k, 0)) - x.row(seams(k, 1))).norm(); };
  Points3 x = step();
  EXPECT_EQ(contact.closed_seam_pairs(), 0);
  for (Eigen::Index k = 0; k < 3; ++k) EXPECT_NEAR(gap(x, k), kOpenGaps[k], 1e-12) << "pair " << k;
  contact.set_seam_close_distance(0.008);
  x = step();
  EXPECT_EQ(contact.closed_seam_pairs(), 2);
  EXPECT_LT(gap(x, 0), 1e-12);
  EXPECT_LT(gap(x, 2), 1e-12);
  EXPECT_NEAR(gap(x, 1), 0.010, 1e-12);

  model.x(seams(1, 1), 0) -= 0.0085;  // the 10 mm pair 1.5 mm apart now
  contact.set_seam_close_distance(0.001);
  x = step();
  EXPECT_EQ(contact.closed_seam_pairs(), 3);
  EXPECT_LT(gap(x, 1), 1e-12);
}

TEST(Contact, ImpactZoneWithClothTheBodySendsBackStops) {
  // Cloth triangle B falls past the cube's top corner, which would pierce it: the fail-safe sends
  // B back. Triangle A, over B's part beside the cube, falls through B's place in the same
  // step: A and B form an impact zone. Moved with its mean velocity, the zone took B through the
  // corner again, round after round, until the rounds ran out and the frame was not evidence of
  // rest (the dress on mean_all, at a side seam: step after step from frame 225 on). A zone
  // holding a particle the body sent back stops, as one holding a pinned particle does.
  const double h = 0.1;
  garments::GarmentMesh g;
  // B covers the corner (h, h) seen from above; its corners are all beside the cube.
  add_triangle(g, "b", Vec3(h + 0.01, h - 0.03, h + 0.004), Vec3(h + 0.01, h + 0.01, h + 0.004),
               Vec3(h - 0.03, h + 0.01, h + 0.004));
  // A, 3 mm above B, beside the cube (x, y > h + 3 mm).
  add_triangle(g, "a", Vec3(h + 0.004, h + 0.004, h + 0.007), Vec3(h + 0.008, h + 0.004, h + 0.007),
               Vec3(h + 0.004, h + 0.008, h + 0.007));
  ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
  ASSERT_EQ(model.num_particles(), 6);
  ContactSettings settings;
  settings.strain_limit_sweeps = 0;
  Contact contact(cube(h), model, settings);
  contact.begin_frame(model, 0.0);
  const double dt = 0.01;
  Points3 v_new = Points3::Zero(6, 3);
  v_new.topRows(3).col(2).setConstant(-1.5);     // B: 1.5 cm down, the corner through it
  v_new.bottomRows(3).col(2).setConstant(-1.0);  // A: 1 cm down, through B's place
  Points3 x_new = model.x + dt * v_new;
  contact.resolve(model, model.x, x_new, v_new, dt);
  EXPECT_EQ(contact.stats().failsafe_unsettled, 0);
  EXPECT_FALSE(contact.held_back());
  EXPECT_GT(contact.stats().failsafe_reverts, 0);  // the corner did send B back
  // Both stayed where they were, B above the corner and A above B; A stopped with its zone.
  EXPECT_TRUE(x_new.isApprox(model.x));
  EXPECT_EQ(v_new.bottomRows(3).norm(), 0.0);
}

TEST(Contact, SeamPairSentBackApartAcrossTheBodyOpensAgainInsteadOfFreezingTheCloth) {
  // A slab 6 mm thick (z = ±3 mm), and a seam pair across it: corner P of triangle A 6 mm above
  // its middle, corner Q of triangle B 6 mm below. In one step they meet 1 mm apart inside the
  // slab, so sewing holds them together, and the fail-safe sends both back: each path enters
  // the slab. Held together, they would meet at their mean, inside the slab, in every round
  // and every step after, and the rounds' end would send the whole cloth back each time (the
  // hoody on mean_all at 1.95 cm, at an armpit: the sewing froze with seams 216 mm open).
  TriMesh slab = cube(1.0);
  slab.V.col(0) *= 0.05;
  slab.V.col(1) *= 0.05;
  slab.V.col(2) *= 0.003;
  garments::GarmentMesh g;
  add_triangle(g, "a", Vec3(0, 0, 0.006), Vec3(0.02, 0, 0.006), Vec3(0, 0.02, 0.006));
  add_triangle(g, "b", Vec3(0, 0, -0.006), Vec3(0.02, 0, -0.006), Vec3(0, 0.02, -0.006));
  ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
  ASSERT_EQ(model.num_particles(), 6);
  Segments seams(1, 2);
  seams << 0, 3;
  ContactSettings settings;
  settings.self_collision = false;
  settings.strain_limit_sweeps = 0;
  Contact contact(slab, model, settings, seams);
  const double dt = 0.01;
  contact.begin_frame(model, 0.0);
  Points3 x_new = model.x, v_new = Points3::Zero(6, 3);
  x_new.row(0) << 0, 0, 0.0005;
  x_new.row(3) << 0, 0, -0.0005;
  contact.resolve(model, model.x, x_new, v_new, dt);
  // Both went back where they were, and the pair is open again.
  EXPECT_TRUE(x_new.isApprox(model.x));
  EXPECT_EQ(contact.closed_seam_pairs(), 0);
  EXPECT_NEAR(contact.seam_gap(x_new), 0.012, 1e-12);
  // The next step, the rest of the cloth moves: A's corner 1 mm up, away from the slab.
  model.x = x_new;
  const long long unsettled = contact.stats().failsafe_unsettled;
  contact.begin_frame(model, dt);
  x_new = model.x;
  v_new.setZero();
  x_new(1, 2) += 0.001;
  v_new(1, 2) = 0.001 / dt;
  const Points3 wanted = x_new;
  contact.resolve(model, model.x, x_new, v_new, dt);
  EXPECT_TRUE(x_new.isApprox(wanted));
  EXPECT_EQ(contact.stats().failsafe_unsettled, unsettled);
  EXPECT_FALSE(contact.held_back());
}

TEST(Contact, SeamPairClosedInAStepSentBackWholeOpensAgain) {
  // Far apart, far from the body (y = 1 m), one step of the contact stage:
  //  - a seam pair meets: corner P 3 mm above, Q 3 mm below, 1 mm apart after the step;
  //  - triangle T moves 3 cm along x, and corner V moves with it through it: one impact zone,
  //    which the single fail-safe round leaves unsettled, so it goes back to where it was;
  //  - corner W passes where T was, after T left: no hit while T moves, a hit once T is back.
  // That hit is left, so the whole cloth goes back to its x_prev, where the pair is 6 mm apart:
  // the pair must be open again, not counted closed 6 mm apart (then every later step snapped
  // it shut and a fail-safe that could not settle the snap froze the cloth).
  garments::GarmentMesh g;
  const Vec3 o(0, 1.0, 0);
  add_triangle(g, "p", o + Vec3(0.5, 0, 0.003), o + Vec3(0.52, 0, 0.003), o + Vec3(0.5, 0.02, 0.003));
  add_triangle(g, "q", o + Vec3(0.5, 0, -0.003), o + Vec3(0.52, 0, -0.003), o + Vec3(0.5, 0.02, -0.003));
  add_triangle(g, "t", o, o + Vec3(0.02, 0, 0), o + Vec3(0, 0.02, 0));
  add_triangle(g, "v", o + Vec3(0.005, 0.005, 0.005), o + Vec3(0.1, 0.1, 0.05), o + Vec3(0.1, 0.12, 0.05));
  add_triangle(g, "w", o + Vec3(0.005, 0.005, -0.005), o + Vec3(-0.1, -0.1, -0.05), o + Vec3(-0.1, -0.12, -0.05));
  ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
  ASSERT_EQ(model.num_particles(), 15);
  Segments seams(1, 2);
  seams << 0, 3;
  ContactSettings settings;
  settings.failsafe_rounds = 1;
  settings.strain_limit_sweeps = 0;
  Contact contact(cube(0.1), model, settings, seams);
  const double dt = 0.01;
  contact.begin_frame(model, 0.0);
  ASSERT_EQ(contact.crossings(), 0);
  Points3 x_new = model.x, v_new = Points3::Zero(15, 3);
  x_new(0, 2) = 0.0005;  // P and Q 1 mm apart: closed in this step
  x_new(3, 2) = -0.0005;
  for (int k = 6; k < 9; ++k) x_new(k, 0) += 0.03;                   // T
  x_new.row(9) = (o + Vec3(0.035, 0.005, -0.005)).transpose();   // V, through T as both move
  x_new.row(12) = (o + Vec3(0.005, 0.005, 0.005)).transpose();   // W, where T was
  v_new = (x_new - model.x) / dt;
  contact.resolve(model, model.x, x_new, v_new, dt);
  ASSERT_TRUE(x_new.isApprox(model.x)) << "the whole cloth was to go back";
  EXPECT_NEAR(contact.seam_gap(x_new), 0.006, 1e-12);
  EXPECT_EQ(contact.closed_seam_pairs(), 0);
}

TEST(Contact, BodyVerticesUnderOneClothTrianglePushItOnceNotOnceEach) {
  // A 10×10 cm cloth square (two triangles) 1 mm above a fine 2×2 cm body patch (121 vertices
  // 2 mm apart, normals +z) under its middle. The cloth's corners are far from the patch, so
  // only the body vertices poking into the cloth triangles push it: each asks for 1.5 mm (to
  // the 2.5 mm thickness) spread by barycentric weights, which is at most √3 × 1.5 mm at a
  // corner. Summed over the hits, the corners went up by several centimetres.
  const int n = 11;
  const TriMesh patch = body_patch(n);
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "square", 2, 2, 0.1, 0.1, Vec3(-0.05, -0.05, 0.001));
  ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
  ContactSettings settings;
  settings.self_collision = false;
  settings.strain_limit_sweeps = 0;
  Contact contact(patch, model, settings);
  Points3 x_new = model.x, v_new = Points3::Zero(model.num_particles(), 3);
  contact.resolve(model, model.x, x_new, v_new, 0.01);
  const Points3 moved = x_new - model.x;
  const double delta = settings.thickness - 0.001;
  EXPECT_GT(moved.col(2).maxCoeff(), 0.1 * delta);                   // the patch did push
  EXPECT_LE(moved.rowwise().norm().maxCoeff(), std::sqrt(3.0) * delta + 1e-12);
  EXPECT_NEAR(moved.leftCols(2).norm(), 0.0, 1e-15);                 // along the body normal only
  // A pushed corner counts as resting on the body (for the integrator's contact filter).
  const Points3* resting = contact.resting_normals();
  ASSERT_NE(resting, nullptr);
  for (int p = 0; p < model.num_particles(); ++p) {
    if (moved(p, 2) > 0) {
      EXPECT_TRUE(resting->row(p).isApprox(Eigen::RowVector3d(0, 0, 1)));
    }
  }
}

TEST(Contact, EachBodyVertexIsOnePenaltyContact) {
  // The 2×2 cm body patch of the test above (121 vertices, normals +z) 1.5 mm under a 10×10 cm
  // cloth square of 18 triangles whose vertices are all off the patch. Every body vertex lies
  // within the thickness of the cloth triangle above it and of those around: it must become one
  // penalty contact (with the closest), not one per triangle, or its force changes by whole
  // multiples as the cloth slides over it.
  const int n = 11;
  const TriMesh patch = body_patch(n);
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "square", 4, 4, 0.1, 0.1, Vec3(-0.05, -0.05, 0.0015));
  ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
  ContactSettings settings;
  settings.self_collision = false;
  settings.strain_limit_sweeps = 0;
  settings.body_stiffness = 1e3;
  Contact contact(patch, model, settings);
  Points3 x_new = model.x, v_new = Points3::Zero(model.num_particles(), 3);
  contact.resolve(model, model.x, x_new, v_new, 0.01);
  EXPECT_TRUE(x_new == model.x);  // beyond body_floor: a penalty force, no projection
  const PenaltyContacts* pc = contact.penalty_contacts();
  ASSERT_NE(pc, nullptr);
  // Body vertices under cloth triangles (the cloth's edges over the patch's edges are contacts
  // of their own, one per cloth edge, on two particles).
  std::size_t triangle_contacts = 0;
  double depth = 0;
  for (const PenaltyContact& c : pc->list) {
    if (c.particle[2] < 0) continue;
    ++triangle_contacts;
    depth += c.depth;
  }
  EXPECT_EQ(triangle_contacts, static_cast<std::size_t>(n * n));
  EXPECT_NEAR(depth, n * n * (settings.thickness - 0.0015), 1e-12);
}

TEST(Contact, ClothEdgeAcrossABodyRidgeIsOnePenaltyContact) {
  // A roof: two 20 cm slopes (1 : 2) meeting at a ridge along x at z = 0. A cloth triangle's
  // edge crosses the ridge 1.5 mm above it; its corners are 15 mm off the slopes, and no body
  // vertex is near the triangle, so no vertex contact holds it. The edge pair must become one
  // penalty contact, on the edge's two particles at the crossing, depth 1 mm along +z; 3.5 mm
  // above the ridge, none.
  TriMesh roof;
  roof.V.resize(6, 3);
  roof.V << -0.1, 0, 0, 0.1, 0, 0, -0.1, -0.1, -0.05, 0.1, -0.1, -0.05, -0.1, 0.1, -0.05, 0.1, 0.1, -0.05;
  roof.F.resize(4, 3);
  roof.F << 0, 2, 3, 0, 3, 1, 0, 1, 5, 0, 5, 4;
  ContactSettings settings;
  settings.self_collision = false;
  settings.strain_limit_sweeps = 0;
  settings.body_stiffness = 1e3;
  auto contacts = [&](double above) {
    garments::GarmentMesh g;
    add_triangle(g, "t", Vec3(0.01, -0.03, above), Vec3(0.01, 0.03, above), Vec3(0.05, 0.0, 0.03));
    const ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
    Contact contact(roof, model, settings);
    Points3 x_new = model.x, v_new = Points3::Zero(model.num_particles(), 3);
    contact.resolve(model, model.x, x_new, v_new, 0.01);
    EXPECT_TRUE(x_new == model.x);  // beyond body_floor: a force, no projection
    return contact.penalty_contacts()->list;
  };
  const double above = 0.0015;
  const std::vector<PenaltyContact> near = contacts(above);
  ASSERT_EQ(near.size(), 1u);
  const PenaltyContact& c = near[0];
  EXPECT_EQ(c.particle[2], -1);
  EXPECT_EQ(std::min(c.particle[0], c.particle[1]), 0);
  EXPECT_EQ(std::max(c.particle[0], c.particle[1]), 1);
  EXPECT_NEAR(c.weight[0], 0.5, 1e-12);
  EXPECT_NEAR(c.weight[1], 0.5, 1e-12);
  EXPECT_TRUE(c.normal.isApprox(Vec3::UnitZ(), 1e-12));
  EXPECT_NEAR(c.depth, settings.thickness - above, 1e-12);
  EXPECT_TRUE(contacts(above + 0.002).empty());
}

TEST(Contact, ClothIgnoringABodyPartPassesThroughItOtherClothDoesNot) {
  // Two 2×2 cm squares 1 cm above the cube's +z face, side by side, both moving 2 cm down in
  // one step. The whole cube is the ignored part; square A's particles ignore it, B's do not.
  const double h = 0.1;
  const TriMesh body = cube(h);
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "a", 3, 3, 0.02, 0.02, Vec3(-0.03, -0.01, h + 0.01));
  cloth::test::add_grid_panel(g, "b", 3, 3, 0.02, 0.02, Vec3(0.01, -0.01, h + 0.01));
  ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
  ASSERT_EQ(model.num_particles(), 18);
  std::vector<char> ignores(18, 0);
  for (int p = 0; p < 9; ++p) ignores[p] = 1;  // square a
  ContactSettings settings;
  settings.self_collision = false;
  auto step = [&](Contact& contact) {
    Points3 x_new = model.x, v_new = Points3::Zero(18, 3);
    x_new.col(2).array() -= 0.02;
    v_new.col(2).setConstant(-2.0);
    contact.resolve(model, model.x, x_new, v_new, 0.01);
    return x_new;
  };
  Contact contact(body, model, settings);
  contact.ignore_body_part(std::vector<char>(8, 1), ignores);
  const Points3 x = step(contact);
  EXPECT_NEAR(x.topRows(9).col(2).maxCoeff(), h - 0.01, 1e-12);  // a went into the cube
  EXPECT_GE(x.bottomRows(9).col(2).minCoeff(), h);                 // b was stopped outside
  // Inside the cube, a is not pushed out; b is.
  ClothModel inside = model;
  inside.x.col(2).array() -= 0.015;
  EXPECT_EQ(contact.push_out(inside), 9);
  Points3 unmoved = model.x.topRows(9);
  unmoved.col(2).array() -= 0.015;
  EXPECT_TRUE(inside.x.topRows(9).isApprox(unmoved));
  // With the filter off, both are stopped.
  Contact off(body, model, settings);
  off.ignore_body_part(std::vector<char>(8, 1), ignores);
  off.set_body_part_ignored(false);
  EXPECT_GE(step(off).col(2).minCoeff(), h);
  // A part that is not the whole cube: only the +x face's vertices. Square a is over the
  // −x half of the +z face, whose triangles have a vertex off the part, so they still stop a.
  Contact partial(body, model, settings);
  std::vector<char> plus_x(8, 0);
  for (int i = 0; i < 8; ++i) plus_x[i] = (i & 1) != 0;
  partial.ignore_body_part(plus_x, ignores);
  EXPECT_GE(step(partial).col(2).minCoeff(), h);
  EXPECT_THROW(partial.ignore_body_part(std::vector<char>(7, 1), ignores), std::invalid_argument);
}

TEST(Contact, ClothOnABallComesToRestWithPenaltyContacts) {
  // bench/rest_on_body's first case: a 40 cm square of jersey (2.5 cm edges) falls 3 cm onto
  // a ball of radius 50 cm. With projected contacts it does not come to rest (22 % of it still
  // moving at frame 300): the two body tests disagree and the contacts come and go. As
  // penalty forces in the implicit solve, it rests on the cap, nothing inside the ball.
  const double radius = 0.5;
  const TriMesh ball = tryon::test::uv_sphere(48, 64, radius, Vec3::Zero());
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "square", 17, 17, 0.4, 0.4, Vec3(-0.2, 0.53, -0.2), Vec3::UnitX(), Vec3::UnitZ());
  ClothModel model = build_cloth_model(g, load_material("cotton_jersey"));
  ContactSettings cs;
  cs.friction = model.material.friction;
  cs.body_stiffness = 3e3;
  Contact contact(ball, model, cs);
  Simulator sim(std::move(model));
  sim.set_contact(&contact);
  const RunResult r = sim.run(300);
  EXPECT_TRUE(r.is_static) << "moving fraction " << r.moving_fraction;
  // Facets lie up to R (1 − cos(π/96)) = 0.27 mm inside the sphere; the layer is 2.5 mm.
  const Eigen::VectorXd from_centre = sim.model().x.rowwise().norm();
  EXPECT_GT(from_centre.minCoeff(), radius - 3e-4);
  EXPECT_LT(from_centre.minCoeff(), radius + cs.thickness);  // lies on the ball
}

TEST(Contact, ClothThroughItselfIsUntangledByContourMinimization) {
  // A flat 8×8 cm panel and a dome-shaped 6×6 cm panel whose cap pokes 5 mm up through it, far
  // from the body, at rest: a tangle the fail-safe cannot undo (it lets tangled cloth move, and
  // nothing moves it). The untangling stage moves it untangle_step (1.5 mm) a step along the
  // contour's minimization: the crossing is gone within 60 steps; without it, it stays. The
  // repulsion between tangled particles is off: it held the two sheets on the sides they
  // crossed to (with 0.5 mm steps, 58 of the 60 crossings left after 60 steps with it, none
  // after 14 without).
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "sheet", 9, 9, 0.08, 0.08, Vec3(-0.04, 1.0, -0.04), Vec3::UnitX(), Vec3::UnitZ());
  const int dome = cloth::test::add_grid_panel(g, "dome", 7, 7, 0.06, 0.06, Vec3(-0.0263, 1.0, -0.0279),
                                               Vec3::UnitX(), Vec3::UnitZ());
  for (int v = dome; v < g.num_vertices(); ++v) {
    const double x = g.V(v, 0), z = g.V(v, 2);
    g.V(v, 1) = 1.005 - 10 * (x * x + z * z);
  }
  auto run = [&](double untangle_step) {
    ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
    ContactSettings settings;
    settings.untangle_step = untangle_step;
    settings.strain_limit_sweeps = 0;  // the dome is stretched against its flat rest shape
    Contact contact(cube(0.1), model, settings);
    steps_until_untangled(model, contact, 60);
    return crossings(model);
  };
  ASSERT_GT(crossings(build_cloth_model(g, load_material("cotton_poplin"))), 10u);
  EXPECT_EQ(run(ContactSettings{}.untangle_step), 0u);
  EXPECT_EQ(run(5e-4), 0u);
  EXPECT_GT(run(0.0), 10u);
  // Without self-collision (the sewing) begin_frame looks for no crossing.
  ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
  ContactSettings off;
  off.self_collision = false;
  Contact contact(cube(0.1), model, off);
  contact.begin_frame(model, 0.0);
  EXPECT_EQ(contact.crossings(), 0);
}

TEST(Contact, CrossingsAreSearchedEveryFrameOnlyWhileClothMayHaveCrossed) {
  // The sheet and the dome of the test above: the dome 1 cm under the sheet (no crossing), and
  // poking 5 mm up through it (crossings). Cloth can cross itself only where the fail-safe did
  // not stop it: with self-collision off, or in a step it did not settle. Once a search found
  // no crossing and neither happened, the next one is crossing_check_interval frames later.
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "sheet", 9, 9, 0.08, 0.08, Vec3(-0.04, 1.0, -0.04), Vec3::UnitX(),
                              Vec3::UnitZ());
  const int dome = cloth::test::add_grid_panel(g, "dome", 7, 7, 0.06, 0.06, Vec3(-0.0263, 1.0, -0.0279),
                                               Vec3::UnitX(), Vec3::UnitZ());
  auto shaped = [&](double top) {
    for (int v = dome; v < g.num_vertices(); ++v) {
      const double x = g.V(v, 0), z = g.V(v, 2);
      g.V(v, 1) = top - 10 * (x * x + z * z);
    }
    return build_cloth_model(g, load_material("cotton_poplin"));
  };
  const ClothModel apart = shaped(0.99), through = shaped(1.005);
  ContactSettings settings;
  ASSERT_EQ(settings.crossing_check_interval, 8);
  {
    // Moved through each other behind the fail-safe's back: found at the next search.
    ClothModel model = apart;
    Contact contact(cube(0.1), model, settings);
    contact.begin_frame(model, 0.0);
    EXPECT_EQ(contact.crossings(), 0);
    model.x = through.x;
    for (int frame = 1; frame < settings.crossing_check_interval; ++frame) {
      contact.begin_frame(model, 0.0);
      EXPECT_EQ(contact.crossings(), 0) << frame;
    }
    contact.begin_frame(model, 0.0);
    EXPECT_GT(contact.crossings(), 10);
    contact.begin_frame(model, 0.0);  // and while any is left, at every frame
    EXPECT_GT(contact.crossings(), 10);
  }
  {
    // A step without self-collision: the next frame searches.
    ClothModel model = apart;
    Contact contact(cube(0.1), model, settings);
    contact.begin_frame(model, 0.0);
    EXPECT_EQ(contact.crossings(), 0);
    contact.set_self_collision(false);
    Points3 x_new = through.x, v_new = Points3::Zero(model.num_particles(), 3);
    contact.resolve(model, model.x, x_new, v_new, 0.01);
    model.x = x_new;
    contact.set_self_collision(true);
    contact.begin_frame(model, 0.0);
    EXPECT_GT(contact.crossings(), 10);
  }
  {
    // With an interval of 1, every frame searches.
    ClothModel model = apart;
    ContactSettings every = settings;
    every.crossing_check_interval = 1;
    Contact contact(cube(0.1), model, every);
    contact.begin_frame(model, 0.0);
    EXPECT_EQ(contact.crossings(), 0);
    model.x = through.x;
    contact.begin_frame(model, 0.0);
    EXPECT_GT(contact.crossings(), 10);
  }
}

TEST(Contact, ClothCutOffByAContourMovesBackThroughAsAWhole) {
  // A 6×6 cm strip slanting down through a flat 10×10 cm sheet, far from the body: its far end
  // hangs up to 1.2 cm under the sheet, cut off by the contour (which runs across the strip,
  // border to border). Contour minimization moves only the cloth at the contour, row by row;
  // with untangle_regions the whole end rises through the sheet.
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "sheet", 11, 11, 0.10, 0.10, Vec3(-0.05, 1.0, -0.05), Vec3::UnitX(), Vec3::UnitZ());
  const int strip = cloth::test::add_grid_panel(g, "strip", 13, 13, 0.06, 0.06, Vec3(-0.0287, 1.0, -0.0283),
                                                Vec3::UnitX(), Vec3::UnitZ());
  for (int v = strip; v < g.num_vertices(); ++v) g.V(v, 1) = 1.006 - 0.6 * g.V(v, 0);
  auto steps_to_untangle = [&](bool regions) {
    ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
    ContactSettings settings;
    settings.untangle_regions = regions;
    settings.strain_limit_sweeps = 0;  // the strip is stretched against its flat rest shape
    Contact contact(cube(0.1), model, settings);
    const int steps = steps_until_untangled(model, contact, 50);
    return crossings(model) == 0 ? steps : -1;
  };
  ASSERT_GT(crossings(build_cloth_model(g, load_material("cotton_poplin"))), 10u);
  // 1.2 cm at 1.5 mm a step: 8 steps, and a few while the contour moves (measured: 11).
  EXPECT_GT(steps_to_untangle(true), 0);
  EXPECT_LE(steps_to_untangle(true), 15);
  EXPECT_EQ(steps_to_untangle(false), -1);  // still tangled after 50 steps
}

TEST(Contact, ClothClearOfAnIgnoredPartCollidesWithItFromThenOn) {
  // Three 2×2 cm squares that all ignore the cube (the part): A and C lie 1 cm above its +z
  // face, B stands upright half inside it (its bottom row inside, its middle row on the face).
  // After the call A and C, clear of the cube, collide with it again; B, caught in it, still
  // ignores it. All move 2 cm down in one step: A and C are stopped outside, B goes on.
  const double h = 0.1;
  const TriMesh body = cube(h);
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "a", 3, 3, 0.02, 0.02, Vec3(-0.06, -0.01, h + 0.01));
  cloth::test::add_grid_panel(g, "b", 3, 3, 0.02, 0.02, Vec3(-0.01, -0.01, h - 0.01), Vec3::UnitX(), Vec3::UnitZ());
  cloth::test::add_grid_panel(g, "c", 3, 3, 0.02, 0.02, Vec3(0.04, -0.01, h + 0.01));
  ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
  ASSERT_EQ(model.num_particles(), 27);
  ContactSettings settings;
  settings.self_collision = false;
  Contact contact(body, model, settings);
  contact.ignore_body_part(std::vector<char>(8, 1), std::vector<char>(27, 1));
  EXPECT_EQ(contact.collide_with_part_where_clear(model), 18);  // A and C
  Points3 x_new = model.x, v_new = Points3::Zero(27, 3);
  x_new.col(2).array() -= 0.02;
  v_new.col(2).setConstant(-2.0);
  const Points3 b_moved = x_new.middleRows(9, 9);
  contact.resolve(model, model.x, x_new, v_new, 0.01);
  EXPECT_GE(x_new.topRows(9).col(2).minCoeff(), h);
  EXPECT_GE(x_new.bottomRows(9).col(2).minCoeff(), h);
  EXPECT_TRUE(x_new.middleRows(9, 9).isApprox(b_moved));
}

namespace {

// Two cubes of half-size 5 cm: the rest of the body at the origin, and the body part (its
// vertices flagged in `part`) centred at x = 15 cm.
TriMesh body_with_part(std::vector<char>& part) {
  const TriMesh rest = cube(0.05);
  TriMesh body;
  body.V.resize(16, 3);
  body.F.resize(24, 3);
  body.V << rest.V, rest.V.rowwise() + Vec3(0.15, 0, 0).transpose();
  body.F << rest.F, rest.F.array() + 8;
  part.assign(16, 0);
  std::fill(part.begin() + 8, part.end(), 1);
  return body;
}

}  // namespace

TEST(Contact, ClothInsideAnIgnoredPartMovesOutToTheRestOfTheBody) {
  // The body: two cubes of half-size 5 cm, the part centred at x = 15 cm, the rest at the
  // origin. Four 2x2 cm squares ignore the part, upright in planes x = const: A and D inside
  // the part (D flagged to keep ignoring it), B inside the rest, C outside both. A moves to
  // the rest's +x face, `thickness` off it, at rest; the others stay where they are. Then A,
  // clear of the part, collides with it, and so does C; B and D stay caught.
  const double h = 0.05;
  std::vector<char> part_vertex;
  const TriMesh body = body_with_part(part_vertex);
  garments::GarmentMesh g;
  for (const double x : {0.12, 0.0, 0.3, 0.17})
    cloth::test::add_grid_panel(g, "square", 3, 3, 0.02, 0.02, Vec3(x, -0.01, x == 0.17 ? 0.02 : -0.01),
                                Vec3::UnitY(), Vec3::UnitZ());
  ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
  ASSERT_EQ(model.num_particles(), 36);
  model.v.setConstant(0.3);
  ContactSettings settings;
  settings.self_collision = false;
  Contact contact(body, model, settings);
  contact.ignore_body_part(part_vertex, std::vector<char>(36, 1));
  std::vector<char> keep(36, 0);
  std::fill(keep.begin() + 27, keep.end(), 1);  // D
  const Points3 before = model.x;
  EXPECT_EQ(contact.move_out_of_part(model, keep), 9);
  for (int i = 0; i < 9; ++i) {
    EXPECT_NEAR(model.x(i, 0), h + settings.thickness, 1e-12);
    EXPECT_NEAR(model.x(i, 1), before(i, 1), 1e-12);
    EXPECT_NEAR(model.x(i, 2), before(i, 2), 1e-12);
    EXPECT_TRUE(model.v.row(i).isZero());
  }
  EXPECT_TRUE(model.x.bottomRows(27).isApprox(before.bottomRows(27)));
  EXPECT_TRUE((model.v.bottomRows(27).array() == 0.3).all());
  EXPECT_EQ(contact.collide_with_part_where_clear(model, keep), 18);  // A and C
  // Without flags to keep, D moves as well.
  ClothModel again = build_cloth_model(g, load_material("cotton_poplin"));
  Contact contact_again(body, again, settings);
  contact_again.ignore_body_part(part_vertex, std::vector<char>(36, 1));
  EXPECT_EQ(contact_again.move_out_of_part(again), 18);
}

TEST(Contact, ClothIsNotMovedOutOfAnIgnoredPartThroughOtherCloth) {
  // A 6x2 cm strip in the plane x = 12 cm runs out of the part's +y face: its first column
  // (y = 2.5 cm) inside the part, the others (5.5 and 8.5 cm) outside. A sheet stands at
  // x = 7.5 cm between the part and the rest of the body. Moved out to the rest's +x face, the
  // first column would pull the strip through the sheet: the move is taken back. Without the
  // sheet it is made.
  std::vector<char> part_vertex;
  const TriMesh body = body_with_part(part_vertex);
  for (const bool sheet : {true, false}) {
    garments::GarmentMesh g;
    cloth::test::add_grid_panel(g, "strip", 3, 3, 0.06, 0.02, Vec3(0.12, 0.025, -0.01), Vec3::UnitY(),
                                Vec3::UnitZ());
    if (sheet)
      cloth::test::add_grid_panel(g, "sheet", 5, 5, 0.08, 0.08, Vec3(0.075, -0.04, -0.04), Vec3::UnitY(),
                                  Vec3::UnitZ());
    ClothModel model = build_cloth_model(g, load_material("cotton_poplin"));
    ContactSettings settings;
    settings.self_collision = false;
    Contact contact(body, model, settings);
    contact.ignore_body_part(part_vertex, std::vector<char>(model.num_particles(), 1));
    const Points3 before = model.x;
    const int moved = contact.move_out_of_part(model);
    if (sheet) {
      EXPECT_EQ(moved, 0);
      EXPECT_TRUE(model.x.isApprox(before));
    } else {
      EXPECT_EQ(moved, 3);
      EXPECT_NEAR(model.x.col(0).minCoeff(), 0.05 + settings.thickness, 1e-12);
    }
  }
}
