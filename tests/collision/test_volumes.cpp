#include <gtest/gtest.h>

#include <random>

#include "collision/volumes.hpp"
#include "test_meshes.hpp"

using namespace tryon;
using namespace tryon::collision;

namespace {

Rigid random_rigid(std::mt19937& rng, double tscale) {
  std::uniform_real_distribution<double> U(-1, 1);
  Rigid T;
  T.R = Eigen::AngleAxisd(3 * U(rng), Vec3(U(rng), U(rng), U(rng)).normalized()).toRotationMatrix();
  T.t = tscale * Vec3(U(rng), U(rng), U(rng));
  return T;
}

// Points sampled inside a box (grid incl. corners), in the box's frame.
std::vector<Vec3> sample_obb(const Obb& o, int n) {
  std::vector<Vec3> pts;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j)
      for (int k = 0; k <= n; ++k) {
        const Vec3 u(2.0 * i / n - 1, 2.0 * j / n - 1, 2.0 * k / n - 1);
        pts.push_back(o.c + o.axes * u.cwiseProduct(o.e));
      }
  return pts;
}

}  // namespace

TEST(Volumes, FitsContainTheirTriangles) {
  const TriMesh m = test::random_soup(50, 0.2, 11);
  std::vector<int> all(50);
  for (int i = 0; i < 50; ++i) all[i] = i;
  const Aabb a = Aabb::fit(m.V, m.F, all.data(), 50);
  const Sphere s = Sphere::fit(m.V, m.F, all.data(), 50);
  const Obb o = Obb::fit(m.V, m.F, all.data(), 50);
  for (int i = 0; i < m.V.rows(); ++i) {
    EXPECT_TRUE(a.contains(Vec3(m.V.row(i))));
    EXPECT_TRUE(s.contains(Vec3(m.V.row(i)), 1e-12));
    EXPECT_TRUE(o.contains(Vec3(m.V.row(i)), 1e-12));
  }
  EXPECT_NEAR(std::abs(o.axes.determinant()), 1.0, 1e-12);
  // sphere centre = centre of the AABB (the papers' construction)
  EXPECT_LT((s.c - a.center()).norm(), 1e-15);
  // OBB of a flat set of triangles is flat
  const TriMesh g = test::grid(4, 1.0, 0.3, 0.0, 1);
  std::vector<int> gi(g.F.rows());
  for (int i = 0; i < g.F.rows(); ++i) gi[i] = i;
  const Obb og = Obb::fit(g.V, g.F, gi.data(), static_cast<int>(gi.size()));
  EXPECT_LT(og.e.minCoeff(), 1e-11);  // flat up to the fit's 1e-12 rounding slack
  // zero-area input does not break the fit
  TriMesh z;
  z.V.resize(3, 3);
  z.V << 0, 0, 0, 1, 1, 1, 2, 2, 2;
  z.F.resize(1, 3);
  z.F << 0, 1, 2;
  const int zero = 0;
  const Obb oz = Obb::fit(z.V, z.F, &zero, 1);
  EXPECT_TRUE(oz.axes.allFinite());
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(oz.contains(Vec3(z.V.row(i)), 1e-12));
}

TEST(Volumes, AabbOverlapIsExactIncludingTouching) {
  const Aabb a{Vec3(0, 0, 0), Vec3(1, 1, 1)};
  EXPECT_TRUE(overlap(a, Aabb{Vec3(1, 0, 0), Vec3(2, 1, 1)}));   // shared face
  EXPECT_TRUE(overlap(a, Aabb{Vec3(1, 1, 1), Vec3(2, 2, 2)}));   // shared corner
  EXPECT_FALSE(overlap(a, Aabb{Vec3(1 + 1e-12, 0, 0), Vec3(2, 1, 1)}));
  EXPECT_TRUE(overlap(a, Aabb{Vec3(1.5, 0, 0), Vec3(2, 1, 1)}, 0.5));  // inflated
  EXPECT_FALSE(overlap(a, Aabb{Vec3(1.5, 0, 0), Vec3(2, 1, 1)}, 0.49));
  const Aabb flat{Vec3(0.5, 0.5, 1), Vec3(0.7, 0.7, 1)};  // degenerate box on a's face
  EXPECT_TRUE(overlap(a, flat));
}

TEST(Volumes, SphereOverlapTouching) {
  const Sphere a{Vec3(0, 0, 0), 1.0}, b{Vec3(3, 0, 0), 2.0}, c{Vec3(3 + 1e-9, 0, 0), 2.0};
  EXPECT_TRUE(overlap(a, b, Pose{}));
  EXPECT_FALSE(overlap(a, c, Pose{}));
  Rigid T;
  T.t = Vec3(-1e-9, 0, 0);
  EXPECT_TRUE(overlap(a, c, Pose(T)));
}

