#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "collision/proximity.hpp"
#include "core/parallel.hpp"
#include "test_meshes.hpp"

using namespace tryon;
using namespace tryon::collision;

namespace {

void expect_same(const ProximityResult& got, const ProximityResult& ref) {
  ASSERT_EQ(got.vertex_triangle.size(), ref.vertex_triangle.size());
  ASSERT_EQ(got.triangle_vertex.size(), ref.triangle_vertex.size());
  ASSERT_EQ(got.edge_edge.size(), ref.edge_edge.size());
  for (std::size_t i = 0; i < got.vertex_triangle.size(); ++i) {
    const auto &g = got.vertex_triangle[i], &r = ref.vertex_triangle[i];
    EXPECT_EQ(g.vertex, r.vertex);
    EXPECT_EQ(g.triangle, r.triangle);
    EXPECT_NEAR(g.distance, r.distance, 1e-14);
    EXPECT_LT((g.normal - r.normal).norm(), 1e-12);
  }
  for (std::size_t i = 0; i < got.triangle_vertex.size(); ++i) {
    EXPECT_EQ(got.triangle_vertex[i].vertex, ref.triangle_vertex[i].vertex);
    EXPECT_EQ(got.triangle_vertex[i].triangle, ref.triangle_vertex[i].triangle);
  }
  for (std::size_t i = 0; i < got.edge_edge.size(); ++i) {
    const auto &g = got.edge_edge[i], &r = ref.edge_edge[i];
    EXPECT_EQ(g.edge_a, r.edge_a);
    EXPECT_EQ(g.edge_b, r.edge_b);
    EXPECT_NEAR(g.distance, r.distance, 1e-14);
    EXPECT_LT((g.point_a - r.point_a).norm() + (g.point_b - r.point_b).norm(), 1e-12);
  }
}

void check_hits(const ProximityResult& r, const Points3& VA, const Triangles& FA, const MeshTopology& EA,
                const Points3& VB, const Triangles& FB, const MeshTopology& EB, double d) {
  for (const auto& h : r.vertex_triangle) {
    const Vec3 p = VA.row(h.vertex);
    const Vec3 x = h.bary[0] * VB.row(FB(h.triangle, 0)) + h.bary[1] * VB.row(FB(h.triangle, 1)) +
                   h.bary[2] * VB.row(FB(h.triangle, 2));
    EXPECT_LT((x - h.point).norm(), 1e-12);
    EXPECT_NEAR((p - x).norm(), h.distance, 1e-12);
    EXPECT_LT(h.distance, d);
    if (h.distance > 0) {
      EXPECT_LT((p - x - h.distance * h.normal).norm(), 1e-12);
    }
  }
  for (const auto& h : r.edge_edge) {
    const Vec3 a = (1 - h.s) * VA.row(EA.edges(h.edge_a, 0)) + h.s * VA.row(EA.edges(h.edge_a, 1));
    const Vec3 b = (1 - h.t) * VB.row(EB.edges(h.edge_b, 0)) + h.t * VB.row(EB.edges(h.edge_b, 1));
    EXPECT_LT((a - h.point_a).norm() + (b - h.point_b).norm(), 1e-12);
    EXPECT_LT(h.distance, d);
  }
  (void)FA;
}

}  // namespace

TEST(Topology, OwnersAndEdges) {
  const TriMesh g = test::grid(3, 1.0, 0.0, 0.0, 1);
  const MeshTopology t = MeshTopology::build(g.F, static_cast<int>(g.V.rows()));
  EXPECT_EQ(t.edges.rows(), 3 * 3 * 3 + 3 + 3);  // 33 edges of a 3×3 grid with diagonals
  for (int i = 0; i < g.F.rows(); ++i)
    for (int k = 0; k < 3; ++k) {
      const int e = t.triangle_edges(i, k);
      const int a = g.F(i, k), b = g.F(i, (k + 1) % 3);
      EXPECT_EQ(t.edges(e, 0), std::min(a, b));
      EXPECT_EQ(t.edges(e, 1), std::max(a, b));
      EXPECT_LE(t.edge_owner[e], i);
      EXPECT_LE(t.vertex_owner[a], i);
    }
}

