#include "quality/quality.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "collision/bvh.hpp"
#include "collision/geometry.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace tryon::quality {

using collision::Aabb;
using collision::Bvh;

bool Quality::clean() const {
  return body_intersections == 0 && vertices_inside_body == 0 && self_intersections == 0 &&
         seam_gap_max_m < 1e-3 && is_static.value_or(false);
}

namespace {

// Calls fn(triangle) for every triangle whose leaf box overlaps `box`.
template <class Fn>
void for_each_overlap(const Bvh<Aabb>& bvh, const Aabb& box, Fn&& fn) {
  if (bvh.empty()) return;
  const auto& nodes = bvh.nodes();
  const auto& prims = bvh.primitives();
  int stack[128];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const int i = stack[--top];
    const auto& n = nodes[i];
    if ((n.bv.hi.array() < box.lo.array()).any() || (n.bv.lo.array() > box.hi.array()).any()) continue;
    if (n.is_leaf()) {
      for (int p = n.begin; p < n.end; ++p) fn(prims[p]);
    } else if (top + 2 <= 128) {
      stack[top++] = n.right;
      stack[top++] = i + 1;
    } else {  // deeper than any sane tree: fall back to the node's triangles
      for (int p = n.begin; p < n.end; ++p) fn(prims[p]);
    }
  }
}

// Whether the ray p + t d (t > 0) can meet the box [lo, hi] (slab test).
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
  const auto& nodes = bvh.nodes();
  const auto& prims = bvh.primitives();
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    const auto& n = nodes[i];
    if (!ray_hits_box(p, inv_d, n.bv)) continue;
    if (!n.is_leaf()) {
      stack.push_back(n.right);
      stack.push_back(i + 1);
      continue;
    }
    for (int k = n.begin; k < n.end; ++k) {
      const int f = prims[k];
      const Vec3 a = V.row(F(f, 0)), b = V.row(F(f, 1)), c = V.row(F(f, 2));
      // Möller–Trumbore [Möller & Trumbore 1997].
      const Vec3 e1 = b - a, e2 = c - a, h = d.cross(e2);
      const double det = e1.dot(h);
      const double scale = e1.norm() * e2.norm();
      if (std::abs(det) <= 1e-12 * scale) {
        // Ray parallel to the triangle's plane: grazing only if it lies in the plane near it.
        const Vec3 nrm = e1.cross(e2);
        if (std::abs(nrm.dot(p - a)) <= 1e-12 * scale * (p - a).norm() + 1e-15) {
          // In-plane: on the triangle's plane; let another direction decide.
          Vec3 bary;
          const Vec3 q = collision::closest_point_triangle(p, a, b, c, &bary);
          if ((q - p).norm() < 1e-12) return RayResult::on_surface;
          return RayResult::grazing;
        }
        continue;
      }
      const double inv = 1.0 / det;
      const Vec3 s = p - a;
      const double u = s.dot(h) * inv;
      const Vec3 qv = s.cross(e1);
      const double v = d.dot(qv) * inv;
      const double t = e2.dot(qv) * inv;
      constexpr double eps = 1e-10;
      if (u < -eps || v < -eps || u + v > 1 + eps) continue;
      const double edge_len = std::sqrt(scale);
      if (std::abs(t) <= 1e-12 * edge_len) return RayResult::on_surface;
      if (t < 0) continue;
      if (u < eps || v < eps || u + v > 1 - eps) return RayResult::grazing;
      sum += det > 0 ? -1 : 1;  // det = −d·n: the ray leaves through the front when det < 0
    }
  }
  return RayResult::ok;
}

}  // namespace

