#include "collision/proximity.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "collision/normal_cone.hpp"
#include "collision/traverse.hpp"
#include "core/parallel.hpp"
#include "core/trimesh.hpp"

namespace tryon::collision {

void refit_swept(Bvh<Aabb>& bvh, ConstRef<Points3> V0, ConstRef<Points3> V1, ConstRef<Triangles> F) {
  bvh.refit_with([&](const int* tris, int n) {
    Aabb box = Aabb::fit(V0, F, tris, n);
    box.extend(Aabb::fit(V1, F, tris, n));
    return box;
  });
}

void refit_inflated(Bvh<Aabb>& bvh, ConstRef<Points3> V, ConstRef<Triangles> F,
                    const Eigen::VectorXd& extra) {
  if (extra.size() != V.rows()) throw InputError("refit_inflated: one extra per vertex is needed");
  bvh.refit_with([&](const int* tris, int n) {
    Aabb box;
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) {
        const int v = F(tris[i], k);
        const Vec3 p = V.row(v);
        box.extend(Vec3(p.array() - extra[v]));
        box.extend(Vec3(p.array() + extra[v]));
      }
    return box;
  });
}

namespace {

struct NodePair {
  int a, b;
};

// Descends the pair trees with boxes inflated by `margin`; leaf(i, j, box_i, box_j, out) sees every
// triangle pair (i of A, j of B) whose boxes are within margin, with the boxes of their leaves
// (which bound them: the triangle's own box for one-triangle leaves, so the leaf functions need
// not compute it again); self: unordered pairs i != j, each once.
// self: cull(node) true skips the node against itself (a region that cannot touch itself).
template <class Out, class Leaf, class Cull = bool (*)(int)>
std::vector<Out> pair_traversal(const Bvh<Aabb>& A, const Bvh<Aabb>& B, double margin, bool self,
                                Leaf&& leaf, Cull&& cull = [](int) { return false; }) {
  if (A.empty() || B.empty()) return {};
  auto expand = [&](const NodePair& t, std::vector<NodePair>& children, Out& out) {
    const auto& na = A.nodes()[t.a];
    if (self && t.a == t.b) {
      if (!na.is_leaf() && cull(t.a)) return;
      if (na.is_leaf()) {
        for (int p = na.begin; p < na.end; ++p)
          for (int q = p + 1; q < na.end; ++q) leaf(A.primitives()[p], A.primitives()[q], na.bv, na.bv, out);
        return;
      }
      children.push_back({t.a + 1, t.a + 1});
      children.push_back({na.right, na.right});
      children.push_back({t.a + 1, na.right});
      return;
    }
    const auto& nb = B.nodes()[t.b];
    if (!overlap(na.bv, nb.bv, margin)) return;
    if (na.is_leaf() && nb.is_leaf()) {
      for (int p = na.begin; p < na.end; ++p)
        for (int q = nb.begin; q < nb.end; ++q) leaf(A.primitives()[p], B.primitives()[q], na.bv, nb.bv, out);
      return;
    }
    const bool descend_a = !na.is_leaf() && (nb.is_leaf() || na.end - na.begin >= nb.end - nb.begin);
    if (descend_a) {
      children.push_back({t.a + 1, t.b});
      children.push_back({na.right, t.b});
    } else {
      children.push_back({t.a, t.b + 1});
      children.push_back({t.a, nb.right});
    }
  };
  return detail::depth_first_tasks<Out>(NodePair{0, 0}, expand);
}

// A cache filled for other trees is cleared.
void bind_trees(LeafPairCache& cache, const Bvh<Aabb>& A, const Bvh<Aabb>& B) {
  if (cache.a_tree_ == &A && cache.b_tree_ == &B) return;
  cache.clear();
  cache.a_tree_ = &A;
  cache.b_tree_ = &B;
}

// The pairs of leaves of pair_traversal (A moving, B static, no self) from the remembered lists
// of `cache`: a leaf of A whose box left its grown box, or asked with a larger margin, looks its
// B leaves up again (one box down B's tree, with the grown box); then every remembered pair
// whose boxes are within margin is handed to leaf, as the traversal does. Parallel over fixed
// chunks of A's leaves, one output per chunk.
template <class Out, class Leaf>
std::vector<Out> cached_pair_traversal(const Bvh<Aabb>& A, const Bvh<Aabb>& B, double margin,
                                       LeafPairCache& cache, Leaf&& leaf) {
  if (A.empty() || B.empty()) return {};
  const auto& an = A.nodes();
  const auto& bn = B.nodes();
  bind_trees(cache, A, B);
  if (cache.leaves_.empty())
    for (int i = 0; i < static_cast<int>(an.size()); ++i)
      if (an[i].is_leaf()) cache.leaves_.push_back({i, Aabb{}, -1.0, {}});
  constexpr std::size_t kChunk = 64;
  const std::size_t num_leaves = cache.leaves_.size();
  const std::size_t chunks = (num_leaves + kChunk - 1) / kChunk;
  std::vector<Out> outs(chunks);
  std::vector<long long> lookups(chunks, 0);
  const double skin = cache.skin();
  parallel_for(
      chunks,
      [&](std::size_t c) {
        std::vector<int> stack;
        for (std::size_t l = c * kChunk; l < std::min(num_leaves, (c + 1) * kChunk); ++l) {
          LeafPairCache::Leaf& lf = cache.leaves_[l];
          const auto& na = an[lf.node];
          if (!(margin <= lf.margin && lf.grown.contains(na.bv))) {
            ++lookups[c];
            lf.grown = Aabb{Vec3(na.bv.lo.array() - skin), Vec3(na.bv.hi.array() + skin)};
            lf.margin = margin;
            lf.b_leaves.clear();
            stack.assign(1, 0);
            while (!stack.empty()) {
              const int b = stack.back();
              stack.pop_back();
              if (!overlap(lf.grown, bn[b].bv, margin)) continue;
              if (bn[b].is_leaf()) {
                lf.b_leaves.push_back(b);
              } else {
                stack.push_back(bn[b].right);
                stack.push_back(b + 1);
              }
            }
          }
          for (const int b : lf.b_leaves) {
            const auto& nb = bn[b];
            if (!overlap(na.bv, nb.bv, margin)) continue;
            for (int p = na.begin; p < na.end; ++p)
              for (int q = nb.begin; q < nb.end; ++q) leaf(A.primitives()[p], B.primitives()[q], na.bv, nb.bv, outs[c]);
          }
        }
      },
      2);
  for (long long n : lookups) cache.lookups_ += n;
  return outs;
}

bool vertex_in_triangle(const Triangles& F, int v, int t) {
  return F(t, 0) == v || F(t, 1) == v || F(t, 2) == v;
}

bool edges_share_vertex(const Segments& E, int a, int b) {
  return E(a, 0) == E(b, 0) || E(a, 0) == E(b, 1) || E(a, 1) == E(b, 0) || E(a, 1) == E(b, 1);
}

bool vt_hit(const Points3& VP, int v, const Points3& VT, const Triangles& FT, int t, double d,
            VertexTriangleHit& hit) {
  const Vec3 p = VP.row(v);
  const Vec3 a = VT.row(FT(t, 0)), b = VT.row(FT(t, 1)), c = VT.row(FT(t, 2));
  Vec3 w;
  const Vec3 x = closest_point_triangle(p, a, b, c, &w);
  const double dist = (p - x).norm();
  if (!(dist < d)) return false;
  hit.vertex = v;
  hit.triangle = t;
  hit.distance = dist;
  hit.bary = w;
  hit.point = x;
  if (dist > 0) hit.normal = (p - x) / dist;
  else {
    const Vec3 n = (b - a).cross(c - a);
    hit.normal = n.squaredNorm() > 0 ? Vec3(n.normalized()) : Vec3::Zero();
  }
  return true;
}

bool ee_hit(const Points3& VA, const Segments& EA, int ea, const Points3& VB, const Segments& EB, int eb,
            double d, EdgeEdgeHit& hit) {
  const Vec3 a0 = VA.row(EA(ea, 0)), a1 = VA.row(EA(ea, 1)), b0 = VB.row(EB(eb, 0)), b1 = VB.row(EB(eb, 1));
  double s, t;
  Vec3 pa, pb;
  const double d2 = closest_points_segments(a0, a1, b0, b1, &s, &t, &pa, &pb);
  if (!(d2 < d * d)) return false;
  hit.edge_a = ea;
  hit.edge_b = eb;
  hit.distance = std::sqrt(d2);
  hit.s = s;
  hit.t = t;
  hit.point_a = pa;
  hit.point_b = pb;
  if (hit.distance > 0) hit.normal = (pa - pb) / hit.distance;
  else {
    const Vec3 n = (a1 - a0).cross(b1 - b0);
    hit.normal = n.squaredNorm() > 0 ? Vec3(n.normalized()) : Vec3::Zero();
  }
  return true;
}

EdgeEdgeHit swapped(const EdgeEdgeHit& h) {
  EdgeEdgeHit s = h;
  std::swap(s.edge_a, s.edge_b);
  std::swap(s.s, s.t);
  std::swap(s.point_a, s.point_b);
  s.normal = -h.normal;
  return s;
}

struct ProxOut {
  std::vector<VertexTriangleHit> vt, tv;
  std::vector<EdgeEdgeHit> ee;
};

ProximityResult gather(std::vector<ProxOut>& outs) {
  ProximityResult r;
  for (auto& o : outs) {
    r.vertex_triangle.insert(r.vertex_triangle.end(), o.vt.begin(), o.vt.end());
    r.triangle_vertex.insert(r.triangle_vertex.end(), o.tv.begin(), o.tv.end());
    r.edge_edge.insert(r.edge_edge.end(), o.ee.begin(), o.ee.end());
  }
  std::sort(r.vertex_triangle.begin(), r.vertex_triangle.end());
  std::sort(r.triangle_vertex.begin(), r.triangle_vertex.end());
  std::sort(r.edge_edge.begin(), r.edge_edge.end());
  return r;
}

Aabb edge_box(const Points3& V, const Segments& E, int e) {
  Aabb b;
  b.extend(Vec3(V.row(E(e, 0))));
  b.extend(Vec3(V.row(E(e, 1))));
  return b;
}

// The box of every edge, once per query rather than once per pair of triangles it is in.
std::vector<Aabb> edge_boxes(const Points3& V, const Segments& E) {
  std::vector<Aabb> boxes(static_cast<std::size_t>(E.rows()));
  parallel_for(
      boxes.size(), [&](std::size_t e) { boxes[e] = edge_box(V, E, static_cast<int>(e)); }, 4096);
  return boxes;
}

// The plane of a triangle of A (unit normal n, offset n·a) and the farthest any of the pairs it
// takes part in may reach (see beyond_plane); reach < 0 for a degenerate triangle (no plane).
struct TrianglePlane {
  Vec3 n = Vec3::Zero();
  double offset = 0, reach = -1;
};

std::vector<TrianglePlane> triangle_planes(const ProximityMesh& A, const ProximityReach& r) {
  std::vector<TrianglePlane> planes(static_cast<std::size_t>(A.F.rows()));
  parallel_for(
      planes.size(),
      [&](std::size_t ti) {
        const auto i = static_cast<Eigen::Index>(ti);
        const Vec3 a = A.V.row(A.F(i, 0)), b = A.V.row(A.F(i, 1)), c = A.V.row(A.F(i, 2));
        const Vec3 n = (b - a).cross(c - a);
        const double len = n.norm();
        if (!(len > 0)) return;
        TrianglePlane& p = planes[ti];
        p.n = n / len;
        p.offset = p.n.dot(a);
        p.reach = std::max(r.b_vertices, r.edges);
        for (int k = 0; k < 3; ++k)
          p.reach = std::max(p.reach, r.a_extra ? r.a_vertices + (*r.a_extra)[A.F(i, k)] : r.a_vertices);
      },
      4096);
  return planes;
}

// Whether triangle j of B lies on one side of a triangle's plane, farther from it than the reach
// of the pairs: then no point of the two triangles is within reach of the other (the distance
// from a point of the plane to a point of j is at least the latter's distance from the plane).
// A large triangle of a coarse cloth has a box that overlaps many body triangles below its plane.
bool beyond_plane(const TrianglePlane& p, const ProximityMesh& B, int j) {
  if (p.reach < 0) return false;
  const double margin = p.reach + 1e-12;  // a picometre more than the reach, for the rounding
  int above = 0, below = 0;
  for (int k = 0; k < 3; ++k) {
    const double h = p.n.dot(Vec3(B.V.row(B.F(j, k)))) - p.offset;
    above += h > margin;
    below += h < -margin;
  }
  return above == 3 || below == 3;
}

// Pairs contributed by the triangle pair (i of A, j of B); self: i != j of one mesh. box_i and
// box_j bound the two triangles; inflated by the reach, boxes filter the pairs before the
// closest-point computations.
// planes: those of A's triangles (triangle_planes), to skip pairs beyond them (not for self).
// edges_a, edges_b: the boxes of A's and B's edges (edge_boxes), used when r.edges > 0.
void proximity_leaf(const ProximityMesh& A, const ProximityMesh& B, bool self, int i, int j,
                    const Aabb& box_i, const Aabb& box_j, const ProximityReach& r,
                    const std::vector<Aabb>& edges_a, const std::vector<Aabb>& edges_b, ProxOut& out,
                    const std::vector<TrianglePlane>* planes = nullptr) {
  if (planes && beyond_plane((*planes)[static_cast<std::size_t>(i)], B, j)) return;
  VertexTriangleHit vh;
  EdgeEdgeHit eh;
  for (int k = 0; k < 3; ++k) {
    const int v = A.F(i, k);
    const double reach_v = r.a_extra ? r.a_vertices + (*r.a_extra)[v] : r.a_vertices;
    if (reach_v > 0 && A.topo.vertex_owner[v] == i && !(self && vertex_in_triangle(B.F, v, j)) &&
        box_j.contains(Vec3(A.V.row(v)), reach_v) && vt_hit(A.V, v, B.V, B.F, j, reach_v, vh))
      out.vt.push_back(vh);
    const int w = B.F(j, k);
    if (r.b_vertices > 0 && B.topo.vertex_owner[w] == j && !(self && vertex_in_triangle(A.F, w, i)) &&
        box_i.contains(Vec3(B.V.row(w)), r.b_vertices) && vt_hit(B.V, w, A.V, A.F, i, r.b_vertices, vh))
      (self ? out.vt : out.tv).push_back(vh);
  }
  if (r.edges <= 0) return;
  const double d = r.edges;
  for (int k = 0; k < 3; ++k) {
    const int ea = A.topo.triangle_edges(i, k);
    if (A.topo.edge_owner[ea] != i) continue;
    const Aabb& box_a = edges_a[static_cast<std::size_t>(ea)];
    if (!overlap(box_a, box_j, d)) continue;
    for (int l = 0; l < 3; ++l) {
      const int eb = B.topo.triangle_edges(j, l);
      if (B.topo.edge_owner[eb] != j) continue;
      if (self && edges_share_vertex(A.topo.edges, ea, eb)) continue;
      if (!overlap(box_a, edges_b[static_cast<std::size_t>(eb)], d)) continue;
      if (ee_hit(A.V, A.topo.edges, ea, B.V, B.topo.edges, eb, d, eh))
        out.ee.push_back(self && ea > eb ? swapped(eh) : eh);
    }
  }
}

// NodeContours given with a mesh must be those of its tree.
void check_contours(const NodeContours* contours, const Bvh<Aabb>& bvh, const char* what) {
  if (contours && contours->size() != bvh.nodes().size())
    throw InputError(std::string(what) + ": the NodeContours are not those of this tree (" +
                     std::to_string(contours->size()) + " nodes, the tree has " + std::to_string(bvh.nodes().size()) + ")");
}

void check_margin(double d, const char* what) {
  if (!(d >= 0)) throw InputError(std::string(what) + ": the distance must be >= 0");
}

void check_reach(const ProximityReach& reach, const ProximityMesh& A, const char* what) {
  check_margin(reach.a_vertices, what);
  check_margin(reach.b_vertices, what);
  check_margin(reach.edges, what);
  if (reach.a_extra && (reach.a_extra->size() != A.V.rows() || !(reach.a_extra->array() >= 0).all()))
    throw InputError(std::string(what) + ": a_extra needs one distance >= 0 per vertex of A");
}

}  // namespace

