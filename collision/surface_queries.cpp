#include "collision/surface_queries.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "collision/geometry.hpp"
#include "core/parallel.hpp"

namespace tryon::collision {
namespace {

// Whether the ray p + t d (t ≥ 0) meets the box (slab test).
bool ray_hits_box(const Vec3& p, const Vec3& inv_d, const Aabb& b) {
  double t0 = 0, t1 = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 3; ++k) {
    double a = (b.lo[k] - p[k]) * inv_d[k], c = (b.hi[k] - p[k]) * inv_d[k];
    if (a > c) std::swap(a, c);
    t0 = std::max(t0, a);
    t1 = std::min(t1, c);
    if (t0 > t1) return false;
  }
  return true;
}

enum class RayResult { ok, grazing, on_surface };

// Signed crossings of the ray p + t d with the mesh: +1 leaving through a triangle's front.
RayResult signed_crossings(const Vec3& p, const Vec3& d, const Bvh<Aabb>& bvh, ConstRef<Points3> V,
                           ConstRef<Triangles> F, int& sum) {
  sum = 0;
  const Vec3 inv_d = d.cwiseInverse();
  RayResult result = RayResult::ok;
  walk_triangles(bvh, [&](const Aabb& box) { return ray_hits_box(p, inv_d, box); }, [&](int f) {
    const Vec3 a = V.row(F(f, 0)), b = V.row(F(f, 1)), c = V.row(F(f, 2));
    // Möller–Trumbore [Möller & Trumbore 1997].
    const Vec3 e1 = b - a, e2 = c - a, h = d.cross(e2);
    const double det = e1.dot(h);
    const double scale = e1.norm() * e2.norm();
    if (std::abs(det) <= 1e-12 * scale) {
      // The ray runs parallel to the triangle's plane; if it lies in it, another direction decides.
      if (std::abs(e1.cross(e2).dot(p - a)) <= 1e-12 * scale * (p - a).norm() + 1e-15) {
        Vec3 bary;
        result = (closest_point_triangle(p, a, b, c, &bary) - p).norm() < 1e-12 ? RayResult::on_surface
                                                                                : RayResult::grazing;
        return false;
      }
      return true;
    }
    const double inv = 1.0 / det;
    const Vec3 s = p - a;
    const double u = s.dot(h) * inv;
    const Vec3 qv = s.cross(e1);
    const double v = d.dot(qv) * inv;
    const double t = e2.dot(qv) * inv;
    constexpr double eps = 1e-10;
    if (u < -eps || v < -eps || u + v > 1 + eps) return true;
    if (std::abs(t) <= 1e-12 * std::sqrt(scale)) {
      result = RayResult::on_surface;
      return false;
    }
    if (t < 0) return true;
    if (u < eps || v < eps || u + v > 1 - eps) {
      result = RayResult::grazing;
      return false;
    }
    sum += det > 0 ? -1 : 1;  // det = −d·n: the ray leaves through the front when det < 0
    return true;
  });
  return result;
}

}  // namespace

std::vector<double> winding_numbers(ConstRef<Points3> points, ConstRef<Points3> V, ConstRef<Triangles> F,
                                    const Bvh<Aabb>& bvh) {
  static const std::array<Vec3, 6> directions{
      Vec3(0.5773, 0.5774, 0.5775).normalized(), Vec3(-0.31, 0.85, 0.42).normalized(),
      Vec3(0.71, -0.23, -0.66).normalized(),     Vec3(-0.52, -0.61, 0.6).normalized(),
      Vec3(0.13, 0.27, -0.95).normalized(),      Vec3(-0.9, 0.1, -0.41).normalized()};
  std::vector<double> w(points.rows(), 0.0);
  if (bvh.empty()) return w;
  parallel_for(static_cast<std::size_t>(points.rows()), [&](std::size_t i) {
    const Vec3 p = points.row(static_cast<Eigen::Index>(i));
    for (const Vec3& d : directions) {
      int sum = 0;
      const RayResult r = signed_crossings(p, d, bvh, V, F, sum);
      if (r == RayResult::on_surface) {
        w[i] = 0.5;
        return;
      }
      if (r == RayResult::ok) {
        w[i] = sum;
        return;
      }
    }
    w[i] = 0.5;  // every direction grazed: the point sits on an edge or vertex
  });
  return w;
}

