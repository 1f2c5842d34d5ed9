#pragma once
#include <limits>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace tryon {

/// A triangle mesh: positions and triangles, with optional per-vertex attributes.
struct TriMesh {
  Points3 V;    ///< |V|×3 vertex positions
  Triangles F;  ///< |F|×3 vertex indices, counter-clockwise seen from outside
  Points2 UV;   ///< |V|×2 texture coordinates, or empty

  int num_vertices() const { return static_cast<int>(V.rows()); }
  int num_triangles() const { return static_cast<int>(F.rows()); }
};

/// Axis-aligned bounds of a point set (min, max). Empty input gives min > max.
struct Bounds3 {
  Vec3 min = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 max = Vec3::Constant(-std::numeric_limits<double>::infinity());
  Vec3 extent() const { return max - min; }
};
Bounds3 bounds(ConstRef<Points3> V);

/// Throws InputError naming `what` if an index is out of range or a position is not finite.
void check_mesh(const TriMesh& mesh, const std::string& what);

/// Welds vertices closer than `tolerance` (in the mesh's unit; 0 = bit-identical positions
/// only), drops triangles that become degenerate (two equal indices). Returns the number of
/// vertices removed. Distinct vertices that merely lie close are merged only with tolerance > 0.
/// `kept` (optional) receives, per welded vertex, the index it had before.
int weld_vertices(TriMesh& mesh, double tolerance, std::vector<int>* kept = nullptr);

/// Edge statistics of a triangle mesh.
struct EdgeTopology {
  int edges = 0;               ///< distinct undirected edges
  int boundary_edges = 0;      ///< edges with one incident triangle
  int non_manifold_edges = 0;  ///< edges with three or more incident triangles
};
EdgeTopology edge_topology(ConstRef<Triangles> F);

/// Unique undirected edges of the triangles, |E|×2 with the smaller index first, sorted.
Segments unique_edges(ConstRef<Triangles> F);

/// Per-triangle unit normals (zero for degenerate triangles).
Points3 triangle_normals(ConstRef<Points3> V, ConstRef<Triangles> F);

/// Area-weighted per-vertex unit normals (sum of the incident triangles' area vectors
/// [Gouraud 1971]); a vertex with no area around it gets (0, 1, 0). |V|×3.
Points3 vertex_normals(ConstRef<Points3> V, ConstRef<Triangles> F);

/// Total surface area.
double surface_area(ConstRef<Points3> V, ConstRef<Triangles> F);

}  // namespace tryon