ProximityResult proximity(const ProximityMesh& A, const ProximityMesh& B, double d) {
  return proximity(A, B, ProximityReach{d, d, d});  // which checks d
}

ProximityResult proximity(const ProximityMesh& A, const ProximityMesh& B, const ProximityReach& reach) {
  check_reach(reach, A, "proximity");
  // With a_extra, A's boxes hold each vertex's extra (refit_inflated): the base reach culls.
  const double margin = std::max({reach.a_vertices, reach.b_vertices, reach.edges});
  const std::vector<TrianglePlane> planes = triangle_planes(A, reach);
  const std::vector<Aabb> edges_a = reach.edges > 0 ? edge_boxes(A.V, A.topo.edges) : std::vector<Aabb>{};
  const std::vector<Aabb> edges_b = reach.edges > 0 ? edge_boxes(B.V, B.topo.edges) : std::vector<Aabb>{};
  auto outs = pair_traversal<ProxOut>(A.bvh, B.bvh, margin, false,
                                      [&](int i, int j, const Aabb& box_i, const Aabb& box_j, ProxOut& out) {
                                        proximity_leaf(A, B, false, i, j, box_i, box_j, reach, edges_a, edges_b,
                                                       out, &planes);
                                      });
  return gather(outs);
}

ProximityResult proximity(const ProximityMesh& A, const ProximityMesh& B, const ProximityReach& reach,
                          LeafPairCache& cache) {
  check_reach(reach, A, "proximity");
  const double margin = std::max({reach.a_vertices, reach.b_vertices, reach.edges});
  const std::vector<TrianglePlane> planes = triangle_planes(A, reach);
  const std::vector<Aabb> edges_a = reach.edges > 0 ? edge_boxes(A.V, A.topo.edges) : std::vector<Aabb>{};
  // B is static: its edges' boxes are kept with the cache (cleared with it).
  bind_trees(cache, A.bvh, B.bvh);
  if (reach.edges > 0 && cache.b_edge_boxes_.size() != static_cast<std::size_t>(B.topo.edges.rows()))
    cache.b_edge_boxes_ = edge_boxes(B.V, B.topo.edges);
  const std::vector<Aabb>& edges_b = cache.b_edge_boxes_;
  auto outs = cached_pair_traversal<ProxOut>(A.bvh, B.bvh, margin, cache,
                                             [&](int i, int j, const Aabb& box_i, const Aabb& box_j, ProxOut& out) {
                                               proximity_leaf(A, B, false, i, j, box_i, box_j, reach, edges_a, edges_b,
                                                              out, &planes);
                                             });
  return gather(outs);
}