ClosestPoint closest_point(const Vec3& p, ConstRef<Points3> V, ConstRef<Triangles> F, const Bvh<Aabb>& bvh) {
  return closest_point(p, V, F, bvh, {});
}

ClosestPoint closest_point(const Vec3& p, ConstRef<Points3> V, ConstRef<Triangles> F, const Bvh<Aabb>& bvh,
                           const std::vector<char>& skip) {
  if (!skip.empty() && skip.size() != static_cast<std::size_t>(F.rows()))
    throw std::invalid_argument("closest_point: one skip flag per triangle");
  ClosestPoint best;
  best.distance = std::numeric_limits<double>::infinity();
  if (bvh.empty()) return best;
  const auto& nodes = bvh.nodes();
  const auto& prims = bvh.primitives();
  auto box_distance2 = [&](const Aabb& b) {
    const Vec3 q = p.cwiseMax(b.lo).cwiseMin(b.hi);
    return (q - p).squaredNorm();
  };
  std::vector<std::pair<double, int>> stack{{box_distance2(nodes[0].bv), 0}};
  double best2 = std::numeric_limits<double>::infinity();
  while (!stack.empty()) {
    const auto [d2, i] = stack.back();
    stack.pop_back();
    if (d2 > best2) continue;
    const auto& n = nodes[i];
    if (n.is_leaf()) {
      for (int k = n.begin; k < n.end; ++k) {
        const int f = prims[k];
        if (!skip.empty() && skip[f]) continue;
        Vec3 bary;
        const Vec3 q = closest_point_triangle(p, V.row(F(f, 0)), V.row(F(f, 1)), V.row(F(f, 2)), &bary);
        const double q2 = (q - p).squaredNorm();
        if (q2 < best2 || (q2 == best2 && f < best.triangle)) {
          best2 = q2;
          best = {f, q, bary, std::sqrt(q2)};
        }
      }
      continue;
    }
    // Visit the nearer child first (pushed last).
    const double dl = box_distance2(nodes[i + 1].bv), dr = box_distance2(nodes[n.right].bv);
    if (dl <= dr) {
      if (dr <= best2) stack.emplace_back(dr, n.right);
      if (dl <= best2) stack.emplace_back(dl, i + 1);
    } else {
      if (dl <= best2) stack.emplace_back(dl, i + 1);
      if (dr <= best2) stack.emplace_back(dr, n.right);
    }
  }
  return best;
}

RayHit first_ray_hit(const Vec3& o, const Vec3& d, double t_min, double t_max, ConstRef<Points3> V,
                     ConstRef<Triangles> F, const Bvh<Aabb>& bvh) {
  RayHit hit;
  double best = t_max;
  const Vec3 inv = d.cwiseInverse();  // ±inf for zero components: the slab test still works
  walk_triangles(
      bvh,
      [&](const Aabb& b) {  // slab test against the best hit so far
        double t0 = t_min, t1 = best;
        for (int k = 0; k < 3; ++k) {
          double a = (b.lo[k] - o[k]) * inv[k], c = (b.hi[k] - o[k]) * inv[k];
          if (std::isnan(a) || std::isnan(c)) {  // parallel ray on the slab's plane
            if (o[k] < b.lo[k] || o[k] > b.hi[k]) return false;
            continue;
          }
          if (a > c) std::swap(a, c);
          t0 = std::max(t0, a);
          t1 = std::min(t1, c);
        }
        return t0 <= t1;
      },
      [&](int f) {
        const Vec3 a = V.row(F(f, 0)), b = V.row(F(f, 1)), c = V.row(F(f, 2));
        const Vec3 e1 = b - a, e2 = c - a, p = d.cross(e2);
        const double det = e1.dot(p);
        if (std::abs(det) < 1e-300) return true;
        const Vec3 s = o - a;
        const double u = s.dot(p) / det;
        if (u < 0 || u > 1) return true;
        const Vec3 q = s.cross(e1);
        const double v = d.dot(q) / det;
        if (v < 0 || u + v > 1) return true;
        const double t = e2.dot(q) / det;
        if (t > t_min && t <= best) {
          best = t;
          hit.triangle = f;
          hit.t = t;
        }
        return true;
      });
  return hit;
}

}  // namespace tryon::collision
