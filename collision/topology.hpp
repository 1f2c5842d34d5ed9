#pragma once
// Edge topology of a triangle mesh, shared by the proximity, continuous and self queries.
#include <vector>

#include "core/types.hpp"

namespace tryon::collision {

/// Edges of a triangle mesh and the owner triangle of every vertex and edge.
struct MeshTopology {
  Segments edges;                ///< |E|×2 unique edges, smaller index first, sorted (= unique_edges(F))
  Triangles triangle_edges;      ///< |F|×3 edge ids: edge k joins F(i,k) and F(i,(k+1)%3)
  std::vector<int> vertex_owner;  ///< |V| owner triangle, -1 for unused vertices
  std::vector<int> edge_owner;    ///< |E| owner triangle
  static MeshTopology build(ConstRef<Triangles> F, int num_vertices);
};

}  // namespace tryon::collision
