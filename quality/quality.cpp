#include "quality/quality.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <utility>

#include "collision/bvh.hpp"
#include "collision/geometry.hpp"
#include "collision/surface_queries.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace tryon::quality {

using collision::Aabb;
using collision::Bvh;

bool Quality::clean() const {
  return body_intersections == 0 && vertices_inside_body == 0 && self_intersections == 0 &&
         seam_gap_max_m < kSeamGapClosed && is_static.value_or(false);
}


std::vector<double> winding_numbers(ConstRef<Points3> points, ConstRef<Points3> V, ConstRef<Triangles> F) {
  return collision::winding_numbers(points, V, F, Bvh<Aabb>(V, F));
}

namespace {

// The crossing edges (body_hit, self_hit: per edge, the triangle it meets or -1) grouped by
// the edge's panel and the panel of the triangle (or the body), most edges first, then by
// panels, so the order is the same on every run.
std::vector<Crossing> group_by_panel(const Cloth& cloth, const Segments& edges, const std::vector<int>& body_hit,
                                     const std::vector<int>& self_hit) {
  std::map<std::pair<int, int>, Crossing> groups;
  auto add = [&](std::size_t e, int panel, int other) {
    const std::pair<int, int> key(other < 0 ? panel : std::min(panel, other), other < 0 ? -1 : std::max(panel, other));
    Crossing& c = groups[key];
    c.panel = key.first;
    c.other = key.second;
    ++c.edges;
    c.at += (cloth.V.row(edges(e, 0)) + cloth.V.row(edges(e, 1))).transpose() / 2;
  };
  for (std::size_t e = 0; e < body_hit.size(); ++e)
    if (body_hit[e] >= 0) add(e, cloth.panel_of_vertex[edges(e, 0)], -1);
  for (std::size_t e = 0; e < self_hit.size(); ++e)
    if (self_hit[e] >= 0) add(e, cloth.panel_of_vertex[edges(e, 0)], cloth.panel_of_vertex[cloth.F(self_hit[e], 0)]);
  std::vector<Crossing> out;
  for (auto& [key, c] : groups) {
    c.at /= c.edges;
    out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(), [](const Crossing& a, const Crossing& b) { return a.edges > b.edges; });
  return out;
}

}  // namespace

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
  if (!cloth.panel_of_vertex.empty() && cloth.panel_of_vertex.size() != static_cast<std::size_t>(nv))
    throw InputError("cloth: the panel of each vertex does not match the vertices");

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

  // Per cloth edge, the first triangle of (V, F) it meets other than those `skip(triangle,
  // edge)` names, or -1.
  auto edges_meeting = [&](ConstRef<Points3> V, ConstRef<Triangles> F, const Bvh<Aabb>& bvh, auto&& skip) {
    std::vector<int> hit(ne, -1);
    parallel_for(ne, [&](std::size_t e) {
      const Vec3 p = cloth.V.row(edges(e, 0)), r = cloth.V.row(edges(e, 1));
      Aabb box;
      box.extend(p);
      box.extend(r);
      collision::for_each_triangle_near(bvh, box, [&](int f) {
        if (skip(f, e)) return true;
        if (!collision::segment_triangle_intersect(p, r, V.row(F(f, 0)), V.row(F(f, 1)), V.row(F(f, 2)))) return true;
        hit[e] = f;
        return false;  // the first hit settles the edge
      });
    });
    return hit;
  };
  auto count_hits = [](const std::vector<int>& hit) {
    return static_cast<int>(std::count_if(hit.begin(), hit.end(), [](int f) { return f >= 0; }));
  };
  std::vector<int> body_hit, self_hit;

  // Body intersections: cloth edges meeting the body surface.
  if (body.num_triangles() > 0) {
    const Bvh<Aabb> body_bvh(body.V, body.F);
    body_hit = edges_meeting(body.V, body.F, body_bvh, [](int, std::size_t) { return false; });
    q.body_intersections = count_hits(body_hit);
    const std::vector<double> w = collision::winding_numbers(cloth.V, body.V, body.F, body_bvh);
    q.vertices_inside_body = static_cast<int>(std::count_if(w.begin(), w.end(), [](double x) { return x >= 0.5; }));
  }

  // Self intersections: cloth edges meeting a cloth triangle they share no (sewn) vertex with.
  if (cloth.F.rows() > 0) {
    const Bvh<Aabb> cloth_bvh(cloth.V, cloth.F);
    self_hit = edges_meeting(cloth.V, cloth.F, cloth_bvh, [&](int f, std::size_t e) {
      const int a = root[edges(e, 0)], b = root[edges(e, 1)];
      for (int k = 0; k < 3; ++k) {
        const int t = root[cloth.F(f, k)];
        if (t == a || t == b) return true;
      }
      return false;
    });
    q.self_intersections = count_hits(self_hit);
  }
  if (!cloth.panel_of_vertex.empty()) q.crossings = group_by_panel(cloth, edges, body_hit, self_hit);

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
