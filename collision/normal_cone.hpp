#pragma once
// Self-collision culling with normal cones [Volino & Magnenat-Thalmann 1994, "Efficient
// self-collision detection on smoothly discretized surface animations using geometrical shape
// regularity"]: a connected surface region whose normals all lie within a cone of half-angle
// below 90° (so some direction sees every triangle from its front side), and whose contour,
// projected on the plane orthogonal to that direction, does not cross itself, cannot
// self-intersect.
#include <array>
#include <vector>

#include "collision/bvh.hpp"
#include "collision/topology.hpp"

namespace tryon::collision {

/// A cone of unit normals: every normal n satisfies angle(n, axis) <= half_angle (radians).
struct NormalCone {
  Vec3 axis = Vec3::UnitZ();
  double half_angle = 3.2;  ///< > π: no cone (degenerate triangles or opposite normals)
  Vec3 sum = Vec3::Zero();  ///< area-weighted normal sum of the region (axis = sum / |sum|)
};

/// Cones of every node of a BVH, bottom-up: leaves from their triangles' normals, internal nodes
/// by merging the children's cones (axis = direction of the summed area-weighted normals,
/// half-angle = max over children of angle(axis, child axis) + child half-angle).
/// @return one cone per node, in node order.
template <class BV>
std::vector<NormalCone> normal_cones(const Bvh<BV>& bvh, ConstRef<Points3> V, ConstRef<Triangles> F);

/// Contour test for triangles tris[0..n): true when the triangles are edge-connected and
/// manifold, their boundary edges form one closed loop, and that loop projected on the plane
/// orthogonal to `axis` is a simple polygon (no two non-adjacent contour edges touch).
/// Returns false (do not cull) for regions whose contour is longer than `max_contour_edges`.
bool contour_is_simple(ConstRef<Points3> V, ConstRef<Triangles> F, const int* tris, int n,
                       const Vec3& axis, int max_contour_edges = 4096);
/// The same test in O(n) with the mesh's edge ids (no sort); same answer.
bool contour_is_simple(ConstRef<Points3> V, ConstRef<Triangles> F, const int* tris, int n,
                       const Vec3& axis, const MeshTopology& topo, int max_contour_edges = 4096);

/// A region's contour: its boundary edges (vertex pairs).
using Contour = std::vector<std::array<int, 2>>;

/// The contour of every node's region of a tree, from the topology alone: the one closed loop of
/// boundary edges of a connected, manifold region (of more than one triangle), or none. Computed
/// once, valid while the tree's structure and the triangles stay (refits keep both), so the
/// culling of repeated self queries on a deforming mesh only projects them.
class NodeContours {
 public:
  NodeContours() = default;
  NodeContours(const Bvh<Aabb>& bvh, ConstRef<Triangles> F, const MeshTopology& topo, int max_contour_edges = 4096);
  /// Node i's loop, nullptr when its region has none (then no test on it can pass).
  const Contour* loop(int node) const { return has_[node] ? &loops_[node] : nullptr; }
  std::size_t size() const { return has_.size(); }

 private:
  std::vector<Contour> loops_;
  std::vector<char> has_;
};

/// The geometric part of the contour tests on a known loop: no two non-adjacent edges of its
/// projection along `axis` closer than gap (touching, for gap 0), over the linear motion to *V1
/// when V1 is given.
bool projected_contour_clear(ConstRef<Points3> V, const Points3* V1, const Contour& loop, const Vec3& axis,
                             double gap = 0);

/// For self proximity: true when no vertex of the region tris[0..n) is closer than d to a region
/// triangle not using it and no two region edges without a common vertex are closer than d.
/// Sufficient test: seen along the axis of the summed normals, every triangle keeps altitudes of
/// at least d (N·axis >= d × longest edge, N the normal of length twice the area) and the
/// contour is simple with non-adjacent edges more than d apart. `shapes` from triangle_shapes;
/// `loop`: the region's contour when known (NodeContours), else it is found from `topo`.
struct TriangleShape {
  Vec3 normal = Vec3::Zero();  ///< (b − a) × (c − a)
  double longest_edge = 0;
};
std::vector<TriangleShape> triangle_shapes(ConstRef<Points3> V, ConstRef<Triangles> F);
bool region_pairs_farther_than(ConstRef<Points3> V, ConstRef<Triangles> F, const std::vector<TriangleShape>& shapes,
                               const int* tris, int n, double d, const MeshTopology& topo,
                               int max_contour_edges = 4096, const Contour* loop = nullptr);

/// The same tests over a linear motion from V0 to V1, for continuous self collisions: a connected
/// region whose normals stay within a cone below 90° and whose projected contour never touches
/// itself during the motion cannot collide with itself in it [Volino & Magnenat-Thalmann 1994;
/// the swept normal bound of Tang, Curtis, Yoon & Manocha 2009].
/// swept_normals: per triangle, the Bernstein coefficients of its (quadratic) normal over the
/// motion; every normal it takes is a combination of the three with weights >= 0.
/// swept_cone_axis: an axis making an angle below 90° with each of them (so with every normal
/// the triangles take), false when the axis of their sum is not one.
/// swept_contour_is_simple: the contour test on V0 with every two non-adjacent projected contour
/// edges farther apart than their ends' projected motions (then they never touch).
using SweptNormal = std::array<Vec3, 3>;
std::vector<SweptNormal> swept_normals(const Points3& V0, const Points3& V1, ConstRef<Triangles> F);
bool swept_cone_axis(const std::vector<SweptNormal>& normals, const int* tris, int n, Vec3& axis);
bool swept_contour_is_simple(const Points3& V0, const Points3& V1, ConstRef<Triangles> F, const int* tris, int n,
                             const Vec3& axis, const MeshTopology& topo, int max_contour_edges = 4096);

}  // namespace tryon::collision
