#include "collision/normal_cone.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <cstdint>
#include <numeric>

#include "core/parallel.hpp"

namespace tryon::collision {
namespace {

double angle_between(const Vec3& a, const Vec3& b) {
  return std::atan2(a.cross(b).norm(), a.dot(b));
}

Vec3 tri_normal(ConstRef<Points3> V, ConstRef<Triangles> F, int t) {
  const Vec3 a = V.row(F(t, 0)), b = V.row(F(t, 1)), c = V.row(F(t, 2));
  return (b - a).cross(c - a);
}

NormalCone leaf_cone(ConstRef<Points3> V, ConstRef<Triangles> F, const int* tris, int n) {
  NormalCone cone;
  for (int i = 0; i < n; ++i) cone.sum += tri_normal(V, F, tris[i]);
  const double len = cone.sum.norm();
  if (len == 0) return cone;
  cone.axis = cone.sum / len;
  cone.half_angle = 0;
  if (n == 1) return cone;
  for (int i = 0; i < n; ++i) {
    const Vec3 nrm = tri_normal(V, F, tris[i]);
    if (nrm.squaredNorm() == 0) {  // a zero-area triangle has no normal: no cone
      cone.half_angle = 2 * std::numbers::pi;
      return cone;
    }
    cone.half_angle = std::max(cone.half_angle, angle_between(cone.axis, nrm));
  }
  return cone;
}

struct Edge2 {
  int v0, v1;
  double xmin, xmax;
  double reach;  ///< farthest projected motion of its ends
};

}  // namespace

template <class BV>
std::vector<NormalCone> normal_cones(const Bvh<BV>& bvh, ConstRef<Points3> V, ConstRef<Triangles> F) {
  const auto& nodes = bvh.nodes();
  std::vector<NormalCone> cones(nodes.size());
  for (int i = static_cast<int>(nodes.size()) - 1; i >= 0; --i) {
    const auto& node = nodes[i];
    if (node.is_leaf()) {
      cones[i] = leaf_cone(V, F, bvh.primitives().data() + node.begin, node.end - node.begin);
      continue;
    }
    const NormalCone& l = cones[i + 1];
    const NormalCone& r = cones[node.right];
    NormalCone c;
    c.sum = l.sum + r.sum;
    const double len = c.sum.norm();
    if (len > 0 && l.half_angle <= std::numbers::pi && r.half_angle <= std::numbers::pi) {
      c.axis = c.sum / len;
      c.half_angle = std::max(angle_between(c.axis, l.axis) + l.half_angle,
                              angle_between(c.axis, r.axis) + r.half_angle);
    }
    cones[i] = c;
  }
  return cones;
}

namespace {

// One closed loop: every contour vertex has degree 2 and a walk visits every edge.
bool one_loop(const Contour& contour, int max_contour_edges) {
  if (contour.empty() || static_cast<int>(contour.size()) > max_contour_edges) return false;
  std::vector<std::pair<int, int>> incid;  // (vertex, edge)
  for (int e = 0; e < static_cast<int>(contour.size()); ++e) {
    incid.push_back({contour[e][0], e});
    incid.push_back({contour[e][1], e});
  }
  std::sort(incid.begin(), incid.end());
  for (std::size_t i = 0; i < incid.size(); i += 2)
    if (i + 1 >= incid.size() || incid[i].first != incid[i + 1].first ||
        (i + 2 < incid.size() && incid[i + 2].first == incid[i].first))
      return false;
  auto other_edge = [&](int v, int e) {
    const auto it = std::lower_bound(incid.begin(), incid.end(), std::make_pair(v, -1));
    return it->second == e ? (it + 1)->second : it->second;
  };
  int e = 0, v = contour[0][1], steps = 1;
  while (v != contour[0][0]) {
    e = other_edge(v, e);
    v = contour[e][0] == v ? contour[e][1] : contour[e][0];
    if (++steps > static_cast<int>(contour.size())) return false;
  }
  return steps == static_cast<int>(contour.size());  // else several loops
}

}  // namespace

// The loop's projection on the plane orthogonal to `axis` has no two non-adjacent edges
// touching (sweep over x-intervals).
// With V1 (the contour moving linearly from V to V1), no two non-adjacent edges may touch at any
// time of the motion: each point of a projected edge moves at most as far as the farther of its
// ends (a convex combination of their motions), so two edges whose distance at the start exceeds
// the sum of those motions stay apart.
// With gap > 0, non-adjacent edges must moreover be more than gap apart (in the projection).
bool projected_contour_clear(ConstRef<Points3> V, const Points3* V1, const Contour& contour, const Vec3& axis,
                             double gap) {
  // Project on the plane orthogonal to the axis and look for touching non-adjacent edges
  // (sweep over x-intervals).
  const Vec3 u = axis.unitOrthogonal(), w = axis.cross(u);
  auto p2 = [&](int v) { return Eigen::Vector2d(u.dot(V.row(v)), w.dot(V.row(v))); };
  // Projected motion of a vertex (0 without V1).
  auto moved = [&](int v) {
    if (!V1) return 0.0;
    const Vec3 d = V1->row(v) - V.row(v);
    return Eigen::Vector2d(u.dot(d), w.dot(d)).norm();
  };
  std::vector<Edge2> es;
  es.reserve(contour.size());
  for (const auto& c : contour) {
    const double x0 = p2(c[0]).x(), x1 = p2(c[1]).x();
    const double reach = std::max(moved(c[0]), moved(c[1])) + 0.5 * gap;
    es.push_back({c[0], c[1], std::min(x0, x1) - reach, std::max(x0, x1) + reach, reach});
  }
  std::sort(es.begin(), es.end(), [](const Edge2& a, const Edge2& b) { return a.xmin < b.xmin; });
  for (std::size_t i = 0; i < es.size(); ++i)
    for (std::size_t j = i + 1; j < es.size() && es[j].xmin <= es[i].xmax; ++j) {
      const Edge2 &a = es[i], &b = es[j];
      if (a.v0 == b.v0 || a.v0 == b.v1 || a.v1 == b.v0 || a.v1 == b.v1) continue;
      const Vec3 pa(p2(a.v0).x(), p2(a.v0).y(), 0), qa(p2(a.v1).x(), p2(a.v1).y(), 0);
      const Vec3 pb(p2(b.v0).x(), p2(b.v0).y(), 0), qb(p2(b.v1).x(), p2(b.v1).y(), 0);
      if (!V1 && gap == 0) {
        if (segment_segment_intersect(pa, qa, pb, qb)) return false;
        continue;
      }
      double s, t;
      Vec3 ca, cb;
      const double apart = std::sqrt(closest_points_segments(pa, qa, pb, qb, &s, &t, &ca, &cb));
      // A relative 1e-9 more than the motions and the gap, for the rounding of the projections.
      const double scale = std::max({pa.cwiseAbs().maxCoeff(), qa.cwiseAbs().maxCoeff(), pb.cwiseAbs().maxCoeff(),
                                     qb.cwiseAbs().maxCoeff()});
      if (!(apart > a.reach + b.reach + 1e-9 * scale)) return false;
    }
  return true;
}

namespace {

bool simple_projected_loop(ConstRef<Points3> V, const Points3* V1, const Contour& contour, const Vec3& axis,
                           int max_contour_edges, double gap = 0) {
  return one_loop(contour, max_contour_edges) && projected_contour_clear(V, V1, contour, axis, gap);
}

}  // namespace

bool contour_is_simple(ConstRef<Points3> V, ConstRef<Triangles> F, const int* tris, int n,
                       const Vec3& axis, int max_contour_edges) {
  // Undirected edges with their use count inside the region: key = (min << 32 | max), slot.
  std::vector<std::pair<std::uint64_t, int>> edges;
  edges.reserve(3 * n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      const int a = F(tris[i], k), b = F(tris[i], (k + 1) % 3);
      if (a == b) return false;
      const auto lo = static_cast<std::uint64_t>(std::min(a, b)), hi = static_cast<std::uint64_t>(std::max(a, b));
      edges.push_back({lo << 32 | hi, i});
    }
  std::sort(edges.begin(), edges.end());
  // Union-find over the region's triangles through shared (interior) edges.
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<std::array<int, 2>> contour;
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i;
    while (j < edges.size() && edges[j].first == edges[i].first) ++j;
    const std::size_t count = j - i;
    if (count > 2) return false;  // non-manifold
    if (count == 1)
      contour.push_back({static_cast<int>(edges[i].first >> 32), static_cast<int>(edges[i].first & 0xffffffffu)});
    else
      parent[find(edges[i].second)] = find(edges[i + 1].second);
    i = j;
  }
  for (int i = 1; i < n; ++i)
    if (find(i) != find(0)) return false;  // not connected
  return simple_projected_loop(V, nullptr, contour, axis, max_contour_edges);
}

