// travel_near_cloth: the follow stage's steps come from the body triangles that can reach the
// cloth in a frame, checked against brute force.
#include <gtest/gtest.h>

#include <random>

#include "tryon/follow_steps.hpp"

namespace {

using tryon::Points3;
using tryon::Triangles;
using tryon::Vec3;

// Distance from a point to the box [lo, hi].
double box_distance(const Vec3& p, const Vec3& lo, const Vec3& hi) {
  return (p.cwiseMax(lo).cwiseMin(hi) - p).norm();
}

// The farthest a vertex of a triangle moves, over the triangles whose box over both poses has
// a cloth point within `reach`.
double brute_force(const Points3& from, const Points3& to, const Triangles& F, const Points3& cloth, double reach) {
  double best = 0;
  for (Eigen::Index f = 0; f < F.rows(); ++f) {
    Vec3 lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);
    double travel = 0;
    for (int c = 0; c < 3; ++c) {
      const Vec3 a = from.row(F(f, c)).transpose(), b = to.row(F(f, c)).transpose();
      lo = lo.cwiseMin(a).cwiseMin(b);
      hi = hi.cwiseMax(a).cwiseMax(b);
      travel = std::max(travel, (b - a).norm());
    }
    for (Eigen::Index i = 0; i < cloth.rows(); ++i)
      if (box_distance(cloth.row(i).transpose(), lo, hi) <= reach) best = std::max(best, travel);
  }
  return best;
}

TEST(FollowSteps, APartFarFromTheClothDoesNotSetTheTravel) {
  // Two triangles: a "hand" next to the cloth moving 3 cm, a "foot" 1 m below moving 10 cm.
  Points3 from(6, 3);
  from << 0, 1, 0, 0.1, 1, 0, 0, 1.1, 0,  //
      0, 0, 0, 0.1, 0, 0, 0, 0.1, 0;
  Points3 to = from;
  to.topRows(3).col(2).array() += 0.03;
  to.bottomRows(3).col(2).array() += 0.10;
  const Triangles F = (Triangles(2, 3) << 0, 1, 2, 3, 4, 5).finished();
  const Points3 cloth = (Points3(2, 3) << 0.05, 1.05, 0.05, 0.05, 1.2, 0.05).finished();
  EXPECT_DOUBLE_EQ(tryon::travel_near_cloth(from, to, F, cloth, 0.05), 0.03);
  // With the cloth at the foot as well, the foot sets it.
  const Points3 both = (Points3(2, 3) << 0.05, 1.05, 0.05, 0.05, 0.05, 0.12).finished();
  EXPECT_DOUBLE_EQ(tryon::travel_near_cloth(from, to, F, both, 0.05), 0.10);
  // No cloth within reach: nothing sets it.
  const Points3 far = (Points3(1, 3) << 3.0, 3.0, 3.0).finished();
  EXPECT_EQ(tryon::travel_near_cloth(from, to, F, far, 0.05), 0.0);
}

TEST(FollowSteps, BetweenBruteForceAtReachAndAtTheCubesDiagonal) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.5, 0.5), step(-0.05, 0.05);
  const int nv = 300, nf = 100, nc = 60;
  Points3 from(nv, 3), to(nv, 3), cloth(nc, 3);
  for (int i = 0; i < nv; ++i)
    for (int d = 0; d < 3; ++d) {
      from(i, d) = u(rng);
      to(i, d) = from(i, d) + step(rng);
    }
  Triangles F(nf, 3);
  for (int f = 0; f < nf; ++f) F.row(f) << 3 * f, 3 * f + 1, 3 * f + 2;
  for (int k = 0; k < 20; ++k) {
    for (int i = 0; i < nc; ++i)
      for (int d = 0; d < 3; ++d) cloth(i, d) = 1.5 * u(rng);
    const double reach = 0.02 + 0.01 * k;
    const double got = tryon::travel_near_cloth(from, to, F, cloth, reach);
    // Cloth within reach of a triangle's box always counts; a point counts at most a cube's
    // diagonal farther (the cubes have side `reach`).
    EXPECT_GE(got, brute_force(from, to, F, cloth, reach)) << "reach " << reach;
    EXPECT_LE(got, brute_force(from, to, F, cloth, reach * (1 + std::sqrt(3.0)) + 1e-12)) << "reach " << reach;
  }
}

TEST(FollowSteps, LongestEdge) {
  const Points3 V = (Points3(3, 3) << 0, 0, 0, 0.3, 0, 0, 0, 0.4, 0).finished();
  const Triangles F = (Triangles(1, 3) << 0, 1, 2).finished();
  EXPECT_DOUBLE_EQ(tryon::longest_edge(V, F), 0.5);
}

TEST(FollowSteps, RefusesPosesOfDifferentSizesAndNoReach) {
  const Points3 a = Points3::Zero(3, 3), b = Points3::Zero(4, 3);
  const Triangles F = (Triangles(1, 3) << 0, 1, 2).finished();
  EXPECT_THROW(tryon::travel_near_cloth(a, b, F, a, 0.1), std::invalid_argument);
  EXPECT_THROW(tryon::travel_near_cloth(a, a, F, a, 0.0), std::invalid_argument);
}

}  // namespace
