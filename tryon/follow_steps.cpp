#include "tryon/follow_steps.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <unordered_set>
#include <vector>

namespace tryon {

namespace {

// The cubes of side h that hold at least one of a set of points.
class OccupiedCubes {
 public:
  OccupiedCubes(const Points3& P, double h) : h_(h) {
    cubes_.reserve(static_cast<std::size_t>(P.rows()));
    for (Eigen::Index i = 0; i < P.rows(); ++i) cubes_.insert(key(cube(P(i, 0)), cube(P(i, 1)), cube(P(i, 2))));
  }

  // Whether a cube that holds a point meets the box [lo, hi].
  bool any_in_box(const Vec3& lo, const Vec3& hi) const {
    const std::int64_t x0 = cube(lo.x()), x1 = cube(hi.x()), y0 = cube(lo.y()), y1 = cube(hi.y());
    const std::int64_t z0 = cube(lo.z()), z1 = cube(hi.z());
    for (std::int64_t x = x0; x <= x1; ++x)
      for (std::int64_t y = y0; y <= y1; ++y)
        for (std::int64_t z = z0; z <= z1; ++z)
          if (cubes_.count(key(x, y, z))) return true;
    return false;
  }

 private:
  static constexpr std::int64_t kRange = std::int64_t{1} << 20;  // cubes each side of the origin
  std::int64_t cube(double c) const {
    return std::clamp(static_cast<std::int64_t>(std::floor(c / h_)), -kRange + 1, kRange - 1);
  }
  static std::int64_t key(std::int64_t x, std::int64_t y, std::int64_t z) {
    return ((x + kRange) << 42) | ((y + kRange) << 21) | (z + kRange);
  }
  double h_;
  std::unordered_set<std::int64_t> cubes_;
};

}  // namespace

double travel_near_cloth(const Points3& from, const Points3& to, const Triangles& F, const Points3& cloth,
                         double reach) {
  if (from.rows() != to.rows()) throw std::invalid_argument("travel_near_cloth: poses of differing sizes");
  if (!(reach > 0)) throw std::invalid_argument("travel_near_cloth: reach must be > 0");
  if (cloth.rows() == 0 || F.rows() == 0) return 0;
  const Eigen::VectorXd vertex_travel = (to - from).rowwise().norm();
  Eigen::VectorXd travel(F.rows());
  for (Eigen::Index f = 0; f < F.rows(); ++f)
    travel[f] = std::max({vertex_travel[F(f, 0)], vertex_travel[F(f, 1)], vertex_travel[F(f, 2)]});
  std::vector<Eigen::Index> order(static_cast<std::size_t>(F.rows()));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return travel[a] > travel[b]; });
  const OccupiedCubes cubes(cloth, reach);
  for (Eigen::Index f : order) {  // the fastest triangle that can reach the cloth
    if (!(travel[f] > 0)) break;
    Vec3 lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);
    for (int c = 0; c < 3; ++c) {
      const Vec3 a = from.row(F(f, c)).transpose(), b = to.row(F(f, c)).transpose();
      lo = lo.cwiseMin(a).cwiseMin(b);
      hi = hi.cwiseMax(a).cwiseMax(b);
    }
    if (cubes.any_in_box((lo.array() - reach).matrix(), (hi.array() + reach).matrix())) return travel[f];
  }
  return 0;
}

double longest_edge(const Points3& V, const Triangles& F) {
  double longest = 0;
  for (Eigen::Index f = 0; f < F.rows(); ++f)
    for (int c = 0; c < 3; ++c)
      longest = std::max(longest, (V.row(F(f, c)) - V.row(F(f, (c + 1) % 3))).norm());
  return longest;
}

}  // namespace tryon