std::vector<double> winding_numbers(ConstRef<Points3> points, ConstRef<Points3> V, ConstRef<Triangles> F) {
  const Bvh<Aabb> bvh(V, F);
  static const std::array<Vec3, 6> directions{
      Vec3(0.5773, 0.5774, 0.5775).normalized(), Vec3(-0.31, 0.85, 0.42).normalized(),
      Vec3(0.71, -0.23, -0.66).normalized(),     Vec3(-0.52, -0.61, 0.6).normalized(),
      Vec3(0.13, 0.27, -0.95).normalized(),      Vec3(-0.9, 0.1, -0.41).normalized()};
  std::vector<double> w(points.rows(), 0.0);
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

Quality check(const Cloth& cloth, const TriMesh& body, const CheckOptions& options) {
  TriMesh cm{cloth.V, cloth.F, {}};
  check_mesh(cm, "cloth");
  check_mesh(body, "body");
  const int nv = static_cast<int>(cloth.V.rows());
  if (cloth.rest.rows() != 0 && cloth.rest.rows() != nv)
    throw InputError("cloth: rest coordinates do not match the vertices");
  if (cloth.previous && cloth.previous->rows() != nv)
    throw InputError("cloth: the previous positions do not match the vertices");
  for (Eigen::Index i = 0; i < cloth.seam_pairs.rows(); ++i)
    for (int k = 0; k < 2; ++k)
      if (cloth.seam_pairs(i, k) < 0 || cloth.seam_pairs(i, k) >= nv)
        throw InputError("cloth: seam pair " + std::to_string(i) + " refers to a missing vertex");

  Quality q;
  const Segments edges = unique_edges(cloth.F);
  const auto ne = static_cast<std::size_t>(edges.rows());

  // Sewn vertices count as one vertex (union–find over the seam pairs).
  std::vector<int> root(nv);
  std::iota(root.begin(), root.end(), 0);
  auto find = [&](int v) {
    while (root[v] != v) v = root[v] = root[root[v]];
    return v;
  };
  for (Eigen::Index i = 0; i < cloth.seam_pairs.rows(); ++i) {
    const int a = find(cloth.seam_pairs(i, 0)), b = find(cloth.seam_pairs(i, 1));
    if (a != b) root[std::max(a, b)] = std::min(a, b);
    q.seam_gap_max_m = std::max(q.seam_gap_max_m, (cloth.V.row(cloth.seam_pairs(i, 0)) - cloth.V.row(cloth.seam_pairs(i, 1))).norm());
  }
  for (int v = 0; v < nv; ++v) root[v] = find(v);

  auto edge_box = [&](std::size_t e) {
    Aabb box;
    box.extend(Vec3(cloth.V.row(edges(e, 0))));
    box.extend(Vec3(cloth.V.row(edges(e, 1))));
    return box;
  };

  // Body intersections: cloth edges meeting the body surface.
  if (body.num_triangles() > 0) {
    const Bvh<Aabb> body_bvh(body.V, body.F);
    std::vector<char> hit(ne, 0);
    parallel_for(ne, [&](std::size_t e) {
      const Vec3 p = cloth.V.row(edges(e, 0)), r = cloth.V.row(edges(e, 1));
      for_each_overlap(body_bvh, edge_box(e), [&](int f) {
        if (!hit[e] && collision::segment_triangle_intersect(p, r, body.V.row(body.F(f, 0)), body.V.row(body.F(f, 1)),
                                                             body.V.row(body.F(f, 2))))
          hit[e] = 1;
      });
    });
    q.body_intersections = static_cast<int>(std::count(hit.begin(), hit.end(), 1));
    const std::vector<double> w = winding_numbers(cloth.V, body.V, body.F);
    q.vertices_inside_body = static_cast<int>(std::count_if(w.begin(), w.end(), [](double x) { return x >= 0.5; }));
  }

  // Self intersections: cloth edges meeting a cloth triangle they share no (sewn) vertex with.
  if (cloth.F.rows() > 0) {
    const Bvh<Aabb> cloth_bvh(cloth.V, cloth.F);
    std::vector<char> hit(ne, 0);
    parallel_for(ne, [&](std::size_t e) {
      const int a = root[edges(e, 0)], b = root[edges(e, 1)];
      const Vec3 p = cloth.V.row(edges(e, 0)), r = cloth.V.row(edges(e, 1));
      for_each_overlap(cloth_bvh, edge_box(e), [&](int f) {
        if (hit[e]) return;
        for (int k = 0; k < 3; ++k) {
          const int t = root[cloth.F(f, k)];
          if (t == a || t == b) return;
        }
        if (collision::segment_triangle_intersect(p, r, cloth.V.row(cloth.F(f, 0)), cloth.V.row(cloth.F(f, 1)),
                                                  cloth.V.row(cloth.F(f, 2))))
          hit[e] = 1;
      });
    });
    q.self_intersections = static_cast<int>(std::count(hit.begin(), hit.end(), 1));
  }

  if (cloth.rest.rows() == nv && ne > 0) {
    double smax = -std::numeric_limits<double>::infinity(), ssum = 0;
    std::size_t counted = 0;
    for (std::size_t e = 0; e < ne; ++e) {
      const double rest = (cloth.rest.row(edges(e, 0)) - cloth.rest.row(edges(e, 1))).norm();
      if (!(rest > 0)) continue;
      const double s = (cloth.V.row(edges(e, 0)) - cloth.V.row(edges(e, 1))).norm() / rest - 1.0;
      smax = std::max(smax, s);
      ssum += s;
      ++counted;
    }
    if (counted > 0) {
      q.strain_max = smax;
      q.strain_mean = ssum / static_cast<double>(counted);
    }
  }

  if (cloth.previous) {
    int moving = 0;
    for (int v = 0; v < nv; ++v) moving += (cloth.V.row(v) - cloth.previous->row(v)).norm() > options.moving_threshold_m;
    q.moving_fraction = nv > 0 ? static_cast<double>(moving) / nv : 0.0;
    q.is_static = *q.moving_fraction < options.static_fraction;
  }
  return q;
}

}  // namespace tryon::quality
