#include <gtest/gtest.h>

#include <random>

#include "collision/ccd.hpp"
#include "collision/geometry.hpp"
#include "collision/proximity.hpp"
#include "core/parallel.hpp"
#include "test_meshes.hpp"

using namespace tryon;
using namespace tryon::collision;

namespace {

Vec3 lerp(const Vec3& a, const Vec3& b, double t) { return a + t * (b - a); }

// Fine time sampling reference for a vertex crossing a moving triangle: the first sample interval
// where the vertex changes side of the plane at a point well inside the triangle (margin on the
// barycentric weights), or -1. `ambiguous` is set when a crossing is near the triangle boundary.
double sampled_vf(const Vec3 x0[4], const Vec3 x1[4], int n, bool& ambiguous) {
  ambiguous = false;
  auto side = [&](double t) {
    const Vec3 p = lerp(x0[0], x1[0], t), a = lerp(x0[1], x1[1], t), b = lerp(x0[2], x1[2], t),
               c = lerp(x0[3], x1[3], t);
    return orient3d(a, b, c, p);
  };
  double prev = side(0);
  for (int k = 1; k <= n; ++k) {
    const double t = double(k) / n, cur = side(t);
    if ((prev > 0) != (cur > 0)) {
      const double tc = t - 1.0 / n * cur / (cur - prev);  // linear interpolation of the crossing
      const Vec3 p = lerp(x0[0], x1[0], tc), a = lerp(x0[1], x1[1], tc), b = lerp(x0[2], x1[2], tc),
                 c = lerp(x0[3], x1[3], tc);
      Vec3 w;
      closest_point_triangle(p, a, b, c, &w);
      if (w.minCoeff() > 1e-3) return tc;
      if (w.minCoeff() > -1e-3) ambiguous = true;
    }
    prev = cur;
  }
  return -1;
}

}  // namespace

TEST(Ccd, CubicCandidatesBracketRoots) {
  // (t − 0.2)(t − 0.5)(t − 0.9) and a double root (t − 0.5)² (t + 3)
  auto c = cubic_candidates(-0.09, 0.73, -1.6, 1.0, 1e-14);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_NEAR(c[0], 0.2, 1e-12);
  EXPECT_NEAR(c[1], 0.5, 1e-12);
  EXPECT_NEAR(c[2], 0.9, 1e-12);
  // (t−0.5)²(t+3) = t³ + 2t² − 2.75t + 0.75: touches zero at 0.5 without a sign change
  c = cubic_candidates(0.75, -2.75, 2.0, 1.0, 1e-12);
  ASSERT_FALSE(c.empty());
  EXPECT_NEAR(c.front(), 0.5, 1e-6);
  EXPECT_TRUE(cubic_candidates(1, 0, 0, 0, 1e-12).empty());
}

TEST(Ccd, VertexFaceAgainstFineSampling) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> U(-1, 1);
  int hits = 0, checked = 0;
  for (int it = 0; it < 3000; ++it) {
    Vec3 x0[4], x1[4];
    for (int k = 0; k < 4; ++k) {
      x0[k] = Vec3(U(rng), U(rng), U(rng));
      x1[k] = x0[k] + 1.5 * Vec3(U(rng), U(rng), U(rng));
    }
    bool ambiguous;
    const double ts = sampled_vf(x0, x1, 4000, ambiguous);
    const Impact im = vertex_face_ccd(x0[0], x0[1], x0[2], x0[3], x1[0], x1[1], x1[2], x1[3], 1e-9);
    if (im.hit) {  // a reported impact is a real contact
      const Vec3 p = lerp(x0[0], x1[0], im.toi);
      const Vec3 x = closest_point_triangle(p, lerp(x0[1], x1[1], im.toi), lerp(x0[2], x1[2], im.toi),
                                            lerp(x0[3], x1[3], im.toi), nullptr);
      EXPECT_LE((p - x).norm(), 1e-9);
    }
    ++checked;
    if (ts >= 0) {
      ++hits;
      ASSERT_TRUE(im.hit) << it;
      EXPECT_LE(im.toi, ts + 1e-3) << it;  // never later than the first sampled crossing
    } else if (!ambiguous) {
      EXPECT_FALSE(im.hit) << it;  // no crossing anywhere near the triangle: no impact
    }
  }
  EXPECT_GT(hits, 100);
  EXPECT_GT(checked, 2700);
}

