#pragma once
// A bounding-volume hierarchy over the triangles of a mesh, stored as two flat arrays: nodes in
// depth-first pre-order (the left child of node i is i+1) and primitive (triangle) indices.
// The tree does not keep the mesh: every call takes V (|V|×3) and F (|F|×3).
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "collision/volumes.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace tryon::collision {

enum class SplitRule {
  Midpoint,  ///< middle of the longest axis of the centroid bounds (the papers); median if one side is empty
  Sah,       ///< binned surface-area heuristic (16 bins on each axis)
};

struct BvhConfig {
  int max_leaf_size = 1;                ///< triangles per leaf (the papers use 1)
  SplitRule split = SplitRule::Midpoint;
  int sphere_levels = 6;                ///< SphereObb: depths 0..sphere_levels-1 are tested as spheres
};

template <class BV>
class Bvh {
 public:
  struct Node {
    BV bv;
    int right = -1;  ///< right child index, -1 for a leaf (left child is always this index + 1)
    int begin = 0;   ///< primitives()[begin, end) are the node's triangles
    int end = 0;
    int depth = 0;
    bool is_leaf() const { return right < 0; }
  };

  Bvh() = default;
  Bvh(ConstRef<Points3> V, ConstRef<Triangles> F, const BvhConfig& config = {}) { build(V, F, config); }

  /// Top-down build. Throws InputError on out-of-range indices or non-finite positions.
  void build(ConstRef<Points3> V, ConstRef<Triangles> F, const BvhConfig& config = {});
  /// Explicit rebuild with the stored configuration (when the caller decides refit has degraded).
  void rebuild(ConstRef<Points3> V, ConstRef<Triangles> F) { build(V, F, config_); }
  /// Bottom-up refit after the vertices moved (same F). Mergeable volumes (Aabb) take the union
  /// of the two children; others are refitted to the node's triangles.
  void refit(ConstRef<Points3> V, ConstRef<Triangles> F);
  /// Bottom-up refit with caller-supplied leaf volumes, leaf_bv(const int* tris, int n) -> BV
  /// (mergeable volumes only); used for swept volumes.
  template <class LeafFn>
  void refit_with(LeafFn&& leaf_bv) {
    refit_leaves([&](Node& node) { node.bv = leaf_bv(prims_.data() + node.begin, node.end - node.begin); });
    merge_internal_nodes();
  }

  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<int>& primitives() const { return prims_; }
  const BvhConfig& config() const { return config_; }
  bool empty() const { return nodes_.empty(); }
  int num_triangles() const { return static_cast<int>(prims_.size()); }
  int height() const {
    int h = 0;
    for (const Node& n : nodes_) h = std::max(h, n.depth + 1);
    return h;
  }

  /// Every node's volume contains the vertices of all its triangles (within tol); for Aabb also
  /// the children's boxes. Used by the tests after refit.
  bool check_bounds(ConstRef<Points3> V, ConstRef<Triangles> F, double tol = 1e-12) const;

 private:
  int build_node(ConstRef<Points3> V, ConstRef<Triangles> F, std::vector<Vec3>& centroid,
                 std::vector<Aabb>& boxes, int begin, int end, int depth);
  void fit_node(int i, ConstRef<Points3> V, ConstRef<Triangles> F);
  // Refit, first half: fit(node) sets every leaf's volume, in parallel over runs of nodes (each
  // leaf depends only on its triangles).
  template <class FitLeaf>
  void refit_leaves(const FitLeaf& fit) {
    constexpr int kRun = 1024;
    const int n = static_cast<int>(nodes_.size());
    parallel_for(
        static_cast<std::size_t>((n + kRun - 1) / kRun),
        [&](std::size_t run) {
          const int end = std::min(n, (static_cast<int>(run) + 1) * kRun);
          for (int i = static_cast<int>(run) * kRun; i < end; ++i)
            if (nodes_[i].is_leaf()) fit(nodes_[i]);
        },
        4);
  }
  // Refit, second half: every internal node merges its children, bottom-up (children have
  // larger indices than their parent, so one reverse sweep).
  void merge_internal_nodes() {
    for (int i = static_cast<int>(nodes_.size()) - 1; i >= 0; --i) {
      Node& node = nodes_[i];
      if (!node.is_leaf()) node.bv = BV::merge(nodes_[i + 1].bv, nodes_[node.right].bv);
    }
  }

  std::vector<Node> nodes_;
  std::vector<int> prims_;
  BvhConfig config_;
  Eigen::Index num_vertices_ = 0;
};

template <class BV>
concept MergeableVolume = requires(const BV& a) {
  { BV::merge(a, a) } -> std::same_as<BV>;
};

void check_bvh_input(ConstRef<Points3> V, ConstRef<Triangles> F);

/// Index in [begin, end) where the split puts the boundary (reorders prims in place).
int split_primitives(std::vector<int>& prims, const std::vector<Vec3>& centroid,
                     const std::vector<Aabb>& boxes, int begin, int end, SplitRule rule);

