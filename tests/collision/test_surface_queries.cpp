#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>

#include "collision/geometry.hpp"
#include "collision/surface_queries.hpp"
#include "core/mesh_io.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::collision;

TEST(SurfaceQueries, ClosestPointMatchesBruteForceOnTheSampleBody) {
  const TriMesh body = read_mesh(test::assets() / "bodies/mean_all.obj");
  const Bvh<Aabb> bvh(body.V, body.F);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> ux(-0.7, 0.7), uy(-0.1, 1.9), uz(-0.4, 0.4);
  for (int i = 0; i < 60; ++i) {
    const Vec3 p(ux(rng), uy(rng), uz(rng));
    const ClosestPoint c = closest_point(p, body.V, body.F, bvh);
    double best = std::numeric_limits<double>::infinity();
    for (int f = 0; f < body.num_triangles(); ++f) {
      Vec3 bary;
      const Vec3 q = closest_point_triangle(p, body.V.row(body.F(f, 0)), body.V.row(body.F(f, 1)),
                                            body.V.row(body.F(f, 2)), &bary);
      best = std::min(best, (q - p).norm());
    }
    EXPECT_NEAR(c.distance, best, 1e-12);
    EXPECT_NEAR((c.point - p).norm(), c.distance, 1e-12);
    EXPECT_NEAR(c.bary.sum(), 1.0, 1e-12);
  }
}

TEST(SurfaceQueries, ClosestPointOverTheTrianglesNotSkippedMatchesBruteForce) {
  // The body's triangles with a vertex right of x = 0.15 m (an arm) skipped: points in and
  // around the arm get the closest point of the rest of the body.
  const TriMesh body = read_mesh(test::assets() / "bodies/mean_all.obj");
  const Bvh<Aabb> bvh(body.V, body.F);
  std::vector<char> skip(body.num_triangles(), 0);
  for (int f = 0; f < body.num_triangles(); ++f)
    for (int k = 0; k < 3; ++k) skip[f] |= body.V(body.F(f, k), 0) > 0.15;
  ASSERT_GT(std::count(skip.begin(), skip.end(), 1), 100);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> ux(0.1, 0.6), uy(0.9, 1.5), uz(-0.2, 0.2);
  for (int i = 0; i < 40; ++i) {
    const Vec3 p(ux(rng), uy(rng), uz(rng));
    const ClosestPoint c = closest_point(p, body.V, body.F, bvh, skip);
    double best = std::numeric_limits<double>::infinity();
    for (int f = 0; f < body.num_triangles(); ++f) {
      if (skip[f]) continue;
      Vec3 bary;
      const Vec3 q = closest_point_triangle(p, body.V.row(body.F(f, 0)), body.V.row(body.F(f, 1)),
                                            body.V.row(body.F(f, 2)), &bary);
      best = std::min(best, (q - p).norm());
    }
    ASSERT_GE(c.triangle, 0);
    EXPECT_FALSE(skip[c.triangle]);
    EXPECT_NEAR(c.distance, best, 1e-12);
    EXPECT_NEAR((c.point - p).norm(), c.distance, 1e-12);
  }
  EXPECT_EQ(closest_point(Vec3(0.3, 1.2, 0), body.V, body.F, bvh, std::vector<char>(body.num_triangles(), 1)).triangle,
            -1);
  EXPECT_THROW(closest_point(Vec3::Zero(), body.V, body.F, bvh, std::vector<char>(3, 0)), std::invalid_argument);
}

TEST(SurfaceQueries, TrianglesNearABoxMatchBruteForce) {
  const TriMesh body = read_mesh(test::assets() / "bodies/mean_all.obj");
  const Bvh<Aabb> bvh(body.V, body.F);
  Aabb box;
  box.extend(Vec3(-0.1, 1.0, 0.0));
  box.extend(Vec3(0.05, 1.1, 0.2));
  std::vector<int> found;
  for_each_triangle_near(bvh, box, [&](int f) {
    found.push_back(f);
    return true;
  });
  std::sort(found.begin(), found.end());
  std::vector<int> expected;
  for (int f = 0; f < body.num_triangles(); ++f) {
    Aabb t;
    for (int k = 0; k < 3; ++k) t.extend(Vec3(body.V.row(body.F(f, k))));
    if (!((t.hi.array() < box.lo.array()).any() || (t.lo.array() > box.hi.array()).any())) expected.push_back(f);
  }
  EXPECT_EQ(found, expected);
  EXPECT_GT(expected.size(), 10u);
}

TEST(SurfaceQueries, FirstRayHitMatchesBruteForceOnTheSampleBody) {
  const TriMesh body = read_mesh(test::assets() / "bodies/mean_all.obj");
  const Bvh<Aabb> bvh(body.V, body.F);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> ux(-0.5, 0.5), uy(0.1, 1.7), uz(-0.3, 0.3), u(-1, 1);
  int hits = 0;
  for (int i = 0; i < 80; ++i) {
    const Vec3 o(ux(rng), uy(rng), uz(rng));
    Vec3 d(u(rng), u(rng), u(rng));
    if (i % 4 == 0) d = Vec3(0, 0, 1);  // axis-aligned rays: zero components in the slab test
    if (i % 4 == 1 || i % 4 == 2)           // aimed at a body vertex: these rays do meet the body
      d = Vec3(body.V.row(static_cast<int>(rng() % body.V.rows()))) - o;
    const RayHit h = first_ray_hit(o, d, 0.0, 10.0, body.V, body.F, bvh);
    // Brute force: the smallest t over all triangles, by the plane and barycentric test.
    double best = std::numeric_limits<double>::infinity();
    for (int f = 0; f < body.num_triangles(); ++f) {
      const Vec3 a = body.V.row(body.F(f, 0)), b = body.V.row(body.F(f, 1)), c = body.V.row(body.F(f, 2));
      const Vec3 n = (b - a).cross(c - a);
      const double den = n.dot(d);
      if (den == 0) continue;
      const double t = n.dot(a - o) / den;
      if (!(t > 0 && t <= 10.0)) continue;
      const Vec3 p = o + t * d;
      const double area = n.norm();
      const double wa = (b - p).cross(c - p).dot(n) / (area * area), wb = (c - p).cross(a - p).dot(n) / (area * area);
      if (wa < 0 || wb < 0 || wa + wb > 1) continue;
      best = std::min(best, t);
    }
    if (std::isinf(best)) {
      EXPECT_EQ(h.triangle, -1);
    } else {
      ++hits;
      ASSERT_GE(h.triangle, 0);
      EXPECT_NEAR(h.t, best, 1e-9);
    }
  }
  EXPECT_GE(hits, 40);  // the sample is not vacuous: every aimed ray meets the body
}