ProximityResult self_proximity(const ProximityMesh& M, double d, bool normal_cones) {
  check_margin(d, "self_proximity");
  check_contours(M.contours, M.bvh, "self_proximity");
  // Regions flat enough for their pairs to be at least d apart are skipped (see
  // region_pairs_farther_than).
  const std::vector<TriangleShape> shapes = normal_cones ? triangle_shapes(M.V, M.F) : std::vector<TriangleShape>{};
  const auto& nodes = M.bvh.nodes();
  const int* prims = M.bvh.primitives().data();
  auto cull = [&](int node) {
    if (!normal_cones) return false;
    const auto& nd = nodes[node];
    const Contour* loop = M.contours ? M.contours->loop(node) : nullptr;
    if (M.contours && !loop) return false;
    return region_pairs_farther_than(M.V, M.F, shapes, prims + nd.begin, nd.end - nd.begin, d, M.topo, 4096, loop);
  };
  const std::vector<Aabb> edges = edge_boxes(M.V, M.topo.edges);
  auto outs = pair_traversal<ProxOut>(
      M.bvh, M.bvh, d, true,
      [&](int i, int j, const Aabb& box_i, const Aabb& box_j, ProxOut& out) {
        proximity_leaf(M, M, true, i, j, box_i, box_j, ProximityReach{d, d, d}, edges, edges, out);
      },
      cull);
  return gather(outs);
}