TEST(Volumes, ObbSeparatingAxesAgainstSampling) {
  // Random boxes under random poses: when a sampled point of the moved b lies inside a, the test
  // must say overlap; when the test says disjoint, no sampled point may be inside.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> U(0.05, 0.5);
  int overlapping = 0, separated = 0;
  for (int it = 0; it < 2000; ++it) {
    Obb a, b;
    a.axes = random_rigid(rng, 0).R;
    b.axes = random_rigid(rng, 0).R;
    a.e = Vec3(U(rng), U(rng), U(rng));
    b.e = Vec3(U(rng), U(rng), U(rng));
    a.c = Vec3::Zero();
    b.c = Vec3(U(rng), U(rng), U(rng));
    const Rigid T = random_rigid(rng, 0.8);
    const bool ov = overlap(a, b, Pose(T));
    bool sampled = false;
    for (const Vec3& p : sample_obb(b, 8))
      if (a.contains(T.apply(p))) {
        sampled = true;
        break;
      }
    if (sampled) {
      EXPECT_TRUE(ov) << it;
    }
    // the same test with b moved explicitly must agree
    Obb bw = b;
    bw.axes = T.R * b.axes;
    bw.c = T.apply(b.c);
    EXPECT_EQ(ov, overlap(a, bw, Pose{})) << it;
    overlapping += sampled;
    separated += !ov;
  }
  EXPECT_GT(overlapping, 200);
  EXPECT_GT(separated, 200);
}

TEST(Volumes, ObbEdgeEdgeAxisSeparates) {
  // Two unit cubes turned 45° about different axes, edge against edge: only a cross-product axis
  // separates them.
  Obb a, b;
  a.e = b.e = Vec3(0.5, 0.5, 0.5);
  a.axes = Eigen::AngleAxisd(M_PI / 4, Vec3::UnitZ()).toRotationMatrix();
  b.axes = Eigen::AngleAxisd(M_PI / 4, Vec3::UnitX()).toRotationMatrix();
  const double reach = 0.5 * std::sqrt(2.0);
  for (double gap : {1e-6, -1e-6}) {
    // a's extreme along +y is its edge along z at y = reach; b's extreme along -y is its edge
    // along x at y = b.c.y - reach. The edges are orthogonal; y = z × x is the separating axis.
    a.c = Vec3::Zero();
    b.c = Vec3(0, 2 * reach + gap, 0);
    const bool ov = overlap(a, b, Pose{});
    EXPECT_EQ(ov, gap < 0) << gap;
  }
}

TEST(Volumes, SphereObbHybridLevels) {
  SphereObb a, b;
  a.sphere = {Vec3::Zero(), 1.0};
  a.obb.e = Vec3(1, 1, 1);
  b.sphere = {Vec3(1.9, 1.9, 0), 1.0};  // spheres do not reach (|c| = 2.69 > 2)
  b.obb.c = Vec3(1.9, 1.9, 0);
  b.obb.e = Vec3(1, 1, 1);
  const Pose I;
  EXPECT_FALSE(overlap_levels(a, 0, b, 0, I, 2));  // sphere–sphere
  EXPECT_TRUE(overlap_levels(a, 5, b, 5, I, 2));   // OBB–OBB: the boxes overlap
  EXPECT_TRUE(overlap_levels(a, 0, b, 5, I, 2));   // sphere–OBB, box axes only (conservative)
  // rigid pose: sphere levels use only the centre
  Rigid T;
  T.R = Eigen::AngleAxisd(1.0, Vec3::UnitY()).toRotationMatrix();
  T.t = Vec3(10, 0, 0);
  EXPECT_FALSE(overlap_levels(a, 0, b, 0, Pose(T), 2));
  EXPECT_FALSE(overlap_levels(a, 5, b, 5, Pose(T), 2));
}

TEST(Volumes, RigidPoseAabbIsConservative) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> U(0, 1);
  for (int it = 0; it < 1000; ++it) {
    Aabb a{Vec3(0, 0, 0), Vec3(U(rng), U(rng), U(rng))};
    Aabb b{Vec3(U(rng), U(rng), U(rng)) * 0.5, Vec3::Zero()};
    b.hi = b.lo + Vec3(U(rng), U(rng), U(rng)) * 0.5;
    const Rigid T = random_rigid(rng, 1.0);
    const bool ov = overlap(a, b, Pose(T));
    for (int i = 0; i <= 6 && !ov; ++i)
      for (int j = 0; j <= 6; ++j)
        for (int k = 0; k <= 6; ++k) {
          const Vec3 p = b.lo + (b.hi - b.lo).cwiseProduct(Vec3(i, j, k) / 6.0);
          ASSERT_FALSE(a.contains(T.apply(p))) << "missed overlap, case " << it;
        }
  }
}