TEST(Ccd, VertexFaceCoplanarMotion) {
  // Triangle in z = 0; the vertex slides in the same plane into the triangle: the impact is when it
  // crosses the edge x + y = 1 (t = 0.5).
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  const Vec3 p0(1.0, 1.0, 0), p1(0.0, 0.0, 0);
  const Impact im = vertex_face_ccd(p0, a, b, c, p1, a, b, c, 1e-9);
  ASSERT_TRUE(im.hit);
  EXPECT_NEAR(im.toi, 0.5, 1e-9);
  // Sliding past, outside the triangle: no impact.
  const Impact miss = vertex_face_ccd(Vec3(2, -1, 0), a, b, c, Vec3(-1, 2.0001 + 1, 0), a, b, c, 1e-9);
  EXPECT_FALSE(miss.hit);
  // Perpendicular approach through the interior: toi where z crosses 0.
  const Impact hit = vertex_face_ccd(Vec3(0.2, 0.2, 1), a, b, c, Vec3(0.2, 0.2, -3), a, b, c, 1e-9);
  ASSERT_TRUE(hit.hit);
  EXPECT_NEAR(hit.toi, 0.25, 1e-12);
  EXPECT_NEAR(hit.bary[1], 0.2, 1e-9);
  EXPECT_NEAR(hit.normal.z(), 1.0, 1e-12);  // the vertex came from the +z side
  // Starting in contact.
  EXPECT_EQ(vertex_face_ccd(Vec3(0.2, 0.2, 0), a, b, c, Vec3(0.2, 0.2, 1), a, b, c).toi, 0.0);
}

TEST(Ccd, EdgeEdgeAgainstFineSampling) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> U(-1, 1);
  int hits = 0;
  for (int it = 0; it < 1500; ++it) {
    Vec3 x0[4], x1[4];
    for (int k = 0; k < 4; ++k) {
      x0[k] = Vec3(U(rng), U(rng), U(rng));
      x1[k] = x0[k] + 1.5 * Vec3(U(rng), U(rng), U(rng));
    }
    // Reference: first sampled sign change of the coplanarity volume where the closest points of the
    // two segments are interior (margin) and close.
    double ts = -1;
    bool ambiguous = false;
    const int n = 4000;
    auto vol = [&](double t) {
      return orient3d(lerp(x0[0], x1[0], t), lerp(x0[1], x1[1], t), lerp(x0[2], x1[2], t), lerp(x0[3], x1[3], t));
    };
    double prev = vol(0);
    for (int k = 1; k <= n && ts < 0; ++k) {
      const double t = double(k) / n, cur = vol(t);
      if ((prev > 0) != (cur > 0)) {
        const double tc = t - 1.0 / n * cur / (cur - prev);
        double s, u;
        Vec3 pa, pb;
        const double d2 = closest_points_segments(lerp(x0[0], x1[0], tc), lerp(x0[1], x1[1], tc),
                                                  lerp(x0[2], x1[2], tc), lerp(x0[3], x1[3], tc), &s, &u, &pa, &pb);
        const double m = std::min({s, 1 - s, u, 1 - u});
        if (m > 1e-3 && d2 < 1e-12) ts = tc;
        else if (m > -1e-3 && std::sqrt(d2) < 1e-3) ambiguous = true;
      }
      prev = cur;
    }
    const Impact im = edge_edge_ccd(x0[0], x0[1], x0[2], x0[3], x1[0], x1[1], x1[2], x1[3], 1e-9);
    if (im.hit) {
      double s, u;
      Vec3 pa, pb;
      const double d2 = closest_points_segments(lerp(x0[0], x1[0], im.toi), lerp(x0[1], x1[1], im.toi),
                                                lerp(x0[2], x1[2], im.toi), lerp(x0[3], x1[3], im.toi), &s, &u, &pa, &pb);
      EXPECT_LE(std::sqrt(d2), 1e-9);
    }
    if (ts >= 0) {
      ++hits;
      ASSERT_TRUE(im.hit) << it;
      EXPECT_LE(im.toi, ts + 1e-3) << it;
    } else if (!ambiguous) {
      EXPECT_FALSE(im.hit) << it;
    }
  }
  EXPECT_GT(hits, 30);
}