template <class BV>
void Bvh<BV>::build(ConstRef<Points3> V, ConstRef<Triangles> F, const BvhConfig& config) {
  check_bvh_input(V, F);
  if (config.max_leaf_size < 1) throw InputError("BvhConfig.max_leaf_size must be at least 1");
  config_ = config;
  num_vertices_ = V.rows();
  nodes_.clear();
  const int n = static_cast<int>(F.rows());
  prims_.resize(n);
  for (int i = 0; i < n; ++i) prims_[i] = i;
  if (n == 0) return;
  std::vector<Vec3> centroid(n);
  std::vector<Aabb> boxes(n);
  for (int i = 0; i < n; ++i) {
    const int one = i;
    boxes[i] = Aabb::fit(V, F, &one, 1);
    centroid[i] = boxes[i].center();
  }
  nodes_.reserve(2 * n);
  build_node(V, F, centroid, boxes, 0, n, 0);
  for (int i = static_cast<int>(nodes_.size()) - 1; i >= 0; --i) fit_node(i, V, F);
}

template <class BV>
int Bvh<BV>::build_node(ConstRef<Points3> V, ConstRef<Triangles> F, std::vector<Vec3>& centroid,
                        std::vector<Aabb>& boxes, int begin, int end, int depth) {
  const int index = static_cast<int>(nodes_.size());
  nodes_.push_back(Node{});
  nodes_[index].begin = begin;
  nodes_[index].end = end;
  nodes_[index].depth = depth;
  if (end - begin <= config_.max_leaf_size) return index;
  const int mid = split_primitives(prims_, centroid, boxes, begin, end, config_.split);
  build_node(V, F, centroid, boxes, begin, mid, depth + 1);
  const int right = build_node(V, F, centroid, boxes, mid, end, depth + 1);
  nodes_[index].right = right;
  return index;
}

template <class BV>
void Bvh<BV>::fit_node(int i, ConstRef<Points3> V, ConstRef<Triangles> F) {
  Node& node = nodes_[i];
  if constexpr (MergeableVolume<BV>) {
    if (!node.is_leaf()) {
      node.bv = BV::merge(nodes_[i + 1].bv, nodes_[node.right].bv);
      return;
    }
  }
  node.bv = BV::fit(V, F, prims_.data() + node.begin, node.end - node.begin);
}

template <class BV>
void Bvh<BV>::refit(ConstRef<Points3> V, ConstRef<Triangles> F) {
  if (F.rows() != static_cast<Eigen::Index>(prims_.size()))
    throw InputError("Bvh::refit: the triangle count changed since the build; rebuild instead");
  if (V.rows() != num_vertices_)
    throw InputError("Bvh::refit: the vertex count changed since the build; rebuild instead");
  if constexpr (std::is_same_v<BV, Aabb>) {
    // Hot path of the cloth step: raw strided access, min/max of the leaf's corners, then the
    // 6 comparisons per internal node.
    const double* v = V.data();
    const int* f = F.data();
    const Eigen::Index vs = V.outerStride(), fs = F.outerStride();
    refit_leaves([&](Node& node) {
      double lo[3] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                      std::numeric_limits<double>::infinity()};
      double hi[3] = {-lo[0], -lo[0], -lo[0]};
      for (int p = node.begin; p < node.end; ++p)
        for (int k = 0; k < 3; ++k) {
          const double* x = v + vs * f[fs * prims_[p] + k];
          for (int c = 0; c < 3; ++c) {
            lo[c] = std::min(lo[c], x[c]);
            hi[c] = std::max(hi[c], x[c]);
          }
        }
      node.bv.lo = Vec3(lo[0], lo[1], lo[2]);
      node.bv.hi = Vec3(hi[0], hi[1], hi[2]);
    });
    merge_internal_nodes();
  } else {
    // Children have larger indices than their parent: one reverse sweep is bottom-up.
    for (int i = static_cast<int>(nodes_.size()) - 1; i >= 0; --i) fit_node(i, V, F);
  }
}

template <class BV>
bool Bvh<BV>::check_bounds(ConstRef<Points3> V, ConstRef<Triangles> F, double tol) const {
  for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
    const Node& node = nodes_[i];
    for (int p = node.begin; p < node.end; ++p)
      for (int k = 0; k < 3; ++k)
        if (!node.bv.contains(Vec3(V.row(F(prims_[p], k))), tol)) return false;
    if (!node.is_leaf()) {
      const Node& l = nodes_[i + 1];
      const Node& r = nodes_[node.right];
      if (l.begin != node.begin || r.end != node.end || l.end != r.begin) return false;
      if constexpr (std::is_same_v<BV, Aabb>) {
        if (!node.bv.contains(l.bv, tol) || !node.bv.contains(r.bv, tol)) return false;
      }
    }
  }
  return true;
}

}  // namespace tryon::collision