namespace {
// A waved sheet hovering over a sphere's top, at distances of a few centimetres.
struct SheetOverSphere {
  TriMesh body = test::uv_sphere(14, 20, 0.5, Vec3::Zero());
  TriMesh cloth = bent(test::grid(14, 0.8, 0.52, 0.015, 8));
  static TriMesh bent(TriMesh m) {
    for (int i = 0; i < m.V.rows(); ++i) m.V(i, 1) -= 0.5 * (m.V(i, 0) * m.V(i, 0) + m.V(i, 2) * m.V(i, 2));
    return m;
  }
};
}  // namespace

TEST(Proximity, ClothAgainstBodyMatchesBruteForce) {
  const SheetOverSphere scene;
  const TriMesh &body = scene.body, &cloth = scene.cloth;
  const MeshTopology tb = MeshTopology::build(body.F, static_cast<int>(body.V.rows()));
  const MeshTopology tc = MeshTopology::build(cloth.F, static_cast<int>(cloth.V.rows()));
  for (int leaf : {1, 4}) {
    const Bvh<Aabb> bb(body.V, body.F, BvhConfig{leaf}), bc(cloth.V, cloth.F, BvhConfig{leaf});
    for (double d : {0.0, 0.01, 0.05}) {
      const ProximityMesh C{cloth.V, cloth.F, tc, bc}, B{body.V, body.F, tb, bb};
      const ProximityResult got = proximity(C, B, d), ref = proximity_brute_force(C, B, d);
      if (d == 0.05) {
        EXPECT_GT(got.vertex_triangle.size() + got.edge_edge.size(), 50u);
      }
      expect_same(got, ref);
      check_hits(got, cloth.V, cloth.F, tc, body.V, body.F, tb, d);
    }
  }
}

TEST(Proximity, PerKindReachFindsExactlyTheBruteForcePairsOfEachKind) {
  // The reach of each kind is its own: each list is the brute-force list at that kind's
  // distance, and a kind with reach 0 is empty, however far the others look.
  const SheetOverSphere scene;
  const TriMesh &body = scene.body, &cloth = scene.cloth;
  const MeshTopology tb = MeshTopology::build(body.F, static_cast<int>(body.V.rows()));
  const MeshTopology tc = MeshTopology::build(cloth.F, static_cast<int>(cloth.V.rows()));
  const Bvh<Aabb> bb(body.V, body.F, BvhConfig{4}), bc(cloth.V, cloth.F, BvhConfig{4});
  const ProximityMesh C{cloth.V, cloth.F, tc, bc}, B{body.V, body.F, tb, bb};
  for (const ProximityReach reach : {ProximityReach{0.05, 0.01, 0}, ProximityReach{0.01, 0, 0.05},
                                     ProximityReach{0, 0.05, 0.01}, ProximityReach{0, 0, 0}}) {
    const ProximityResult got = proximity(C, B, reach);
    ProximityResult ref;
    ref.vertex_triangle = proximity_brute_force(C, B, reach.a_vertices).vertex_triangle;
    ref.triangle_vertex = proximity_brute_force(C, B, reach.b_vertices).triangle_vertex;
    ref.edge_edge = proximity_brute_force(C, B, reach.edges).edge_edge;
    expect_same(got, ref);
    if (reach.a_vertices == 0) {
      EXPECT_TRUE(got.vertex_triangle.empty());
    }
    if (reach.b_vertices == 0) {
      EXPECT_TRUE(got.triangle_vertex.empty());
    }
    if (reach.edges == 0) {
      EXPECT_TRUE(got.edge_edge.empty());
    }
    if (reach.a_vertices == 0.05) {
      EXPECT_GT(got.vertex_triangle.size(), 20u);
    }
    if (reach.b_vertices == 0.05) {
      EXPECT_GT(got.triangle_vertex.size(), 20u);
    }
    if (reach.edges == 0.05) {
      EXPECT_GT(got.edge_edge.size(), 20u);
    }
  }
  EXPECT_THROW(proximity(C, B, ProximityReach{0.01, -1, 0}), InputError);
}