TEST(Ccd, EdgeEdgeCoplanarAndParallel) {
  // Two edges in z = 0: a vertical one sliding right into a horizontal one (in-plane crossing).
  const Impact im = edge_edge_ccd(Vec3(-1, -0.5, 0), Vec3(-1, 0.5, 0), Vec3(0, 0, 0), Vec3(1, 0, 0),
                                  Vec3(1, -0.5, 0), Vec3(1, 0.5, 0), Vec3(0, 0, 0), Vec3(1, 0, 0), 1e-9);
  ASSERT_TRUE(im.hit);
  EXPECT_NEAR(im.toi, 0.5, 1e-9);
  // Parallel edges approaching: collinear at t = 0.5, overlapping.
  const Impact par = edge_edge_ccd(Vec3(0, 1, 0), Vec3(1, 1, 0), Vec3(0.5, 0, 0), Vec3(1.5, 0, 0),
                                   Vec3(0, -1, 0), Vec3(1, -1, 0), Vec3(0.5, 0, 0), Vec3(1.5, 0, 0), 1e-9);
  ASSERT_TRUE(par.hit);
  EXPECT_NEAR(par.toi, 0.5, 1e-9);
  // Parallel, passing above in z: no hit.
  const Impact above = edge_edge_ccd(Vec3(0, 1, 0.1), Vec3(1, 1, 0.1), Vec3(0.5, 0, 0), Vec3(1.5, 0, 0),
                                     Vec3(0, -1, 0.1), Vec3(1, -1, 0.1), Vec3(0.5, 0, 0), Vec3(1.5, 0, 0), 1e-9);
  EXPECT_FALSE(above.hit);
}

TEST(Ccd, MeshLevelContinuousMatchesPairwise) {
  // A sheet falling through a sphere cap: the swept-tree query finds exactly the pairs that the
  // primitive tests find over all pairs.
  const TriMesh body = test::uv_sphere(8, 10, 0.5, Vec3::Zero());
  TriMesh c0 = test::grid(6, 0.6, 0.55, 0.0, 1), c1 = c0;
  c1.V.col(1).array() -= 0.2;
  for (int i = 0; i < c1.V.rows(); ++i) c1.V(i, 0) += 0.02 * std::sin(7.0 * i);
  const MeshTopology tc = MeshTopology::build(c0.F, static_cast<int>(c0.V.rows()));
  const MeshTopology tb = MeshTopology::build(body.F, static_cast<int>(body.V.rows()));
  Bvh<Aabb> sc(c0.V, c0.F), sb(body.V, body.F);
  refit_swept(sc, c0.V, c1.V, c0.F);
  const ContinuousResult r =
      continuous_collisions({c0.V, c1.V, c0.F, tc, sc}, {body.V, body.V, body.F, tb, sb}, 1e-9);
  int ref_vf = 0, ref_ee = 0;
  for (int v = 0; v < c0.V.rows(); ++v)
    for (int t = 0; t < body.F.rows(); ++t)
      ref_vf += vertex_face_ccd(c0.V.row(v), body.V.row(body.F(t, 0)), body.V.row(body.F(t, 1)),
                                body.V.row(body.F(t, 2)), c1.V.row(v), body.V.row(body.F(t, 0)),
                                body.V.row(body.F(t, 1)), body.V.row(body.F(t, 2)), 1e-9).hit;
  for (int a = 0; a < tc.edges.rows(); ++a)
    for (int b = 0; b < tb.edges.rows(); ++b)
      ref_ee += edge_edge_ccd(c0.V.row(tc.edges(a, 0)), c0.V.row(tc.edges(a, 1)), body.V.row(tb.edges(b, 0)),
                              body.V.row(tb.edges(b, 1)), c1.V.row(tc.edges(a, 0)), c1.V.row(tc.edges(a, 1)),
                              body.V.row(tb.edges(b, 0)), body.V.row(tb.edges(b, 1)), 1e-9).hit;
  EXPECT_GT(ref_vf, 0);
  EXPECT_EQ(static_cast<int>(r.vertex_face.size()), ref_vf);
  EXPECT_EQ(static_cast<int>(r.edge_edge.size()), ref_ee);
  int ref_fv = 0;  // the sphere's top vertices against the falling sheet's faces
  for (int v = 0; v < body.V.rows(); ++v)
    for (int t = 0; t < c0.F.rows(); ++t)
      ref_fv += vertex_face_ccd(body.V.row(v), c0.V.row(c0.F(t, 0)), c0.V.row(c0.F(t, 1)), c0.V.row(c0.F(t, 2)),
                                body.V.row(v), c1.V.row(c0.F(t, 0)), c1.V.row(c0.F(t, 1)), c1.V.row(c0.F(t, 2)),
                                1e-9).hit;
  EXPECT_GT(ref_fv, 0);
  EXPECT_EQ(static_cast<int>(r.face_vertex.size()), ref_fv);
  for (const auto& h : r.vertex_face) EXPECT_TRUE(h.impact.toi >= 0 && h.impact.toi <= 1);
  // the same answer, impact times included, with 1 and 2 threads
  set_num_threads(1);
  const ContinuousResult r1 = continuous_collisions({c0.V, c1.V, c0.F, tc, sc}, {body.V, body.V, body.F, tb, sb});
  set_num_threads(2);
  const ContinuousResult r2 = continuous_collisions({c0.V, c1.V, c0.F, tc, sc}, {body.V, body.V, body.F, tb, sb});
  set_num_threads(0);
  EXPECT_EQ(test::impacts(r1), test::impacts(r2));
  // self: the sheet alone does not collide with itself
  Bvh<Aabb> ss(c0.V, c0.F);
  refit_swept(ss, c0.V, c1.V, c0.F);
  const ContinuousResult self = continuous_self_collisions({c0.V, c1.V, c0.F, tc, ss});
  EXPECT_TRUE(self.vertex_face.empty());
  EXPECT_TRUE(self.edge_edge.empty());
}

