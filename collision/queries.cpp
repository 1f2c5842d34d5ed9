#include "collision/queries.hpp"

#include <atomic>

#include "collision/normal_cone.hpp"
#include "collision/traverse.hpp"

namespace tryon::collision {
namespace {

struct NodePair {
  int a, b;
};

template <class BV>
bool node_overlap(const typename Bvh<BV>::Node& a, const typename Bvh<BV>::Node& b, const Pose& T,
                  int sphere_levels) {
  if constexpr (std::is_same_v<BV, SphereObb>)
    return overlap_levels(a.bv, a.depth, b.bv, b.depth, T, sphere_levels);
  else
    return overlap(a.bv, b.bv, T);
}

bool tri_tri(const Points3& VA, const Triangles& FA, int i, const Points3& VB, const Triangles& FB,
             int j, const Pose& T) {
  const Vec3 a0 = VA.row(FA(i, 0)), a1 = VA.row(FA(i, 1)), a2 = VA.row(FA(i, 2));
  const Vec3 b0 = T.apply(VB.row(FB(j, 0))), b1 = T.apply(VB.row(FB(j, 1))), b2 = T.apply(VB.row(FB(j, 2)));
  return triangles_intersect(a0, a1, a2, b0, b1, b2);
}

// Pushes the children pairs of (a, b), descending the node with more triangles.
template <class BV>
void push_children(const Bvh<BV>& A, const Bvh<BV>& B, const NodePair& t, std::vector<NodePair>& out) {
  const auto& na = A.nodes()[t.a];
  const auto& nb = B.nodes()[t.b];
  const bool descend_a = !na.is_leaf() && (nb.is_leaf() || na.end - na.begin >= nb.end - nb.begin);
  if (descend_a) {
    out.push_back({t.a + 1, t.b});
    out.push_back({na.right, t.b});
  } else {
    out.push_back({t.a, t.b + 1});
    out.push_back({t.a, nb.right});
  }
}

template <class Out>
Out concat(std::vector<Out>& outs) {
  Out all;
  std::size_t total = 0;
  for (const auto& o : outs) total += o.size();
  all.reserve(total);
  for (auto& o : outs) all.insert(all.end(), o.begin(), o.end());
  return all;
}

}  // namespace

template <class BV>
std::vector<TrianglePair> intersecting_pairs(const MeshBvh<BV>& A, const MeshBvh<BV>& B,
                                             const Rigid& b_in_a) {
  if (A.bvh.empty() || B.bvh.empty()) return {};
  const Pose T(b_in_a);
  const int levels = A.bvh.config().sphere_levels;
  using Out = std::vector<TrianglePair>;
  auto expand = [&](const NodePair& t, std::vector<NodePair>& children, Out& out) {
    const auto& na = A.bvh.nodes()[t.a];
    const auto& nb = B.bvh.nodes()[t.b];
    if (!node_overlap<BV>(na, nb, T, levels)) return;
    if (na.is_leaf() && nb.is_leaf()) {
      for (int p = na.begin; p < na.end; ++p)
        for (int q = nb.begin; q < nb.end; ++q) {
          const int i = A.bvh.primitives()[p], j = B.bvh.primitives()[q];
          if (tri_tri(A.V, A.F, i, B.V, B.F, j, T)) out.push_back({i, j});
        }
      return;
    }
    push_children(A.bvh, B.bvh, t, children);
  };
  std::vector<Out> outs;
  if constexpr (std::is_same_v<BV, SAabb>)
    outs = detail::breadth_first_levels<Out>(NodePair{0, 0}, expand);
  else
    outs = detail::depth_first_tasks<Out>(NodePair{0, 0}, expand);
  Out pairs = concat(outs);
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

template <class BV>
bool first_contact(const MeshBvh<BV>& A, const MeshBvh<BV>& B, const Rigid& b_in_a) {
  if (A.bvh.empty() || B.bvh.empty()) return false;
  const Pose T(b_in_a);
  const int levels = A.bvh.config().sphere_levels;
  std::atomic<bool> found{false};
  using Out = std::vector<char>;
  auto expand = [&](const NodePair& t, std::vector<NodePair>& children, Out&) {
    if (found.load(std::memory_order_relaxed)) return;
    const auto& na = A.bvh.nodes()[t.a];
    const auto& nb = B.bvh.nodes()[t.b];
    if (!node_overlap<BV>(na, nb, T, levels)) return;
    if (na.is_leaf() && nb.is_leaf()) {
      for (int p = na.begin; p < na.end; ++p)
        for (int q = nb.begin; q < nb.end; ++q)
          if (tri_tri(A.V, A.F, A.bvh.primitives()[p], B.V, B.F, B.bvh.primitives()[q], T)) {
            found.store(true, std::memory_order_relaxed);
            return;
          }
      return;
    }
    push_children(A.bvh, B.bvh, t, children);
  };
  if constexpr (std::is_same_v<BV, SAabb>)
    detail::breadth_first_levels<Out>(NodePair{0, 0}, expand);
  else
    detail::depth_first_tasks<Out>(NodePair{0, 0}, expand, 64);
  return found.load();
}

template <class BV>
SelfResult self_intersections(const MeshBvh<BV>& M, const SelfOptions& options) {
  SelfResult result;
  if (M.bvh.empty()) return result;
  const auto& nodes = M.bvh.nodes();
  const auto& prims = M.bvh.primitives();
  const Pose I;
  const int levels = M.bvh.config().sphere_levels;
  // Cone test of a node, computed when the node is visited: axis = sum of the area-weighted
  // normals, and every normal must make an angle below 90° with it [Volino & Magnenat-Thalmann
  // 1994]. Direct per node, so it is tighter than merging the children's cones and costs
  // nothing for the nodes a culled ancestor hides.
  auto cone_axis = [&](const auto& node, Vec3& axis) {
    axis.setZero();
    for (int p = node.begin; p < node.end; ++p) {
      const int t = prims[p];
      const Vec3 a = M.V.row(M.F(t, 0)), b = M.V.row(M.F(t, 1)), c = M.V.row(M.F(t, 2));
      axis += (b - a).cross(c - a);
    }
    if (axis.squaredNorm() == 0) return false;
    axis.normalize();
    for (int p = node.begin; p < node.end; ++p) {
      const int t = prims[p];
      const Vec3 a = M.V.row(M.F(t, 0)), b = M.V.row(M.F(t, 1)), c = M.V.row(M.F(t, 2));
      const Vec3 n = (b - a).cross(c - a);
      if (!(n.dot(axis) > 1e-9 * n.norm())) return false;
    }
    return true;
  };

  struct Out {
    std::vector<TrianglePair> pairs;
    long long culled = 0, culled_tris = 0, candidates = 0;
  };
  // A task (n, n) is a node against itself, (a, b) with a != b two disjoint subtrees.
  auto expand = [&](const NodePair& t, std::vector<NodePair>& children, Out& out) {
    const auto& na = nodes[t.a];
    if (t.a == t.b) {
      if (na.is_leaf()) {
        for (int p = na.begin; p < na.end; ++p)
          for (int q = p + 1; q < na.end; ++q) {
            const int i = std::min(prims[p], prims[q]), j = std::max(prims[p], prims[q]);
            if (!share_vertex(M.F, i, j) && tri_tri(M.V, M.F, i, M.V, M.F, j, I))
              out.pairs.push_back({i, j});
          }
        return;
      }
      Vec3 axis;
      if (options.normal_cones && cone_axis(na, axis)) {
        ++out.candidates;
        const bool simple =
            options.topology
                ? contour_is_simple(M.V, M.F, prims.data() + na.begin, na.end - na.begin, axis, *options.topology)
                : contour_is_simple(M.V, M.F, prims.data() + na.begin, na.end - na.begin, axis);
        if (simple) {
          ++out.culled;
          out.culled_tris += na.end - na.begin;
          return;
        }
      }
      children.push_back({t.a + 1, t.a + 1});
      children.push_back({na.right, na.right});
      children.push_back({t.a + 1, na.right});
      return;
    }
    const auto& nb = nodes[t.b];
    if (!node_overlap<BV>(na, nb, I, levels)) return;
    if (na.is_leaf() && nb.is_leaf()) {
      for (int p = na.begin; p < na.end; ++p)
        for (int q = nb.begin; q < nb.end; ++q) {
          const int i = std::min(prims[p], prims[q]), j = std::max(prims[p], prims[q]);
          if (!share_vertex(M.F, i, j) && tri_tri(M.V, M.F, i, M.V, M.F, j, I))
            out.pairs.push_back({i, j});
        }
      return;
    }
    push_children(M.bvh, M.bvh, t, children);
  };
  std::vector<Out> outs;
  if constexpr (std::is_same_v<BV, SAabb>)
    outs = detail::breadth_first_levels<Out>(NodePair{0, 0}, expand);
  else
    outs = detail::depth_first_tasks<Out>(NodePair{0, 0}, expand);
  for (auto& o : outs) {
    result.pairs.insert(result.pairs.end(), o.pairs.begin(), o.pairs.end());
    result.culled_nodes += o.culled;
    result.culled_triangles += o.culled_tris;
    result.cone_candidates += o.candidates;
  }
  std::sort(result.pairs.begin(), result.pairs.end());
  return result;
}

std::vector<TrianglePair> intersecting_pairs_brute_force(const Points3& VA, const Triangles& FA,
                                                         const Points3& VB, const Triangles& FB,
                                                         const Rigid& b_in_a) {
  const Pose T(b_in_a);
  std::vector<TrianglePair> out;
  for (int i = 0; i < FA.rows(); ++i)
    for (int j = 0; j < FB.rows(); ++j)
      if (tri_tri(VA, FA, i, VB, FB, j, T)) out.push_back({i, j});
  return out;
}

std::vector<TrianglePair> self_intersections_brute_force(const Points3& V, const Triangles& F) {
  const Pose I;
  std::vector<TrianglePair> out;
  for (int i = 0; i < F.rows(); ++i)
    for (int j = i + 1; j < F.rows(); ++j)
      if (!share_vertex(F, i, j) && tri_tri(V, F, i, V, F, j, I)) out.push_back({i, j});
  return out;
}

#define TRYON_INSTANTIATE(BV)                                                                       \
  template std::vector<TrianglePair> intersecting_pairs(const MeshBvh<BV>&, const MeshBvh<BV>&,    \
                                                        const Rigid&);                              \
  template bool first_contact(const MeshBvh<BV>&, const MeshBvh<BV>&, const Rigid&);                \
  template SelfResult self_intersections(const MeshBvh<BV>&, const SelfOptions&);
TRYON_INSTANTIATE(Aabb)
TRYON_INSTANTIATE(Sphere)
TRYON_INSTANTIATE(Obb)
TRYON_INSTANTIATE(SphereObb)
TRYON_INSTANTIATE(SAabb)
#undef TRYON_INSTANTIATE

}  // namespace tryon::collision
