#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "collision/geometry.hpp"
#include "collision/test_meshes.hpp"
#include "core/error.hpp"
#include "core/mesh_io.hpp"
#include "quality/quality.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::quality;

namespace {

// Closed outward cube [0,1]^3.
TriMesh cube() {
  TriMesh m = tryon::test::cube(0.5);
  m.V.array() += 0.5;
  return m;
}

// Generalised winding number by the solid-angle sum [Van Oosterom & Strackee 1983].
double winding_brute(const Vec3& p, const TriMesh& m) {
  double w = 0;
  for (int f = 0; f < m.num_triangles(); ++f) {
    const Vec3 a = m.V.row(m.F(f, 0)).transpose() - p, b = m.V.row(m.F(f, 1)).transpose() - p,
               c = m.V.row(m.F(f, 2)).transpose() - p;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    w += 2 * std::atan2(a.dot(b.cross(c)), la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb);
  }
  return w / (4 * std::numbers::pi);
}

// A flat n×n grid in the plane y = height over [x0, x0+size]×[z0, z0+size], rest = (x, z).
Cloth grid(int n, double size, double height, double x0 = -0.25, double z0 = -0.25) {
  Cloth c;
  c.V.resize(n * n, 3);
  c.rest.resize(n * n, 2);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double x = x0 + size * i / (n - 1), z = z0 + size * j / (n - 1);
      c.V.row(i * n + j) << x, height, z;
      c.rest.row(i * n + j) << x, z;
    }
  c.F.resize(2 * (n - 1) * (n - 1), 3);
  int f = 0;
  for (int i = 0; i + 1 < n; ++i)
    for (int j = 0; j + 1 < n; ++j) {
      const int a = i * n + j, b = a + 1, d = a + n, e = d + 1;
      c.F.row(f++) << a, b, e;
      c.F.row(f++) << a, e, d;
    }
  return c;
}

int body_intersections_brute(const Cloth& c, const TriMesh& body) {
  const Segments E = unique_edges(c.F);
  int count = 0;
  for (Eigen::Index e = 0; e < E.rows(); ++e) {
    bool hit = false;
    for (int f = 0; f < body.num_triangles() && !hit; ++f)
      hit = collision::segment_triangle_intersect(c.V.row(E(e, 0)), c.V.row(E(e, 1)), body.V.row(body.F(f, 0)),
                                                  body.V.row(body.F(f, 1)), body.V.row(body.F(f, 2)));
    count += hit;
  }
  return count;
}

// Edges meeting a triangle they share no vertex with (no seams), by brute force.
int self_intersections_brute(const Cloth& c) {
  const Segments E = unique_edges(c.F);
  int count = 0;
  for (Eigen::Index e = 0; e < E.rows(); ++e) {
    bool hit = false;
    for (Eigen::Index f = 0; f < c.F.rows() && !hit; ++f) {
      if ((c.F.row(f).array() == E(e, 0)).any() || (c.F.row(f).array() == E(e, 1)).any()) continue;
      hit = collision::segment_triangle_intersect(c.V.row(E(e, 0)), c.V.row(E(e, 1)), c.V.row(c.F(f, 0)),
                                                  c.V.row(c.F(f, 1)), c.V.row(c.F(f, 2)));
    }
    count += hit;
  }
  return count;
}

}  // namespace

TEST(Quality, WindingNumberMatchesSolidAngleSum) {
  const TriMesh box = cube();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.5, 1.5);
  Points3 P(500, 3);
  for (int i = 0; i < 500; ++i) P.row(i) << u(rng), u(rng), u(rng);
  const std::vector<double> w = winding_numbers(P, box.V, box.F);
  for (int i = 0; i < 500; ++i) EXPECT_NEAR(w[i], winding_brute(P.row(i), box), 1e-9) << P.row(i);
  // Points exactly on a face, an edge and a corner count as on the surface (½).
  Points3 S(3, 3);
  S << 0.5, 0.5, 0.0, 0.5, 0.0, 0.0, 1.0, 1.0, 1.0;
  for (double x : winding_numbers(S, box.V, box.F)) EXPECT_EQ(x, 0.5);
}