ProximityResult self_proximity_among(const ProximityMesh& M, const ProximityResult& candidates, double d) {
  check_margin(d, "self_proximity_among");
  ProximityResult r;
  VertexTriangleHit vh;
  for (const auto& c : candidates.vertex_triangle)
    if (vt_hit(M.V, c.vertex, M.V, M.F, c.triangle, d, vh)) r.vertex_triangle.push_back(vh);
  EdgeEdgeHit eh;
  for (const auto& c : candidates.edge_edge)
    if (ee_hit(M.V, M.topo.edges, c.edge_a, M.V, M.topo.edges, c.edge_b, d, eh)) r.edge_edge.push_back(eh);
  return r;
}

ProximityResult proximity_brute_force(const ProximityMesh& A, const ProximityMesh& B, double d) {
  return proximity_brute_force(A, B, ProximityReach{d, d, d});
}

ProximityResult proximity_brute_force(const ProximityMesh& A, const ProximityMesh& B,
                                      const ProximityReach& reach) {
  check_reach(reach, A, "proximity_brute_force");
  ProxOut o;
  VertexTriangleHit vh;
  EdgeEdgeHit eh;
  for (int v = 0; v < A.V.rows(); ++v) {
    const double d = reach.a_vertices + (reach.a_extra ? (*reach.a_extra)[v] : 0.0);
    if (A.topo.vertex_owner[v] >= 0)
      for (int t = 0; t < B.F.rows(); ++t)
        if (vt_hit(A.V, v, B.V, B.F, t, d, vh)) o.vt.push_back(vh);
  }
  for (int v = 0; v < B.V.rows(); ++v)
    if (B.topo.vertex_owner[v] >= 0)
      for (int t = 0; t < A.F.rows(); ++t)
        if (vt_hit(B.V, v, A.V, A.F, t, reach.b_vertices, vh)) o.tv.push_back(vh);
  for (int a = 0; a < A.topo.edges.rows(); ++a)
    for (int b = 0; b < B.topo.edges.rows(); ++b)
      if (ee_hit(A.V, A.topo.edges, a, B.V, B.topo.edges, b, reach.edges, eh)) o.ee.push_back(eh);
  std::vector<ProxOut> outs{o};
  return gather(outs);
}