TEST(Proximity, PerVertexReachFindsExactlyTheBruteForcePairs) {
  // Each cloth vertex looks 5 mm plus its own extra (0 to 4 cm, varying over the sheet) far; the
  // tree, refitted with the extras, culls by the 5 mm alone. Against the brute force with each
  // vertex's own reach, with 1 and 4 triangles a leaf. The body's vertices and the edges keep
  // their single reach.
  const SheetOverSphere scene;
  const TriMesh &body = scene.body, &cloth = scene.cloth;
  const MeshTopology tb = MeshTopology::build(body.F, static_cast<int>(body.V.rows()));
  const MeshTopology tc = MeshTopology::build(cloth.F, static_cast<int>(cloth.V.rows()));
  Eigen::VectorXd extra(cloth.V.rows());
  for (int v = 0; v < cloth.V.rows(); ++v) extra[v] = 0.02 * (1 + std::sin(37.0 * v));
  for (int leaf : {1, 4}) {
    const Bvh<Aabb> bb(body.V, body.F, BvhConfig{leaf});
    Bvh<Aabb> bc(cloth.V, cloth.F, BvhConfig{leaf});
    refit_inflated(bc, cloth.V, cloth.F, extra);
    const ProximityMesh C{cloth.V, cloth.F, tc, bc}, B{body.V, body.F, tb, bb};
    const ProximityReach reach{0.005, 0.01, 0.01, &extra};
    const ProximityResult got = proximity(C, B, reach), ref = proximity_brute_force(C, B, reach);
    expect_same(got, ref);
    // Between the reach without extras and the largest one: more than the first finds, fewer
    // than the second.
    const std::size_t nearest = proximity_brute_force(C, B, 0.005).vertex_triangle.size();
    const std::size_t farthest = proximity_brute_force(C, B, 0.045).vertex_triangle.size();
    EXPECT_GT(got.vertex_triangle.size(), nearest);
    EXPECT_LT(got.vertex_triangle.size(), farthest);
    for (const auto& h : got.vertex_triangle) EXPECT_LT(h.distance, 0.005 + extra[h.vertex]);
  }
  const Bvh<Aabb> bb(body.V, body.F), bc(cloth.V, cloth.F);
  const ProximityMesh C{cloth.V, cloth.F, tc, bc}, B{body.V, body.F, tb, bb};
  const Eigen::VectorXd too_short = Eigen::VectorXd::Zero(3), negative = -extra;
  EXPECT_THROW(proximity(C, B, ProximityReach{0.01, 0, 0, &too_short}), InputError);
  EXPECT_THROW(proximity(C, B, ProximityReach{0.01, 0, 0, &negative}), InputError);
  Bvh<Aabb> refitted = bc;
  EXPECT_THROW(refit_inflated(refitted, cloth.V, cloth.F, too_short), InputError);
}

TEST(Proximity, SelfMatchesBruteForceAndThreads) {
  const TriMesh m = test::crumpled(18, 4);
  const MeshTopology t = MeshTopology::build(m.F, static_cast<int>(m.V.rows()));
  Bvh<Aabb> b(m.V, m.F, BvhConfig{2});
  const ProximityMesh M{m.V, m.F, t, b};
  for (double d : {0.005, 0.03}) {
    set_num_threads(1);
    const ProximityResult one = self_proximity(M, d);
    set_num_threads(2);
    const ProximityResult two = self_proximity(M, d);
    set_num_threads(0);
    const ProximityResult ref = self_proximity_brute_force(M, d);
    EXPECT_GT(ref.vertex_triangle.size(), 0u);
    EXPECT_GT(ref.edge_edge.size(), 0u);
    expect_same(one, ref);
    expect_same(two, ref);
    EXPECT_TRUE(one.triangle_vertex.empty());
    for (const auto& h : one.edge_edge) EXPECT_LT(h.edge_a, h.edge_b);
    check_hits(one, m.V, m.F, t, m.V, m.F, t, d);
  }
}