TEST(Quality, WindingNumberOnTheSampleBody) {
  const TriMesh body = read_mesh(test::assets() / "bodies/mean_all.obj");
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> ux(-0.3, 0.3), uy(0.2, 1.6), uz(-0.2, 0.2);
  Points3 P(200, 3);
  for (int i = 0; i < 200; ++i) P.row(i) << ux(rng), uy(rng), uz(rng);
  const std::vector<double> w = winding_numbers(P, body.V, body.F);
  int inside = 0;
  for (int i = 0; i < 200; ++i) {
    EXPECT_NEAR(w[i], winding_brute(P.row(i), body), 1e-6);
    inside += w[i] >= 0.5;
  }
  EXPECT_GT(inside, 10);  // the sampling box holds torso and legs
  EXPECT_LT(inside, 190);
}

TEST(Quality, CleanClothAboveTheBody) {
  Cloth c = grid(11, 1.5, 1.2, -0.25, -0.25);  // 20 cm above the cube
  c.previous = c.V;
  const Quality q = check(c, cube());
  EXPECT_EQ(q.body_intersections, 0);
  EXPECT_EQ(q.vertices_inside_body, 0);
  EXPECT_EQ(q.self_intersections, 0);
  EXPECT_NEAR(*q.strain_max, 0.0, 1e-12);
  EXPECT_EQ(*q.moving_fraction, 0.0);
  EXPECT_TRUE(q.clean());
}

TEST(Quality, ClothThroughTheBodyAgreesWithBruteForce) {
  Cloth c = grid(15, 1.5, 0.5, -0.25, -0.25);  // the plane y = 0.5 cuts the cube
  c.V(7 * 15 + 7, 1) += 0.013;                  // a little relief
  const TriMesh box = cube();
  const Quality q = check(c, box);
  EXPECT_EQ(q.body_intersections, body_intersections_brute(c, box));
  EXPECT_GT(q.body_intersections, 0);
  int inside = 0;
  for (int v = 0; v < c.V.rows(); ++v)
    inside += c.V(v, 0) > 0 && c.V(v, 0) < 1 && c.V(v, 2) > 0 && c.V(v, 2) < 1;
  EXPECT_EQ(q.vertices_inside_body, inside);
  EXPECT_FALSE(q.clean());
}

TEST(Quality, SelfIntersectionsSeamsStrainAndMotion) {
  // Two sheets crossing each other at right angles: the edges of each that pierce the other.
  Cloth a = grid(5, 1.0, 0.0, 0.0, 0.0);
  Cloth b = a;
  for (int v = 0; v < b.V.rows(); ++v) b.V.row(v) << b.V(v, 0), b.V(v, 2) - 0.5 + 1e-3, 0.5 + 1e-3;
  Cloth both;
  both.V.resize(50, 3);
  both.V << a.V, b.V;
  both.F.resize(64, 3);
  both.F << a.F, (b.F.array() + 25).matrix();
  Quality q = check(both, TriMesh{});
  EXPECT_EQ(q.self_intersections, self_intersections_brute(both));
  EXPECT_GT(q.self_intersections, 8);  // edges of each sheet piercing the other
  // Separate the sheets: no intersection.
  both.V.bottomRows(25).col(2).array() += 2.0;
  q = check(both, TriMesh{});
  EXPECT_EQ(q.self_intersections, 0);

  // Seams: two panels whose shared border vertices are duplicated and sewn; the triangles
  // meeting at the seam touch only at sewn vertices, which is no self intersection.
  Cloth left = grid(4, 0.3, 0.0, 0.0, 0.0), right = grid(4, 0.3, 0.0, 0.3, 0.0);
  Cloth sewn;
  sewn.V.resize(32, 3);
  sewn.V << left.V, right.V;
  sewn.F.resize(36, 3);
  sewn.F << left.F, (right.F.array() + 16).matrix();
  sewn.seam_pairs.resize(4, 2);
  for (int j = 0; j < 4; ++j) sewn.seam_pairs.row(j) << 12 + j, 16 + j;  // left's last row = right's first
  q = check(sewn, TriMesh{});
  EXPECT_EQ(q.self_intersections, 0);
  EXPECT_NEAR(q.seam_gap_max_m, 0.0, 1e-15);
  sewn.V(16, 1) += 0.004;
  EXPECT_NEAR(check(sewn, TriMesh{}).seam_gap_max_m, 0.004, 1e-12);

  // Strain: stretch x by 10 %.
  Cloth s = grid(6, 0.5, 0.0);
  s.previous = s.V;
  s.V.col(0) *= 1.1;
  q = check(s, TriMesh{});
  EXPECT_NEAR(*q.strain_max, 0.1, 1e-12);
  EXPECT_GT(*q.strain_mean, 0.0);
  // Motion: everything moved (x scaled by 1.1 moves all but the x = 0 column).
  EXPECT_GT(*q.moving_fraction, 0.5);
  EXPECT_FALSE(*q.is_static);
}