TEST(Ccd, SelfContinuousMatchesPairwise) {
  // A folded sheet whose vertices move by random steps of up to 8 cm: the swept-tree query (with
  // its per-pair box filter) finds exactly the impacts, with their times, that the primitive
  // tests find over every pair not sharing a vertex.
  const TriMesh c0 = test::crumpled(12, 3);
  TriMesh c1 = c0;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> U(-0.08, 0.08);
  for (int i = 0; i < c1.V.rows(); ++i)
    for (int k = 0; k < 3; ++k) c1.V(i, k) += U(rng);
  const MeshTopology t = MeshTopology::build(c0.F, static_cast<int>(c0.V.rows()));
  Bvh<Aabb> swept(c0.V, c0.F, BvhConfig{2});
  refit_swept(swept, c0.V, c1.V, c0.F);
  const ContinuousResult r = continuous_self_collisions({c0.V, c1.V, c0.F, t, swept});
  std::vector<std::pair<std::pair<int, int>, double>> ref_vf, got_vf, ref_ee, got_ee;
  for (int v = 0; v < c0.V.rows(); ++v)
    for (int f = 0; f < c0.F.rows(); ++f) {
      if (c0.F(f, 0) == v || c0.F(f, 1) == v || c0.F(f, 2) == v) continue;
      const Impact im = vertex_face_ccd(c0.V.row(v), c0.V.row(c0.F(f, 0)), c0.V.row(c0.F(f, 1)),
                                        c0.V.row(c0.F(f, 2)), c1.V.row(v), c1.V.row(c0.F(f, 0)),
                                        c1.V.row(c0.F(f, 1)), c1.V.row(c0.F(f, 2)), 1e-9);
      if (im.hit) ref_vf.push_back({{v, f}, im.toi});
    }
  for (int a = 0; a < t.edges.rows(); ++a)
    for (int b = a + 1; b < t.edges.rows(); ++b) {
      const int a0 = t.edges(a, 0), a1 = t.edges(a, 1), b0 = t.edges(b, 0), b1 = t.edges(b, 1);
      if (a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1) continue;
      const Impact im = edge_edge_ccd(c0.V.row(a0), c0.V.row(a1), c0.V.row(b0), c0.V.row(b1), c1.V.row(a0),
                                      c1.V.row(a1), c1.V.row(b0), c1.V.row(b1), 1e-9);
      if (im.hit) ref_ee.push_back({{a, b}, im.toi});
    }
  for (const auto& h : r.vertex_face) got_vf.push_back({{h.vertex, h.triangle}, h.impact.toi});
  for (const auto& h : r.edge_edge) got_ee.push_back({{h.edge_a, h.edge_b}, h.impact.toi});
  EXPECT_GT(ref_vf.size(), 10u);
  EXPECT_GT(ref_ee.size(), 10u);
  EXPECT_EQ(got_vf, ref_vf);
  EXPECT_EQ(got_ee, ref_ee);
}