namespace {

// The boundary edges of a connected, manifold region, with the mesh's edge ids; false for
// other regions.
bool region_contour(ConstRef<Triangles> F, const int* tris, int n, const MeshTopology& topo, Contour& contour) {
  // O(n) with the mesh's edge ids: per edge, the first region triangle using it (-1 unseen,
  // -2 two triangles). A per-thread scratch array, reset before returning.
  thread_local std::vector<int> first;
  const auto num_edges = static_cast<std::size_t>(topo.edges.rows());
  if (first.size() < num_edges) first.assign(num_edges, -1);
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  bool manifold = true;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      if (F(tris[i], k) == F(tris[i], (k + 1) % 3)) manifold = false;
      int& f = first[topo.triangle_edges(tris[i], k)];
      if (f == -1) f = i;
      else if (f >= 0) {
        parent[find(i)] = find(f);
        f = -2;
      } else {
        manifold = false;  // a third triangle on one edge
      }
    }
  contour.clear();
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      const int e = topo.triangle_edges(tris[i], k);
      if (first[e] >= 0) contour.push_back({topo.edges(e, 0), topo.edges(e, 1)});
    }
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) first[topo.triangle_edges(tris[i], k)] = -1;
  if (!manifold) return false;
  for (int i = 1; i < n; ++i)
    if (find(i) != find(0)) return false;  // not connected
  return true;
}

