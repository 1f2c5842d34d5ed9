#include <gtest/gtest.h>

#include <numbers>
#include <numeric>
#include <random>

#include "collision/normal_cone.hpp"
#include "collision/proximity.hpp"
#include "test_meshes.hpp"

using namespace tryon;
using namespace tryon::collision;

namespace {

// A strip of a helicoid: radius r in [1, 1.2], angle in [0, turns·2π], rising slowly. Every normal
// is within a few degrees of ±y, but after one turn the strip lies over itself (without touching).
TriMesh helix_strip(double turns, int segments) {
  TriMesh m;
  m.V.resize(2 * (segments + 1), 3);
  for (int i = 0; i <= segments; ++i) {
    const double th = turns * 2 * std::numbers::pi * i / segments;
    for (int k = 0; k < 2; ++k) {
      const double r = 1.0 + 0.2 * k;
      m.V.row(2 * i + k) << r * std::cos(th), 0.05 * th, r * std::sin(th);
    }
  }
  m.F.resize(2 * segments, 3);
  for (int i = 0; i < segments; ++i) {
    const int a = 2 * i, b = a + 1, c = a + 2, d = a + 3;
    m.F.row(2 * i) << a, c, b;
    m.F.row(2 * i + 1) << b, c, d;
  }
  return m;
}

std::vector<int> all(const TriMesh& m) {
  std::vector<int> t(m.F.rows());
  std::iota(t.begin(), t.end(), 0);
  return t;
}

}  // namespace

TEST(NormalCone, ContourTestRejectsOverlappingProjection) {
  for (double turns : {0.75, 1.25}) {
    const TriMesh m = helix_strip(turns, 90);
    const Bvh<Aabb> bvh(m.V, m.F);
    const auto cones = normal_cones(bvh, m.V, m.F);
    EXPECT_LT(cones[0].half_angle, 0.5 * std::numbers::pi) << turns;  // the cone test alone would cull
    const auto t = all(m);
    const bool simple = contour_is_simple(m.V, m.F, t.data(), static_cast<int>(t.size()), cones[0].axis);
    EXPECT_EQ(simple, turns < 1.0) << turns;
    const MeshTopology topo = MeshTopology::build(m.F, static_cast<int>(m.V.rows()));
    EXPECT_EQ(contour_is_simple(m.V, m.F, t.data(), static_cast<int>(t.size()), cones[0].axis, topo), simple);
  }
}

TEST(NormalCone, ContourNeedsOneConnectedLoop) {
  const TriMesh g = test::grid(6, 1.0, 0.0, 0.0, 1);
  auto t = all(g);
  const Vec3 up = Vec3::UnitY();
  EXPECT_TRUE(contour_is_simple(g.V, g.F, t.data(), static_cast<int>(t.size()), up));
  // two separate strips of the grid (rows 0 and 3): not connected
  std::vector<int> two;
  for (int j = 0; j < 12; ++j) {
    two.push_back(j);
    two.push_back(36 + j);
  }
  EXPECT_FALSE(contour_is_simple(g.V, g.F, two.data(), static_cast<int>(two.size()), up));
  // a ring (grid without its centre cells): two boundary loops
  std::vector<int> ring;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      if (!(i >= 2 && i <= 3 && j >= 2 && j <= 3)) {
        ring.push_back(2 * (i * 6 + j));
        ring.push_back(2 * (i * 6 + j) + 1);
      }
  EXPECT_FALSE(contour_is_simple(g.V, g.F, ring.data(), static_cast<int>(ring.size()), up));
  // the O(n) variant with the mesh topology gives the same answers, and can be called repeatedly
  const MeshTopology topo = MeshTopology::build(g.F, static_cast<int>(g.V.rows()));
  for (int rep = 0; rep < 2; ++rep) {
    EXPECT_TRUE(contour_is_simple(g.V, g.F, t.data(), static_cast<int>(t.size()), up, topo));
    EXPECT_FALSE(contour_is_simple(g.V, g.F, two.data(), static_cast<int>(two.size()), up, topo));
    EXPECT_FALSE(contour_is_simple(g.V, g.F, ring.data(), static_cast<int>(ring.size()), up, topo));
  }
}