TEST(Proximity, SelfAmongCandidatesMatchesBruteForceAfterSmallMoves) {
  // Candidates within d + 2δ on the crumpled sheet; every vertex then moves by less than δ, so
  // no pair's distance changes by 2δ or more: the candidates still closer than d are exactly the
  // brute-force pairs at the new positions, and the pairs that moved apart are dropped.
  const TriMesh m = test::crumpled(18, 4);
  const MeshTopology t = MeshTopology::build(m.F, static_cast<int>(m.V.rows()));
  const double d = 0.01, delta = 0.004;
  const Bvh<Aabb> b(m.V, m.F, BvhConfig{2});
  const ProximityResult candidates = self_proximity(ProximityMesh{m.V, m.F, t, b}, d + 2 * delta);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Points3 moved = m.V;
  for (int v = 0; v < moved.rows(); ++v) {
    Vec3 step(u(rng), u(rng), u(rng));
    if (step.norm() > 1) step.normalize();
    moved.row(v) += (0.99 * delta * step).transpose();
  }
  const Bvh<Aabb> bm(moved, m.F, BvhConfig{2});
  const ProximityMesh M{moved, m.F, t, bm};
  const ProximityResult got = self_proximity_among(M, candidates, d), ref = self_proximity_brute_force(M, d);
  EXPECT_GT(ref.vertex_triangle.size(), 0u);
  EXPECT_GT(ref.edge_edge.size(), 0u);
  EXPECT_LT(got.vertex_triangle.size(), candidates.vertex_triangle.size());
  expect_same(got, ref);
  check_hits(got, moved, m.F, t, moved, m.F, t, d);
  EXPECT_THROW(self_proximity_among(M, candidates, -1.0), InputError);
}

TEST(Proximity, RejectsNegativeDistance) {
  const TriMesh m = test::grid(2, 1.0, 0.0, 0.0, 1);
  const MeshTopology t = MeshTopology::build(m.F, static_cast<int>(m.V.rows()));
  const Bvh<Aabb> b(m.V, m.F);
  EXPECT_THROW(self_proximity({m.V, m.F, t, b}, -1.0), InputError);
}

namespace {

// A flat ring (radii 3 and 4 cm, normals +z) cut open by a gap of `gap` metres at mid radius:
// fat triangles (about 9 × 10 mm), whose two ends face each other across the gap.
TriMesh cut_ring(double gap, int segments) {
  const double r0 = 0.03, r1 = 0.04, span = 2 * std::acos(-1.0) - gap / 0.035;
  TriMesh m;
  m.V.resize(2 * (segments + 1), 3);
  for (int i = 0; i <= segments; ++i) {
    const double th = span * i / segments;
    m.V.row(2 * i) << r0 * std::cos(th), r0 * std::sin(th), 0;
    m.V.row(2 * i + 1) << r1 * std::cos(th), r1 * std::sin(th), 0;
  }
  m.F.resize(2 * segments, 3);
  for (int i = 0; i < segments; ++i) {
    const int a = 2 * i, b = a + 1, c = a + 2, e = a + 3;
    m.F.row(2 * i) << a, b, e;
    m.F.row(2 * i + 1) << a, e, c;
  }
  return m;
}

}  // namespace

TEST(Proximity, SelfCullingKeepsThePairsOfFlatRegions) {
  // The culling of flat regions (region_pairs_farther_than) finds exactly the brute-force pairs
  // where a flat region has some closer than d: across a narrow gap between fat triangles (its
  // contour is simple, but two contour edges are closer than d) and beside a sliver (a vertex
  // 1 mm from the far side of its neighbour, the contour's edges all far apart).
  const double d = 3e-3;
  auto check = [&](const TriMesh& m, const char* what) {
    const MeshTopology t = MeshTopology::build(m.F, static_cast<int>(m.V.rows()));
    const Bvh<Aabb> b(m.V, m.F);
    const ProximityMesh M{m.V, m.F, t, b};
    const ProximityResult ref = self_proximity_brute_force(M, d);
    EXPECT_GT(ref.vertex_triangle.size() + ref.edge_edge.size(), 0u) << what;
    SCOPED_TRACE(what);
    expect_same(self_proximity(M, d), ref);
    expect_same(self_proximity(M, d, false), ref);
    const NodeContours contours(b, m.F, t);
    expect_same(self_proximity(ProximityMesh{m.V, m.F, t, b, &contours}, d), ref);
  };
  check(cut_ring(2e-3, 24), "a ring cut open by 2 mm");
  TriMesh sliver;
  sliver.V.resize(4, 3);
  sliver.V << 0, 0, 0, 0.02, 0, 0, 0.01, 0.001, 0, 0.01, -0.01, 0;  // a, b, c 1 mm over ab, e below
  sliver.F.resize(2, 3);
  sliver.F << 0, 1, 2, 0, 3, 1;
  check(sliver, "a sliver beside a fat triangle");
  // A wavy sheet with a flap folded 5 mm over it (the pairs across the fold) at 1 cm.
  TriMesh folded = test::grid(16, 1.0, 0.0, 0.0, 1);
  for (Eigen::Index i = 0; i < folded.V.rows(); ++i) {
    const double x = folded.V(i, 0), z = folded.V(i, 2);
    folded.V(i, 1) = 0.02 * std::sin(9 * x) * std::cos(7 * z);
    if (x > 0.2) folded.V.row(i) << 0.4 - x, 0.005, z;
  }
  const MeshTopology t = MeshTopology::build(folded.F, static_cast<int>(folded.V.rows()));
  const Bvh<Aabb> b(folded.V, folded.F);
  const ProximityMesh M{folded.V, folded.F, t, b};
  const ProximityResult ref = self_proximity_brute_force(M, 0.01);
  EXPECT_GT(ref.vertex_triangle.size(), 10u);
  expect_same(self_proximity(M, 0.01), ref);
  const NodeContours contours(b, folded.F, t);
  expect_same(self_proximity(ProximityMesh{folded.V, folded.F, t, b, &contours}, 0.01), ref);
}

