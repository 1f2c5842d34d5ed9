#pragma once
// Untangling a mesh that passes through itself by intersection contour minimization (ICM)
// [Volino & Magnenat-Thalmann 2006, "Resolving surface collisions through intersection contour
// minimization"], with the factor 2 of the normal term corrected by [Ye & Zhao 2012, "The
// intersection contour minimization method for untangling oriented deformable surfaces"].
//
// Where two sheets of the mesh cross, they meet along a closed (or border-to-border) contour.
// At each point where an edge passes through a triangle, moving the edge's sheet against the
// triangle's sheet along a direction G shortens the contour; a contour shrunk to nothing is an
// intersection undone. No side has to be told from the other, so it works on tangles left by
// any earlier step, where history-based collision handling cannot help. Where a contour cuts a
// region of the mesh off, the region as a whole can be moved back through instead
// (wrong_side_directions, after [Baraff, Witkin & Kass 2003]).
#include <functional>
#include <span>
#include <vector>

#include "collision/bvh.hpp"
#include "collision/topology.hpp"

namespace tryon::collision {

/// An edge of a mesh passing through one of its triangles.
struct EdgeThroughTriangle {
  int edge = -1;                   ///< row of MeshTopology::edges
  int triangle = -1;
  double s = 0;                    ///< crossing point = (1 − s) x[edges(edge,0)] + s x[edges(edge,1)]
  Vec3 bary = Vec3::Zero();        ///< … = the triangle's corners weighted by bary
  Vec3 direction = Vec3::Zero();   ///< unit G: move the edge's side this way against the triangle's
                                   ///< side; zero where undefined (edge in the triangle's plane)
};

/// G at the point where edge pq passes through triangle abc. `far` holds the far corner of each
/// triangle that has the edge (one on a border, two inside). With N the triangle's unit normal,
/// E the edge's unit direction, and per triangle h of the edge R_h the unit direction of the
/// contour into h (N × N_h, turned towards h's far corner):
///     G = Σ_h (R_h − 2 (E·R_h) / (E·N) N),   returned unit length (zero when undefined).
/// Σ_h R_h moves the crossing towards the inside of the contour's bend; the normal term is what
/// moving the sheets apart along N does to the crossing on the edge.
Vec3 contour_shortening_direction(const Vec3& p, const Vec3& q, std::span<const Vec3> far, const Vec3& a,
                                  const Vec3& b, const Vec3& c);

/// Every edge that passes through a triangle it shares no vertex with, except the pairs
/// skip(edge, triangle) names (e.g. sheets that meet at a seam by design), sorted by edge, then
/// triangle, each with its G. `bvh` is the tree of (x, F), up to date.
std::vector<EdgeThroughTriangle> edges_through_triangles(ConstRef<Points3> x, ConstRef<Triangles> F,
                                                         const MeshTopology& topo, const Bvh<Aabb>& bvh,
                                                         const std::function<bool(int edge, int triangle)>& skip = {});

/// Per vertex, the direction that untangles, at most unit length: an edge's ends move along the
/// G of its crossings, a triangle's corners against it, each by its weight at the crossing
/// (1 − s and s on the edge, the barycentric weights on the triangle), summed and capped at 1.
/// Zero for vertices in no crossing.
Points3 untangling_directions(int num_vertices, ConstRef<Triangles> F, const MeshTopology& topo,
                              const std::vector<EdgeThroughTriangle>& crossings);

/// Regions of the mesh on the wrong side of a sheet they pass through, after the global
/// intersection analysis of [Baraff, Witkin & Kass 2003, "Untangling cloth"], simplified: no
/// contour is traced, the mesh is cut instead. Cut every edge that passes
/// through a triangle: the vertices fall into components (vertices with the same `group` entry
/// count as one, e.g. sewn seam partners). Where a cut edge joins two components, a contour of
/// the crossing (closed, or closed by the mesh's border) cuts the smaller one off: that region
/// lies through the other sheet, and moving all of it back through undoes the crossing however
/// far it reaches, where contour minimization shrinks a contour only at its rim (two trouser legs
/// sewn without self-collision, each one's inner side up to 3 cm inside the other, ended their
/// drape with 67 edges through cloth; see the issue note).
/// Returns per vertex its region's direction, unit length: the mean over the region's cut edges
/// of the crossed triangle's normal, turned from the edge's end in the region to its far end;
/// zero outside such regions, in a region as large as the one across, or where the mean is zero.
/// @param[in] group |x| vertex indices: each vertex is joined to the one it names (itself when
///                  alone), so vertices naming the same one are joined
Points3 wrong_side_directions(ConstRef<Points3> x, ConstRef<Triangles> F, const MeshTopology& topo,
                              const std::vector<EdgeThroughTriangle>& crossings, std::span<const int> group);

}  // namespace tryon::collision