TEST(NormalCone, ConesBoundEveryNormal) {
  TriMesh m = test::grid(12, 1.0, 0.0, 0.0, 1);
  for (int i = 0; i < m.V.rows(); ++i) m.V(i, 1) = 0.2 * std::sin(4 * m.V(i, 0)) * std::cos(3 * m.V(i, 2));
  const Bvh<Aabb> bvh(m.V, m.F, BvhConfig{2});
  const auto cones = normal_cones(bvh, m.V, m.F);
  for (std::size_t n = 0; n < cones.size(); ++n) {
    const auto& node = bvh.nodes()[n];
    for (int p = node.begin; p < node.end; ++p) {
      const int t = bvh.primitives()[p];
      const Vec3 a = m.V.row(m.F(t, 0)), b = m.V.row(m.F(t, 1)), c = m.V.row(m.F(t, 2));
      const Vec3 nrm = (b - a).cross(c - a).normalized();
      EXPECT_LE(std::acos(std::clamp(nrm.dot(cones[n].axis), -1.0, 1.0)), cones[n].half_angle + 1e-9);
    }
  }
}

TEST(NormalCone, SweptContourCatchesATouchBetweenTheEnds) {
  const test::SlidingCorner s = test::sliding_corner();
  const auto t = all(s.m0);
  const int n = static_cast<int>(t.size());
  const MeshTopology topo = MeshTopology::build(s.m0.F, static_cast<int>(s.m0.V.rows()));
  const auto normals = swept_normals(s.m0.V, s.m1.V, s.m0.F);
  Vec3 axis;
  ASSERT_TRUE(swept_cone_axis(normals, t.data(), n, axis));  // every normal stays near +z
  // The tests at the two ends alone would cull the region...
  EXPECT_TRUE(contour_is_simple(s.m0.V, s.m0.F, t.data(), n, axis, topo));
  EXPECT_TRUE(contour_is_simple(s.m1.V, s.m1.F, t.data(), n, axis, topo));
  // ...which the motion takes through itself.
  EXPECT_FALSE(swept_contour_is_simple(s.m0.V, s.m1.V, s.m0.F, t.data(), n, axis, topo));
  // Without the sliding corner's triangle, the rest does not move: culled.
  EXPECT_TRUE(swept_contour_is_simple(s.m0.V, s.m1.V, s.m0.F, t.data(), n - 1, axis, topo));
}

TEST(NormalCone, SweptConeHoldsEveryNormalOfTheMotion) {
  // A triangle whose normal is +z at both ends of its motion and -z halfway: a cone of the two
  // ends' normals would say "below 90°".
  Points3 V0(3, 3), V1(3, 3);
  V0 << 0, 0, 0, 1, 0, 0, 2, 1, 0;
  V1 << 0, 0, 0, -1, 2, 0, 0, -1, 0;
  Triangles F(1, 3);
  F << 0, 1, 2;
  auto normal_at = [&](double u) {
    const Points3 V = (1 - u) * V0 + u * V1;
    return Vec3((Vec3(V.row(1)) - Vec3(V.row(0))).cross(Vec3(V.row(2)) - Vec3(V.row(0))));
  };
  ASSERT_GT(normal_at(0).z(), 0);
  ASSERT_GT(normal_at(1).z(), 0);
  ASSERT_LT(normal_at(0.5).z(), 0);
  const int tri = 0;
  Vec3 axis;
  EXPECT_FALSE(swept_cone_axis(swept_normals(V0, V1, F), &tri, 1, axis));
  // Random motions of a wavy sheet: wherever an axis is found, every sampled normal of the
  // motion makes an angle below 90° with it.
  const TriMesh g = test::grid(8, 1.0, 0.0, 0.05, 3);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-0.15, 0.15);
  int found = 0;
  for (int trial = 0; trial < 20; ++trial) {
    Points3 W1 = g.V;
    for (Eigen::Index i = 0; i < W1.rows(); ++i)
      for (int k = 0; k < 3; ++k) W1(i, k) += U(rng);
    const auto normals = swept_normals(g.V, W1, g.F);
    for (int f = 0; f < g.F.rows(); f += 7) {
      std::vector<int> tris;
      for (int k = f; k < std::min<int>(f + 7, static_cast<int>(g.F.rows())); ++k) tris.push_back(k);
      if (!swept_cone_axis(normals, tris.data(), static_cast<int>(tris.size()), axis)) continue;
      ++found;
      for (int k : tris)
        for (int step = 0; step <= 64; ++step) {
          const double u = step / 64.0;
          const Points3 V = (1 - u) * g.V + u * W1;
          const Vec3 nrm = (Vec3(V.row(g.F(k, 1))) - Vec3(V.row(g.F(k, 0))))
                               .cross(Vec3(V.row(g.F(k, 2))) - Vec3(V.row(g.F(k, 0))));
          EXPECT_GT(nrm.dot(axis), 0) << "triangle " << k << " at t = " << u;
        }
    }
  }
  EXPECT_GT(found, 0);
}

