#include <gtest/gtest.h>

#include <random>

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
