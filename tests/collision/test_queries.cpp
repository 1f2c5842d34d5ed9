#include <gtest/gtest.h>

#include <random>

#include "collision/queries.hpp"
#include "core/mesh_io.hpp"
#include "core/parallel.hpp"
#include "test_data.hpp"
#include "test_meshes.hpp"

using namespace tryon;
using namespace tryon::collision;

namespace tryon::collision {
inline void PrintTo(const TrianglePair& p, std::ostream* os) { *os << "(" << p.a << "," << p.b << ")"; }
}  // namespace tryon::collision

namespace {

struct ThreadGuard {
  ~ThreadGuard() { set_num_threads(0); }
};

Rigid pose(double angle, const Vec3& axis, const Vec3& t) {
  Rigid T;
  T.R = Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
  T.t = t;
  return T;
}

// Triangles of a mesh inside a box (a small real-mesh patch for brute-force checks).
TriMesh crop(const TriMesh& m, const Vec3& lo, const Vec3& hi) {
  std::vector<int> keep;
  for (int i = 0; i < m.F.rows(); ++i) {
    const Vec3 c = (m.V.row(m.F(i, 0)) + m.V.row(m.F(i, 1)) + m.V.row(m.F(i, 2))) / 3.0;
    if ((c.array() >= lo.array()).all() && (c.array() <= hi.array()).all()) keep.push_back(i);
  }
  TriMesh out;
  out.V = m.V;
  out.F.resize(static_cast<int>(keep.size()), 3);
  for (int i = 0; i < static_cast<int>(keep.size()); ++i) out.F.row(i) = m.F.row(keep[i]);
  return out;
}

}  // namespace

template <class BV>
class QueriesTyped : public ::testing::Test {};
using Volumes = ::testing::Types<Aabb, Sphere, Obb, SphereObb, SAabb>;
TYPED_TEST_SUITE(QueriesTyped, Volumes);

TYPED_TEST(QueriesTyped, MeshMeshMatchesBruteForceOnRandomSoups) {
  const TriMesh a = test::random_soup(400, 0.08, 31), b = test::random_soup(300, 0.08, 32);
  for (int leaf : {1, 3}) {
    const BvhConfig cfg{leaf, SplitRule::Midpoint, 3};
    const Bvh<TypeParam> ta(a.V, a.F, cfg), tb(b.V, b.F, cfg);
    for (const Rigid& T : {Rigid{}, pose(0.6, Vec3(1, 2, 0), Vec3(0.2, -0.1, 0.3)),
                           pose(2.0, Vec3(0, 1, 1), Vec3(1.5, 0.5, 0.5)), pose(0.1, Vec3(1, 0, 0), Vec3(5, 0, 0))}) {
      const auto ref = intersecting_pairs_brute_force(a.V, a.F, b.V, b.F, T);
      const auto got = intersecting_pairs<TypeParam>({a.V, a.F, ta}, {b.V, b.F, tb}, T);
      EXPECT_EQ(got, ref);
      EXPECT_EQ(first_contact<TypeParam>({a.V, a.F, ta}, {b.V, b.F, tb}, T), !ref.empty());
    }
  }
}

TYPED_TEST(QueriesTyped, SpheresTouchingAndCoplanarContacts) {
  // Two UV spheres touching at the poles (a shared point) and a flat grid lying on a sphere pole.
  const TriMesh s = test::uv_sphere(12, 16, 0.5, Vec3::Zero());
  const Bvh<TypeParam> ts(s.V, s.F);
  const Rigid up = pose(0.0, Vec3::UnitX(), Vec3(0, 1.0, 0));  // north pole meets south pole
  const auto ref = intersecting_pairs_brute_force(s.V, s.F, s.V, s.F, up);
  EXPECT_FALSE(ref.empty());
  EXPECT_EQ((intersecting_pairs<TypeParam>({s.V, s.F, ts}, {s.V, s.F, ts}, up)), ref);
  const TriMesh g = test::grid(8, 0.4, 0.5, 0.0, 1);  // plane y = 0.5 through the pole vertex
  const Bvh<TypeParam> tg(g.V, g.F);
  const auto ref2 = intersecting_pairs_brute_force(s.V, s.F, g.V, g.F);
  EXPECT_FALSE(ref2.empty());
  EXPECT_EQ((intersecting_pairs<TypeParam>({s.V, s.F, ts}, {g.V, g.F, tg})), ref2);
}