TEST(NormalCone, NodeContoursGiveTheContourTestsAnswers) {
  // Every node of a wavy grid's tree and of a helix strip's: the stored loop, projected, answers
  // as the contour test that finds the loop itself, statically and over a motion.
  for (const TriMesh& m : {test::grid(10, 1.0, 0.0, 0.05, 2), helix_strip(1.25, 90)}) {
    const MeshTopology topo = MeshTopology::build(m.F, static_cast<int>(m.V.rows()));
    const Bvh<Aabb> bvh(m.V, m.F);
    const NodeContours contours(bvh, m.F, topo);
    ASSERT_EQ(contours.size(), bvh.nodes().size());
    Points3 V1 = m.V;
    for (Eigen::Index i = 0; i < V1.rows(); ++i) V1(i, 0) += 0.02 * std::sin(7 * m.V(i, 2));
    int loops = 0;
    for (int i = 0; i < static_cast<int>(bvh.nodes().size()); ++i) {
      const auto& nd = bvh.nodes()[i];
      const int* tris = bvh.primitives().data() + nd.begin;
      const int n = nd.end - nd.begin;
      if (n < 2) continue;
      const Contour* loop = contours.loop(i);
      loops += loop != nullptr;
      for (const Vec3& axis : {Vec3(Vec3::UnitY()), Vec3(0.3, 1, 0.2).normalized()}) {
        EXPECT_EQ(contour_is_simple(m.V, m.F, tris, n, axis, topo),
                  loop != nullptr && projected_contour_clear(m.V, nullptr, *loop, axis))
            << "node " << i;
        EXPECT_EQ(swept_contour_is_simple(m.V, V1, m.F, tris, n, axis, topo),
                  loop != nullptr && projected_contour_clear(m.V, &V1, *loop, axis))
            << "node " << i;
      }
    }
    EXPECT_GT(loops, 0);
  }
}

TEST(NormalCone, NodeContoursOfAnotherTreeAreRefused) {
  const TriMesh g = test::grid(6, 1.0, 0.0, 0.0, 1), h = test::grid(4, 1.0, 0.0, 0.0, 1);
  const MeshTopology tg = MeshTopology::build(g.F, static_cast<int>(g.V.rows()));
  const MeshTopology th = MeshTopology::build(h.F, static_cast<int>(h.V.rows()));
  const Bvh<Aabb> bg(g.V, g.F), bh(h.V, h.F);
  const NodeContours of_h(bh, h.F, th);
  EXPECT_THROW(self_proximity(ProximityMesh{g.V, g.F, tg, bg, &of_h}, 0.01), InputError);
  EXPECT_THROW(continuous_self_collisions({g.V, g.V, g.F, tg, bg, &of_h}), InputError);
}