TEST(Ccd, SelfNormalConesSkipOnlyRegionsThatCannotTouch) {
  // A wavy sheet whose right part folds over onto the rest, through its waves: with the normal
  // cone culling, the same impacts (times included) as without, on one tree of 1-triangle
  // leaves and one of 4.
  const TriMesh c0 = test::grid(16, 1.0, 0.0, 0.0, 1);
  TriMesh c1 = c0;
  for (Eigen::Index i = 0; i < c1.V.rows(); ++i) {
    const double x = c0.V(i, 0), z = c0.V(i, 2);
    c1.V(i, 1) = 0.02 * std::sin(9 * x) * std::cos(7 * z);
    if (x > 0.2) {
      c1.V(i, 0) = 0.4 - x;  // folded about x = 0.2, lying 5 mm over the sheet's plane
      c1.V(i, 1) = 0.005;
    }
  }
  const MeshTopology t = MeshTopology::build(c0.F, static_cast<int>(c0.V.rows()));
  for (int leaf : {1, 4}) {
    Bvh<Aabb> swept(c0.V, c0.F, BvhConfig{leaf});
    refit_swept(swept, c0.V, c1.V, c0.F);
    const MovingMesh m{c0.V, c1.V, c0.F, t, swept};
    const auto with = test::impacts(continuous_self_collisions(m, 1e-9, true));
    const auto without = test::impacts(continuous_self_collisions(m, 1e-9, false));
    EXPECT_GT(without.size(), 10u) << leaf;
    EXPECT_EQ(with, without) << leaf;
    const NodeContours contours(swept, c0.F, t);
    EXPECT_EQ(test::impacts(continuous_self_collisions({c0.V, c1.V, c0.F, t, swept, &contours})), without) << leaf;
  }
  // A sheet that only waves cannot touch itself: nothing with or without culling.
  for (Eigen::Index i = 0; i < c1.V.rows(); ++i) c1.V.row(i) << c0.V(i, 0), 0.02 * std::sin(9 * c0.V(i, 0)), c0.V(i, 2);
  Bvh<Aabb> swept(c0.V, c0.F);
  refit_swept(swept, c0.V, c1.V, c0.F);
  EXPECT_TRUE(test::impacts(continuous_self_collisions({c0.V, c1.V, c0.F, t, swept})).empty());
}

TEST(Ccd, SelfNormalConesKeepACornerSlidingThroughTheSameFlatRegion) {
  // A flat region whose corner slides through it (test::sliding_corner). Normals stay within a few degrees of +z and the contour is simple at both ends of the
  // motion; the corner's impact with the spike is found.
  const test::SlidingCorner s = test::sliding_corner();
  const Points3 &V0 = s.m0.V, &V1 = s.m1.V;
  const Triangles& F = s.m0.F;
  const MeshTopology t = MeshTopology::build(F, 15);
  Bvh<Aabb> swept(V0, F);
  refit_swept(swept, V0, V1, F);
  const ContinuousResult r = continuous_self_collisions({V0, V1, F, t, swept});
  bool corner_hits_spike = false;
  for (const auto& h : r.vertex_face) corner_hits_spike |= h.vertex == s.corner && h.triangle == s.spike_triangle;
  EXPECT_TRUE(corner_hits_spike);
  const NodeContours contours(swept, F, t);
  EXPECT_EQ(test::impacts(continuous_self_collisions({V0, V1, F, t, swept, &contours})), test::impacts(r));
  EXPECT_EQ(test::impacts(r), test::impacts(continuous_self_collisions({V0, V1, F, t, swept}, 1e-9, false)));
}