ProximityResult self_proximity_brute_force(const ProximityMesh& M, double d) {
  ProxOut o;
  VertexTriangleHit vh;
  EdgeEdgeHit eh;
  for (int v = 0; v < M.V.rows(); ++v)
    if (M.topo.vertex_owner[v] >= 0)
      for (int t = 0; t < M.F.rows(); ++t)
        if (!vertex_in_triangle(M.F, v, t) && vt_hit(M.V, v, M.V, M.F, t, d, vh)) o.vt.push_back(vh);
  for (int a = 0; a < M.topo.edges.rows(); ++a)
    for (int b = a + 1; b < M.topo.edges.rows(); ++b)
      if (!edges_share_vertex(M.topo.edges, a, b) && ee_hit(M.V, M.topo.edges, a, M.V, M.topo.edges, b, d, eh))
        o.ee.push_back(eh);
  std::vector<ProxOut> outs{o};
  return gather(outs);
}

// ---- continuous ----
namespace {

struct CcdOut {
  std::vector<VertexFaceImpact> vf, fv;
  std::vector<EdgeEdgeImpact> ee;
};

Impact vf(const MovingMesh& P, int v, const MovingMesh& T, int t, double eta) {
  return vertex_face_ccd(P.V0.row(v), T.V0.row(T.F(t, 0)), T.V0.row(T.F(t, 1)), T.V0.row(T.F(t, 2)),
                         P.V1.row(v), T.V1.row(T.F(t, 0)), T.V1.row(T.F(t, 1)), T.V1.row(T.F(t, 2)), eta);
}

Impact ee(const MovingMesh& A, int ea, const MovingMesh& B, int eb, double eta) {
  const Segments& EA = A.topo.edges;
  const Segments& EB = B.topo.edges;
  return edge_edge_ccd(A.V0.row(EA(ea, 0)), A.V0.row(EA(ea, 1)), B.V0.row(EB(eb, 0)), B.V0.row(EB(eb, 1)),
                       A.V1.row(EA(ea, 0)), A.V1.row(EA(ea, 1)), B.V1.row(EB(eb, 0)), B.V1.row(EB(eb, 1)), eta);
}

// Box of vertex v over the motion (both ends).
Aabb swept_box(const MovingMesh& M, int v) {
  Aabb b;
  b.extend(Vec3(M.V0.row(v)));
  b.extend(Vec3(M.V1.row(v)));
  return b;
}

Aabb swept_box(const MovingMesh& M, std::initializer_list<int> vs) {
  Aabb b;
  for (int v : vs) b.extend(swept_box(M, v));
  return b;
}

// Whether triangle i of A stays on one side of the plane of triangle j of a static B, farther than
// eta, during the whole motion: then no part of the two comes within eta (a point moving on a
// segment stays on the side where both its ends are). Cloth resting on a body lies over the
// planes of the body's triangles, where the boxes of tilted triangles overlap.
bool apart_from_static_plane(const MovingMesh& A, int i, const MovingMesh& B, int j, double eta) {
  const Vec3 a = B.V0.row(B.F(j, 0)), b = B.V0.row(B.F(j, 1)), c = B.V0.row(B.F(j, 2));
  const Vec3 n = (b - a).cross(c - a);
  const double len = n.norm();
  if (!(len > 0)) return false;
  const double margin = (eta + 1e-12) * len;  // a picometre more than eta, for the rounding
  int above = 0, below = 0;
  for (const Points3* V : {&A.V0, &A.V1})
    for (int k = 0; k < 3; ++k) {
      const double h = n.dot(Vec3(V->row(A.F(i, k))) - a);
      above += h > margin;
      below += h < -margin;
    }
  return above == 6 || below == 6;
}

// Pairs contributed by the triangle pair (i of A, j of B), bounded over the motion by box_i and
// box_j. A pair whose boxes over the motion are farther apart than eta cannot come within eta
// (each point stays in its box), so the boxes filter the pairs before the cubic solves, as in
// proximity_leaf; against a static B, so does the plane of B's triangle.
void ccd_leaf(const MovingMesh& A, const MovingMesh& B, bool self, int i, int j, const Aabb& box_i,
              const Aabb& box_j, double eta, CcdOut& out) {
  if (!self && &B.V0 == &B.V1 && apart_from_static_plane(A, i, B, j, eta)) return;
  for (int k = 0; k < 3; ++k) {
    const int v = A.F(i, k);
    if (A.topo.vertex_owner[v] == i && !(self && vertex_in_triangle(B.F, v, j)) &&
        overlap(swept_box(A, v), box_j, eta)) {
      const Impact im = vf(A, v, B, j, eta);
      if (im.hit) out.vf.push_back({v, j, im});
    }
    const int w = B.F(j, k);
    if (B.topo.vertex_owner[w] == j && !(self && vertex_in_triangle(A.F, w, i)) &&
        overlap(swept_box(B, w), box_i, eta)) {
      const Impact im = vf(B, w, A, i, eta);
      if (im.hit) (self ? out.vf : out.fv).push_back({w, i, im});
    }
  }
  for (int k = 0; k < 3; ++k) {
    const int ea = A.topo.triangle_edges(i, k);
    if (A.topo.edge_owner[ea] != i) continue;
    const Aabb box_a = swept_box(A, {A.topo.edges(ea, 0), A.topo.edges(ea, 1)});
    if (!overlap(box_a, box_j, eta)) continue;
    for (int l = 0; l < 3; ++l) {
      const int eb = B.topo.triangle_edges(j, l);
      if (B.topo.edge_owner[eb] != j) continue;
      if (self && edges_share_vertex(A.topo.edges, ea, eb)) continue;
      if (!overlap(box_a, swept_box(B, {B.topo.edges(eb, 0), B.topo.edges(eb, 1)}), eta)) continue;
      if (self && ea > eb) {
        const Impact im = ee(B, eb, A, ea, eta);
        if (im.hit) out.ee.push_back({eb, ea, im});
      } else {
        const Impact im = ee(A, ea, B, eb, eta);
        if (im.hit) out.ee.push_back({ea, eb, im});
      }
    }
  }
}

ContinuousResult gather(std::vector<CcdOut>& outs) {
  ContinuousResult r;
  for (auto& o : outs) {
    r.vertex_face.insert(r.vertex_face.end(), o.vf.begin(), o.vf.end());
    r.face_vertex.insert(r.face_vertex.end(), o.fv.begin(), o.fv.end());
    r.edge_edge.insert(r.edge_edge.end(), o.ee.begin(), o.ee.end());
  }
  std::sort(r.vertex_face.begin(), r.vertex_face.end());
  std::sort(r.face_vertex.begin(), r.face_vertex.end());
  std::sort(r.edge_edge.begin(), r.edge_edge.end());
  return r;
}

}  // namespace

