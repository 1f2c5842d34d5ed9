#include "garments/transfer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tryon::garments {
namespace {

/// Squared distance from p to triangle (a, b, c), and the triangle's barycentric weights of p:
/// outside it they extend the triangle's affine map (negative weights); for a degenerate
/// triangle, those of the closest point.
double distance2_to_triangle(const Vec2& p, const Vec2& a, const Vec2& b, const Vec2& c, Vec3& weights) {
  const Vec2 ab = b - a, ac = c - a, ap = p - a;
  const double det = ab.x() * ac.y() - ab.y() * ac.x();
  const bool degenerate = !(std::abs(det) > 1e-14 * std::max(ab.squaredNorm(), ac.squaredNorm()));
  if (!degenerate) {
    const double v = (ap.x() * ac.y() - ap.y() * ac.x()) / det;
    const double w = (ab.x() * ap.y() - ab.y() * ap.x()) / det;
    weights << 1 - v - w, v, w;
    if (v >= 0 && w >= 0 && v + w <= 1) return 0;
  }
  // Outside: the closest point lies on an edge.
  double best = std::numeric_limits<double>::infinity();
  const Vec2* corner[3] = {&a, &b, &c};
  for (int e = 0; e < 3; ++e) {
    const Vec2& s = *corner[e];
    const Vec2& t = *corner[(e + 1) % 3];
    const Vec2 st = t - s;
    const double len2 = st.squaredNorm();
    const double u = len2 > 0 ? std::clamp((p - s).dot(st) / len2, 0.0, 1.0) : 0.0;
    const double d2 = (s + u * st - p).squaredNorm();
    if (d2 < best) {
      best = d2;
      if (degenerate) {
        weights.setZero();
        weights[e] = 1 - u;
        weights[(e + 1) % 3] = u;
      }
    }
  }
  return best;
}

}  // namespace

Points3 transfer_positions(const GarmentMesh& from, ConstRef<Points3> from_positions, const GarmentMesh& to) {
  if (from.panel_names != to.panel_names)
    throw std::invalid_argument("transfer_positions: the two garments have different panels");
  if (from_positions.rows() != from.rest.rows() ||
      from.panel_of_triangle.size() != static_cast<std::size_t>(from.F.rows()) ||
      to.panel_of_vertex.size() != static_cast<std::size_t>(to.rest.rows()))
    throw std::invalid_argument("transfer_positions: inconsistent garment arrays");
  std::vector<std::vector<int>> triangles_of_panel(from.panel_names.size());
  for (Eigen::Index f = 0; f < from.F.rows(); ++f)
    triangles_of_panel[from.panel_of_triangle[f]].push_back(static_cast<int>(f));

  Points3 out(to.rest.rows(), 3);
  for (Eigen::Index v = 0; v < to.rest.rows(); ++v) {
    const auto& candidates = triangles_of_panel[to.panel_of_vertex[v]];
    if (candidates.empty())
      throw std::invalid_argument("transfer_positions: panel '" + to.panel_names[to.panel_of_vertex[v]] +
                                  "' has no triangle to take positions from");
    const Vec2 p = to.rest.row(v).transpose();
    double best = std::numeric_limits<double>::infinity();
    int best_f = -1;
    Vec3 best_w = Vec3::Zero(), w = Vec3::Zero();
    for (int f : candidates) {
      const double d2 = distance2_to_triangle(p, from.rest.row(from.F(f, 0)).transpose(),
                                              from.rest.row(from.F(f, 1)).transpose(),
                                              from.rest.row(from.F(f, 2)).transpose(), w);
      if (d2 < best) {
        best = d2;
        best_f = f;
        best_w = w;
        if (d2 == 0) break;
      }
    }
    out.row(v) = best_w[0] * from_positions.row(from.F(best_f, 0)) +
                 best_w[1] * from_positions.row(from.F(best_f, 1)) +
                 best_w[2] * from_positions.row(from.F(best_f, 2));
  }
  return out;
}

}  // namespace tryon::garments