TYPED_TEST(QueriesTyped, SelfIntersectionsMatchBruteForceWithAndWithoutCones) {
  const TriMesh m = test::crumpled(24, 5);
  const Bvh<TypeParam> t(m.V, m.F);
  const auto ref = self_intersections_brute_force(m.V, m.F);
  EXPECT_FALSE(ref.empty());
  const SelfResult plain = self_intersections<TypeParam>({m.V, m.F, t}, {false});
  const SelfResult cones = self_intersections<TypeParam>({m.V, m.F, t}, {true});
  const MeshTopology topo = MeshTopology::build(m.F, static_cast<int>(m.V.rows()));
  const SelfResult cones_topo = self_intersections<TypeParam>({m.V, m.F, t}, {true, &topo});
  EXPECT_EQ(plain.pairs, ref);
  EXPECT_EQ(cones.pairs, ref);
  EXPECT_EQ(cones_topo.pairs, ref);
  EXPECT_EQ(cones_topo.culled_nodes, cones.culled_nodes);
  EXPECT_EQ(plain.culled_nodes, 0);
}

TEST(Queries, NormalConesCullFlatAndSmoothRegions) {
  // A gently waved sheet: no self intersections, the cones cull almost everything.
  TriMesh m = test::grid(40, 1.0, 0.0, 0.0, 1);
  for (int i = 0; i < m.V.rows(); ++i) m.V(i, 1) = 0.05 * std::sin(6 * m.V(i, 0)) * std::cos(5 * m.V(i, 2));
  const Bvh<Aabb> t(m.V, m.F);
  const SelfResult r = self_intersections<Aabb>({m.V, m.F, t}, {true});
  EXPECT_TRUE(r.pairs.empty());
  EXPECT_GE(r.culled_nodes, 1);
  EXPECT_EQ(r.culled_triangles, m.F.rows());  // the root itself passes: one cone, one simple contour
  EXPECT_TRUE(self_intersections<Aabb>({m.V, m.F, t}, {false}).pairs.empty());
  // A sphere is closed: the root's cone is > 90°, patches of it are culled, and the answer is empty.
  const TriMesh s = test::uv_sphere(16, 24, 0.5, Vec3::Zero());
  const Bvh<Aabb> ts(s.V, s.F, BvhConfig{2});
  const SelfResult rs = self_intersections<Aabb>({s.V, s.F, ts}, {true});
  const MeshTopology st = MeshTopology::build(s.F, static_cast<int>(s.V.rows()));
  EXPECT_EQ(self_intersections<Aabb>({s.V, s.F, ts}, {true, &st}).culled_triangles, rs.culled_triangles);
  EXPECT_TRUE(rs.pairs.empty());
  EXPECT_GE(rs.culled_nodes, 2);
  EXPECT_GT(rs.culled_triangles, s.F.rows() / 2);  // most of the sphere is covered by culled patches
  // A sheet folded flat onto itself (a fan of two layers) must not be culled wrongly.
  TriMesh fold = test::grid(10, 1.0, 0.0, 0.0, 1);
  for (int i = 0; i < fold.V.rows(); ++i)
    if (fold.V(i, 0) > 0) {
      fold.V(i, 1) = 0.3 * fold.V(i, 0);
      fold.V(i, 0) = -fold.V(i, 0) * 0.9;  // folded back above the left half, crossing it with a slope
      fold.V(i, 1) -= 0.05;
    }
  const Bvh<Aabb> tf(fold.V, fold.F);
  EXPECT_EQ(self_intersections<Aabb>({fold.V, fold.F, tf}, {true}).pairs,
            self_intersections_brute_force(fold.V, fold.F));
}

