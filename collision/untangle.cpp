#include "collision/untangle.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "collision/geometry.hpp"
#include "collision/surface_queries.hpp"
#include "core/parallel.hpp"

namespace tryon::collision {

Vec3 contour_shortening_direction(const Vec3& p, const Vec3& q, std::span<const Vec3> far, const Vec3& a,
                                  const Vec3& b, const Vec3& c) {
  const Vec3 n_raw = (b - a).cross(c - a);
  const Vec3 e_raw = q - p;
  if (n_raw.norm() == 0 || e_raw.norm() == 0) return Vec3::Zero();
  const Vec3 N = n_raw.normalized(), E = e_raw.normalized();
  const double en = E.dot(N);
  if (std::abs(en) < 1e-9) return Vec3::Zero();  // the edge lies in the triangle's plane
  Vec3 G = Vec3::Zero();
  for (const Vec3& f : far) {
    const Vec3 nh = (q - p).cross(f - p);  // the edge's triangle (p, q, f), either facing
    Vec3 R = N.cross(nh);
    if (R.norm() <= 1e-12 * nh.norm()) continue;  // the sheets are parallel here
    R.normalize();
    const Vec3 into = (f - p) - (f - p).dot(E) * E;  // from the edge into the triangle h
    if (R.dot(into) < 0) R = -R;
    G += R - 2.0 * E.dot(R) / en * N;
  }
  const double len = G.norm();
  return len > 0 ? Vec3(G / len) : Vec3::Zero();
}

namespace {

// Where segment pq crosses the plane of abc, as the segment's parameter and the triangle's
// barycentric weights (clamped into the triangle: the crossing is known to be inside it).
void crossing_point(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c, double& s,
                    Vec3& bary) {
  const Vec3 n = (b - a).cross(c - a);
  const double dp = n.dot(p - a), dq = n.dot(q - a);
  s = dp == dq ? 0.5 : std::clamp(dp / (dp - dq), 0.0, 1.0);
  const Vec3 x = p + s * (q - p);
  const double area = n.squaredNorm();
  if (area == 0) {
    bary = Vec3::Constant(1.0 / 3);
    return;
  }
  bary = Vec3(n.dot((c - b).cross(x - b)), n.dot((a - c).cross(x - c)), n.dot((b - a).cross(x - a))) / area;
  bary = bary.cwiseMax(0.0);
  const double sum = bary.sum();
  bary = sum > 0 ? Vec3(bary / sum) : Vec3::Constant(1.0 / 3);
}

}  // namespace

std::vector<EdgeThroughTriangle> edges_through_triangles(ConstRef<Points3> x, ConstRef<Triangles> F,
                                                         const MeshTopology& topo, const Bvh<Aabb>& bvh,
                                                         const std::function<bool(int, int)>& skip) {
  const Eigen::Index ne = topo.edges.rows();
  // The far corner of each triangle that has the edge (at most two on a manifold).
  std::vector<std::vector<int>> far(static_cast<std::size_t>(ne));
  for (Eigen::Index f = 0; f < F.rows(); ++f)
    for (int k = 0; k < 3; ++k) far[topo.triangle_edges(f, k)].push_back(F(f, (k + 2) % 3));
  std::vector<std::vector<EdgeThroughTriangle>> found(static_cast<std::size_t>(ne));
  parallel_for(static_cast<std::size_t>(ne), [&](std::size_t e) {
    const int i = topo.edges(e, 0), j = topo.edges(e, 1);
    const Vec3 p = x.row(i), q = x.row(j);
    Aabb box;
    box.extend(p);
    box.extend(q);
    std::vector<Vec3> corners;
    for (int v : far[e]) corners.push_back(x.row(v));
    for_each_triangle_near(bvh, box, [&](int f) {
      const int t0 = F(f, 0), t1 = F(f, 1), t2 = F(f, 2);
      if (i == t0 || i == t1 || i == t2 || j == t0 || j == t1 || j == t2) return true;
      if (skip && skip(static_cast<int>(e), f)) return true;
      const Vec3 a = x.row(t0), b = x.row(t1), c = x.row(t2);
      if (!segment_triangle_intersect(p, q, a, b, c)) return true;
      EdgeThroughTriangle hit;
      hit.edge = static_cast<int>(e);
      hit.triangle = f;
      crossing_point(p, q, a, b, c, hit.s, hit.bary);
      hit.direction = contour_shortening_direction(p, q, corners, a, b, c);
      found[e].push_back(hit);
      return true;
    });
    std::sort(found[e].begin(), found[e].end(), [](const auto& l, const auto& r) { return l.triangle < r.triangle; });
  });
  std::vector<EdgeThroughTriangle> out;
  for (auto& hits : found) out.insert(out.end(), hits.begin(), hits.end());
  return out;
}

Points3 untangling_directions(int num_vertices, ConstRef<Triangles> F, const MeshTopology& topo,
                              const std::vector<EdgeThroughTriangle>& crossings) {
  Points3 d = Points3::Zero(num_vertices, 3);
  for (const auto& h : crossings) {
    const Vec3 g = h.direction;
    d.row(topo.edges(h.edge, 0)) += ((1 - h.s) * g).transpose();
    d.row(topo.edges(h.edge, 1)) += (h.s * g).transpose();
    for (int k = 0; k < 3; ++k) d.row(F(h.triangle, k)) -= (h.bary[k] * g).transpose();
  }
  for (int v = 0; v < num_vertices; ++v) {
    const double len = d.row(v).norm();
    if (len > 1) d.row(v) /= len;
  }
  return d;
}

Points3 wrong_side_directions(ConstRef<Points3> x, ConstRef<Triangles> F, const MeshTopology& topo,
                              const std::vector<EdgeThroughTriangle>& crossings, std::span<const int> group) {
  const int n = static_cast<int>(x.rows());
  Points3 out = Points3::Zero(n, 3);
  if (crossings.empty()) return out;
  if (group.size() != static_cast<std::size_t>(n))
    throw std::invalid_argument("wrong_side_directions: one group entry per vertex");
  std::vector<char> cut(static_cast<std::size_t>(topo.edges.rows()), 0);
  for (const auto& h : crossings) cut[h.edge] = 1;
  // Components by union-find over the groups and the uncut edges.
  std::vector<int> root(n);
  for (int v = 0; v < n; ++v) root[v] = v;
  auto find = [&](int v) {
    while (root[v] != v) v = root[v] = root[root[v]];
    return v;
  };
  auto join = [&](int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) root[std::max(a, b)] = std::min(a, b);
  };
  for (int v = 0; v < n; ++v) join(v, group[v]);
  for (Eigen::Index e = 0; e < topo.edges.rows(); ++e)
    if (!cut[e]) join(topo.edges(e, 0), topo.edges(e, 1));
  std::vector<int> size(n, 0);
  for (int v = 0; v < n; ++v) ++size[find(v)];
  // Per region (the smaller side of a cut edge that joins two components): Σ of its turned normals.
  std::vector<Vec3> sum(n, Vec3::Zero());
  std::vector<char> region(n, 0);
  for (const auto& h : crossings) {
    const int p = topo.edges(h.edge, 0), q = topo.edges(h.edge, 1);
    const int cp = find(p), cq = find(q);
    if (cp == cq || size[cp] == size[cq]) continue;
    const bool p_small = size[cp] < size[cq];
    const int inside = p_small ? p : q, outside = p_small ? q : p;
    const Vec3 a = x.row(F(h.triangle, 0)), b = x.row(F(h.triangle, 1)), c = x.row(F(h.triangle, 2));
    Vec3 nrm = (b - a).cross(c - a);
    if (nrm.norm() == 0) continue;
    nrm.normalize();
    if (nrm.dot(Vec3(x.row(outside) - x.row(inside))) < 0) nrm = -nrm;
    const int r = find(inside);
    region[r] = 1;
    sum[r] += nrm;
  }
  for (int v = 0; v < n; ++v) {
    const int r = find(v);
    if (!region[r] || sum[r].norm() < 1e-9) continue;
    out.row(v) = sum[r].normalized().transpose();
  }
  return out;
}

}  // namespace tryon::collision
