#pragma once
// Exact intersection queries over BVHs (any volume type). Results are sorted, so they do not
// depend on the number of threads. Triangles intersect as closed sets (see geometry.hpp).
#include <compare>
#include <vector>

#include "collision/bvh.hpp"
#include "collision/topology.hpp"

namespace tryon::collision {

/// A pair of triangle indices (into mesh A and mesh B, or both into one mesh with a < b).
struct TrianglePair {
  int a = 0;
  int b = 0;
  auto operator<=>(const TrianglePair&) const = default;
};

/// A mesh with its hierarchy, as the queries read it (non-owning views).
template <class BV>
struct MeshBvh {
  const Points3& V;  ///< |V|×3 positions in the mesh's own frame
  const Triangles& F;  ///< |F|×3 triangles
  const Bvh<BV>& bvh;  ///< built (or refitted) on V, F
};

/// All intersecting triangle pairs (a in A, b in B) with B placed by `b_in_a` (x_A = R x_B + t).
/// SAabb trees are traversed breadth-first by levels, the others depth-first per task.
template <class BV>
std::vector<TrianglePair> intersecting_pairs(const MeshBvh<BV>& A, const MeshBvh<BV>& B,
                                             const Rigid& b_in_a = {});

/// Whether any triangle of A intersects any triangle of B (stops at the first hit).
template <class BV>
bool first_contact(const MeshBvh<BV>& A, const MeshBvh<BV>& B, const Rigid& b_in_a = {});

struct SelfOptions {
  bool normal_cones = true;  ///< cull regions that cannot self-intersect [Volino & Magnenat-Thalmann 1994]
  const MeshTopology* topology = nullptr;  ///< optional: makes the contour test O(n) (no sort)
};

struct SelfResult {
  std::vector<TrianglePair> pairs;  ///< intersecting pairs a < b that share no vertex, sorted
  long long culled_nodes = 0;       ///< node self-pairs (n, n) skipped by the normal-cone test
  long long culled_triangles = 0;   ///< triangles under those nodes (their self tests were skipped)
  long long cone_candidates = 0;    ///< nodes whose cone passed (< 90°) and whose contour was tested
};

/// Self intersections of one (deforming) mesh; triangles sharing a vertex are excluded.
template <class BV>
SelfResult self_intersections(const MeshBvh<BV>& M, const SelfOptions& options = {});

/// The brute-force references the tests compare with (O(|F_A| |F_B|)).
std::vector<TrianglePair> intersecting_pairs_brute_force(const Points3& VA, const Triangles& FA,
                                                         const Points3& VB, const Triangles& FB,
                                                         const Rigid& b_in_a = {});
std::vector<TrianglePair> self_intersections_brute_force(const Points3& V, const Triangles& F);

/// Whether triangles i and j of F share a vertex.
inline bool share_vertex(const Triangles& F, int i, int j) {
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      if (F(i, a) == F(j, b)) return true;
  return false;
}

}  // namespace tryon::collision