// contour_is_simple with the mesh's edge ids; with V1, over the linear motion from V to V1.
bool contour_is_simple_topo(ConstRef<Points3> V, const Points3* V1, ConstRef<Triangles> F, const int* tris,
                            int n, const Vec3& axis, const MeshTopology& topo, int max_contour_edges,
                            double gap = 0) {
  Contour contour;
  if (!region_contour(F, tris, n, topo, contour)) return false;
  return simple_projected_loop(V, V1, contour, axis, max_contour_edges, gap);
}

}  // namespace

bool contour_is_simple(ConstRef<Points3> V, ConstRef<Triangles> F, const int* tris, int n,
                       const Vec3& axis, const MeshTopology& topo, int max_contour_edges) {
  return contour_is_simple_topo(V, nullptr, F, tris, n, axis, topo, max_contour_edges);
}

bool swept_contour_is_simple(const Points3& V0, const Points3& V1, ConstRef<Triangles> F, const int* tris, int n,
                             const Vec3& axis, const MeshTopology& topo, int max_contour_edges) {
  return contour_is_simple_topo(V0, &V1, F, tris, n, axis, topo, max_contour_edges);
}

std::vector<TriangleShape> triangle_shapes(ConstRef<Points3> V, ConstRef<Triangles> F) {
  std::vector<TriangleShape> shapes(static_cast<std::size_t>(F.rows()));
  parallel_for(shapes.size(), [&](std::size_t t) {
    const int i = static_cast<int>(t);
    const Vec3 a = V.row(F(i, 0)), b = V.row(F(i, 1)), c = V.row(F(i, 2));
    shapes[t].normal = (b - a).cross(c - a);
    shapes[t].longest_edge = std::sqrt(std::max({(b - a).squaredNorm(), (c - b).squaredNorm(), (a - c).squaredNorm()}));
  }, 2048);
  return shapes;
}