TEST(Quality, MismatchedInputIsAnInputError) {
  Cloth c = grid(3, 1.0, 2.0);
  c.rest.conservativeResize(4, 2);
  EXPECT_THROW(check(c, cube()), InputError);
  c = grid(3, 1.0, 2.0);
  c.seam_pairs.resize(1, 2);
  c.seam_pairs << 0, 99;
  EXPECT_THROW(check(c, cube()), InputError);
}

TEST(Quality, CrossingsAreGroupedByThePanelsTheyJoin) {
  // Panel 0 cuts the cube (through the body); panels 1 and 2, two sheets crossing each other at
  // right angles above it (through each other).
  const Cloth a = grid(15, 1.5, 0.5);
  const Cloth b = grid(5, 1.0, 3.0, 0.0, 0.0);
  Cloth c = b;
  for (int v = 0; v < c.V.rows(); ++v) c.V.row(v) << c.V(v, 0), 3.0 + c.V(v, 2) - 0.5 + 1e-3, 0.5 + 1e-3;
  Cloth all;
  const int na = static_cast<int>(a.V.rows()), nb = static_cast<int>(b.V.rows());
  all.V.resize(na + 2 * nb, 3);
  all.V << a.V, b.V, c.V;
  all.F.resize(a.F.rows() + 2 * b.F.rows(), 3);
  all.F << a.F, (b.F.array() + na).matrix(), (c.F.array() + na + nb).matrix();
  const TriMesh box = cube();
  EXPECT_TRUE(check(all, box).crossings.empty());  // no panels given: not grouped
  all.panel_of_vertex.assign(na, 0);
  all.panel_of_vertex.resize(na + nb, 1);
  all.panel_of_vertex.resize(na + 2 * nb, 2);
  const Quality q = check(all, box);
  ASSERT_EQ(q.crossings.size(), 2u);
  // Most edges first: the cut through the cube, then the two sheets.
  EXPECT_EQ(q.crossings[0].panel, 0);
  EXPECT_EQ(q.crossings[0].other, -1);
  EXPECT_EQ(q.crossings[0].edges, body_intersections_brute(a, box));
  EXPECT_EQ(q.crossings[0].edges, q.body_intersections);
  EXPECT_NEAR(q.crossings[0].at.y(), 0.5, 1e-12);  // every edge in the plane y = 0.5
  EXPECT_EQ(q.crossings[1].panel, 1);
  EXPECT_EQ(q.crossings[1].other, 2);
  EXPECT_EQ(q.crossings[1].edges, q.self_intersections);
  EXPECT_EQ(q.crossings[1].edges, self_intersections_brute(all) - self_intersections_brute(a));
  EXPECT_NEAR(q.crossings[1].at.z(), 0.5, 0.13);  // where the sheets meet, z = 0.5, give or take an edge
  EXPECT_NEAR(q.crossings[1].at.y(), 3.0, 0.13);
  // Without the body, the body's group is gone and the sheets' stays.
  const Quality apart = check(all, TriMesh{});
  ASSERT_EQ(apart.crossings.size(), 1u);
  EXPECT_EQ(apart.crossings[0].other, 2);
  all.panel_of_vertex.pop_back();
  EXPECT_THROW(check(all, box), InputError);
}