TEST(Proximity, RememberedLeafPairsFindTheSamePairsAsTheTraversal) {
  // A sheet sinking onto a sphere in steps of up to 4 mm (some leaves move past the 1 mm skin,
  // some do not), the reach growing and shrinking: at every step, proximity and continuous
  // collisions with a LeafPairCache find what they find without, impact times included.
  const SheetOverSphere scene;
  const TriMesh& body = scene.body;
  const MeshTopology tb = MeshTopology::build(body.F, static_cast<int>(body.V.rows()));
  const MeshTopology tc = MeshTopology::build(scene.cloth.F, static_cast<int>(scene.cloth.V.rows()));
  for (int leaf : {1, 4}) {
    const Bvh<Aabb> bb(body.V, body.F, BvhConfig{leaf});
    Bvh<Aabb> bc(scene.cloth.V, scene.cloth.F, BvhConfig{leaf}), swept(scene.cloth.V, scene.cloth.F, BvhConfig{leaf});
    LeafPairCache near_pairs(1e-3), swept_pairs(1e-3);
    Points3 x = scene.cloth.V;
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> U(0, 1);
    long long found = 0, impacts = 0;
    for (int step = 0; step < 12; ++step) {
      Points3 next = x;
      for (Eigen::Index i = 0; i < next.rows(); ++i) next(i, 1) -= (step % 3 == 2 ? 4e-3 : 5e-4) * U(rng);
      const Eigen::VectorXd extra = (next - x).rowwise().norm();
      refit_inflated(bc, next, scene.cloth.F, extra);
      const ProximityMesh C{next, scene.cloth.F, tc, bc}, B{body.V, body.F, tb, bb};
      const double d = step % 2 ? 0.02 : 0.01;
      const ProximityReach reach{d, 0.5 * d, 0.5 * d, &extra};
      const ProximityResult ref = proximity(C, B, reach);
      expect_same(proximity(C, B, reach, near_pairs), ref);
      found += static_cast<long long>(ref.vertex_triangle.size() + ref.edge_edge.size());
      refit_swept(swept, x, next, scene.cloth.F);
      const MovingMesh moving{x, next, scene.cloth.F, tc, swept}, still{body.V, body.V, body.F, tb, bb};
      const ContinuousResult ccd = continuous_collisions(moving, still);
      const ContinuousResult cached = continuous_collisions(moving, still, 1e-9, swept_pairs);
      EXPECT_EQ(test::impacts(ccd), test::impacts(cached));
      impacts += static_cast<long long>(ccd.vertex_face.size() + ccd.face_vertex.size() + ccd.edge_edge.size());
      x = next;
    }
    EXPECT_GT(found, 100) << leaf;
    EXPECT_GT(impacts, 0) << leaf;
    // Some leaves kept their pairs between steps, others looked theirs up again.
    const long long leaves = static_cast<long long>(near_pairs.leaves_.size());
    EXPECT_GT(near_pairs.lookups(), leaves) << leaf;
    EXPECT_LT(near_pairs.lookups(), 12 * leaves) << leaf;
  }
}