bool region_pairs_farther_than(ConstRef<Points3> V, ConstRef<Triangles> F, const std::vector<TriangleShape>& shapes,
                               const int* tris, int n, double d, const MeshTopology& topo, int max_contour_edges,
                               const Contour* loop) {
  // Seen along an axis, a triangle whose normal N makes an angle φ with it keeps at least
  // cos φ of each altitude: projected altitude >= 2 area cos φ / longest edge = N·axis / longest
  // edge. When every projected altitude is at least d and the projected contour is simple with
  // non-adjacent edges more than d apart, the region is a height field (so 3D distances are at
  // least the projected ones) whose projected vertex–triangle and edge–edge pairs, incident
  // ones left out, are at least d apart: the segment from a vertex to its closest point on a
  // triangle not using it leaves the vertex's fan across an opposite edge (at least an
  // altitude away) or leaves the region and comes back across a contour edge not adjacent to
  // one of the vertex's own; two edges without a common vertex are closest at an end of one.
  Vec3 axis = Vec3::Zero();
  for (int i = 0; i < n; ++i) axis += shapes[tris[i]].normal;
  if (axis.squaredNorm() == 0) return false;
  axis.normalize();
  for (int i = 0; i < n; ++i) {
    const TriangleShape& s = shapes[tris[i]];
    if (!(s.normal.dot(axis) > d * s.longest_edge * (1 + 1e-9))) return false;
  }
  if (loop) return projected_contour_clear(V, nullptr, *loop, axis, d);
  return contour_is_simple_topo(V, nullptr, F, tris, n, axis, topo, max_contour_edges, d);
}

NodeContours::NodeContours(const Bvh<Aabb>& bvh, ConstRef<Triangles> F, const MeshTopology& topo,
                           int max_contour_edges) {
  const auto& nodes = bvh.nodes();
  loops_.resize(nodes.size());
  has_.assign(nodes.size(), 0);
  parallel_for(nodes.size(), [&](std::size_t i) {
    Contour c;
    const auto& nd = nodes[i];
    if (nd.end - nd.begin > 1 && region_contour(F, bvh.primitives().data() + nd.begin, nd.end - nd.begin, topo, c) &&
        one_loop(c, max_contour_edges)) {
      loops_[i] = std::move(c);
      has_[i] = 1;
    }
  }, 16);
}

std::vector<SweptNormal> swept_normals(const Points3& V0, const Points3& V1, ConstRef<Triangles> F) {
  // n(t) = (e1 + t d1) x (e2 + t d2) = N0 + t (e1 x d2 + d1 x e2) + t² d1 x d2, in Bernstein form
  // (1-t)² B0 + 2t(1-t) B1 + t² B2 with B0 = N0, B1 = N0 + (e1 x d2 + d1 x e2) / 2, B2 = N1: every
  // n(t) is a combination of the three with weights >= 0.
  std::vector<SweptNormal> normals(static_cast<std::size_t>(F.rows()));
  parallel_for(normals.size(), [&](std::size_t t) {
    const int i = static_cast<int>(t);
    const Vec3 a0 = V0.row(F(i, 0)), b0 = V0.row(F(i, 1)), c0 = V0.row(F(i, 2));
    const Vec3 a1 = V1.row(F(i, 0)), b1 = V1.row(F(i, 1)), c1 = V1.row(F(i, 2));
    const Vec3 e1 = b0 - a0, e2 = c0 - a0, d1 = (b1 - a1) - e1, d2 = (c1 - a1) - e2;
    SweptNormal& B = normals[t];
    B[0] = e1.cross(e2);
    B[1] = B[0] + 0.5 * (e1.cross(d2) + d1.cross(e2));
    B[2] = (b1 - a1).cross(c1 - a1);
  }, 2048);
  return normals;
}

bool swept_cone_axis(const std::vector<SweptNormal>& normals, const int* tris, int n, Vec3& axis) {
  axis.setZero();
  for (int i = 0; i < n; ++i) axis += normals[tris[i]][0] + normals[tris[i]][2];
  if (axis.squaredNorm() == 0) return false;
  axis.normalize();
  for (int i = 0; i < n; ++i)
    for (const Vec3& b : normals[tris[i]])
      if (!(b.dot(axis) > 1e-9 * b.norm())) return false;
  return true;
}

template std::vector<NormalCone> normal_cones(const Bvh<Aabb>&, ConstRef<Points3>, ConstRef<Triangles>);
template std::vector<NormalCone> normal_cones(const Bvh<Sphere>&, ConstRef<Points3>, ConstRef<Triangles>);
template std::vector<NormalCone> normal_cones(const Bvh<Obb>&, ConstRef<Points3>, ConstRef<Triangles>);
template std::vector<NormalCone> normal_cones(const Bvh<SphereObb>&, ConstRef<Points3>, ConstRef<Triangles>);
template std::vector<NormalCone> normal_cones(const Bvh<SAabb>&, ConstRef<Points3>, ConstRef<Triangles>);

}  // namespace tryon::collision