ContinuousResult continuous_collisions(const MovingMesh& A, const MovingMesh& B, double eta) {
  check_margin(eta, "continuous_collisions");
  auto outs = pair_traversal<CcdOut>(A.swept_bvh, B.swept_bvh, eta, false,
                                     [&](int i, int j, const Aabb& box_i, const Aabb& box_j, CcdOut& out) {
                                       ccd_leaf(A, B, false, i, j, box_i, box_j, eta, out);
                                     });
  return gather(outs);
}

ContinuousResult continuous_collisions(const MovingMesh& A, const MovingMesh& B, double eta, LeafPairCache& cache) {
  check_margin(eta, "continuous_collisions");
  auto outs = cached_pair_traversal<CcdOut>(A.swept_bvh, B.swept_bvh, eta, cache,
                                            [&](int i, int j, const Aabb& box_i, const Aabb& box_j, CcdOut& out) {
                                              ccd_leaf(A, B, false, i, j, box_i, box_j, eta, out);
                                            });
  return gather(outs);
}

ContinuousResult continuous_self_collisions(const MovingMesh& M, double eta, bool normal_cones) {
  check_margin(eta, "continuous_self_collisions");
  check_contours(M.contours, M.swept_bvh, "continuous_self_collisions");
  // A region that stays a height field over some plane during the motion cannot touch itself
  // [Volino & Magnenat-Thalmann 1994, over the motion]: its pairs are not tested.
  const auto& nodes = M.swept_bvh.nodes();
  const int* prims = M.swept_bvh.primitives().data();
  const std::vector<SweptNormal> normals = normal_cones ? swept_normals(M.V0, M.V1, M.F) : std::vector<SweptNormal>{};
  auto cull = [&](int node) {
    if (!normal_cones) return false;
    const auto& nd = nodes[node];
    const Contour* loop = M.contours ? M.contours->loop(node) : nullptr;
    if (M.contours && !loop) return false;
    Vec3 axis;
    if (!swept_cone_axis(normals, prims + nd.begin, nd.end - nd.begin, axis)) return false;
    return loop ? projected_contour_clear(M.V0, &M.V1, *loop, axis)
                : swept_contour_is_simple(M.V0, M.V1, M.F, prims + nd.begin, nd.end - nd.begin, axis, M.topo);
  };
  auto outs = pair_traversal<CcdOut>(
      M.swept_bvh, M.swept_bvh, eta, true,
      [&](int i, int j, const Aabb& box_i, const Aabb& box_j, CcdOut& out) {
        ccd_leaf(M, M, true, i, j, box_i, box_j, eta, out);
      },
      cull);
  return gather(outs);
}

}  // namespace tryon::collision