TEST(Queries, IdenticalWithOneAndTwoThreads) {
  ThreadGuard guard;
  const TriMesh a = test::random_soup(3000, 0.05, 41), b = test::random_soup(3000, 0.05, 42);
  const TriMesh c = test::crumpled(40, 2);
  const Rigid T = pose(0.4, Vec3(1, 1, 0), Vec3(0.05, 0, 0));
  const Bvh<SAabb> sa(a.V, a.F), sb(b.V, b.F);
  const Bvh<Obb> oa(a.V, a.F), ob(b.V, b.F);
  const Bvh<Aabb> cc(c.V, c.F);
  set_num_threads(1);
  const auto p1 = intersecting_pairs<SAabb>({a.V, a.F, sa}, {b.V, b.F, sb}, T);
  const auto q1 = intersecting_pairs<Obb>({a.V, a.F, oa}, {b.V, b.F, ob}, T);
  const auto s1 = self_intersections<Aabb>({c.V, c.F, cc});
  set_num_threads(2);
  const auto p2 = intersecting_pairs<SAabb>({a.V, a.F, sa}, {b.V, b.F, sb}, T);
  const auto q2 = intersecting_pairs<Obb>({a.V, a.F, oa}, {b.V, b.F, ob}, T);
  const auto s2 = self_intersections<Aabb>({c.V, c.F, cc});
  EXPECT_GT(p1.size(), 100u);
  EXPECT_EQ(p1, p2);
  EXPECT_EQ(q1, q2);
  EXPECT_EQ(p1, q1);
  EXPECT_EQ(s1.pairs, s2.pairs);
  EXPECT_EQ(s1.culled_nodes, s2.culled_nodes);
  EXPECT_EQ(s1.culled_triangles, s2.culled_triangles);
}

TEST(Queries, RealBodyPatchesMatchBruteForce) {
  TRYON_REQUIRE_SHARED("avatars/makehuman/derived/makehuman_male.obj");
  TriMesh body = read_mesh(test::shared_data_path("avatars/makehuman/derived/makehuman_male.obj"));
  weld_vertices(body, 1e-9);
  // The head and shoulders (a few thousand triangles) against itself moved and turned.
  const Bounds3 bb = bounds(body.V);
  const TriMesh head = crop(body, Vec3(bb.min.x(), bb.max.y() - 0.35, bb.min.z()), bb.max);
  ASSERT_GT(head.F.rows(), 500);
  const Rigid T = pose(0.5, Vec3(0, 1, 0.3), Vec3(0.08, -0.05, 0.03));
  const auto ref = intersecting_pairs_brute_force(head.V, head.F, head.V, head.F, T);
  EXPECT_GT(ref.size(), 20u);
  const Bvh<Obb> to(head.V, head.F);
  const Bvh<SphereObb> th(head.V, head.F);
  const Bvh<Aabb> ta(head.V, head.F, BvhConfig{1, SplitRule::Sah});
  EXPECT_EQ((intersecting_pairs<Obb>({head.V, head.F, to}, {head.V, head.F, to}, T)), ref);
  EXPECT_EQ((intersecting_pairs<SphereObb>({head.V, head.F, th}, {head.V, head.F, th}, T)), ref);
  EXPECT_EQ((intersecting_pairs<Aabb>({head.V, head.F, ta}, {head.V, head.F, ta}, T)), ref);
  // self intersections of the closed body patch: compare with brute force
  const auto sref = self_intersections_brute_force(head.V, head.F);
  EXPECT_EQ(self_intersections<Aabb>({head.V, head.F, ta}).pairs, sref);
}
