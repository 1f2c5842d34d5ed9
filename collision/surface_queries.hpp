#pragma once
// Point queries against a closed triangle mesh over its AABB tree: inside/outside by the
// winding number, the closest surface point, and the triangles near a box.
#include <utility>
#include <vector>

#include "collision/bvh.hpp"

namespace tryon::collision {

/// Generalised winding number of each point with respect to a closed triangle mesh (1 inside,
/// 0 outside for a closed outward mesh; ½ on the surface), from signed ray crossings: ±1 per
/// crossing by the facing of the triangle crossed. Exact for closed meshes; a ray grazing an
/// edge or vertex is cast again in another direction. |P| values.
std::vector<double> winding_numbers(ConstRef<Points3> points, ConstRef<Points3> V, ConstRef<Triangles> F,
                                    const Bvh<Aabb>& bvh);

/// The closest point of a mesh to p, by branch and bound over the tree.
struct ClosestPoint {
  int triangle = -1;           ///< -1 for an empty mesh
  Vec3 point = Vec3::Zero();
  Vec3 bary = Vec3::Zero();    ///< weights of the triangle's vertices
  double distance = 0;
};
ClosestPoint closest_point(const Vec3& p, ConstRef<Points3> V, ConstRef<Triangles> F, const Bvh<Aabb>& bvh);
/// The same over the triangles not flagged in `skip` (|F| flags); `triangle` is -1 when all are.
ClosestPoint closest_point(const Vec3& p, ConstRef<Points3> V, ConstRef<Triangles> F, const Bvh<Aabb>& bvh,
                           const std::vector<char>& skip);

/// The first triangle a ray o + t·d (t in (t_min, t_max]) meets, by the Möller–Trumbore test
/// [Möller & Trumbore 1997] over the tree; either facing counts. `triangle` is -1 when none.
struct RayHit {
  int triangle = -1;
  double t = 0;
};
RayHit first_ray_hit(const Vec3& origin, const Vec3& direction, double t_min, double t_max, ConstRef<Points3> V,
                     ConstRef<Triangles> F, const Bvh<Aabb>& bvh);

/// Depth-first walk over the tree: descends into nodes whose volume passes `enter(aabb)` and
/// calls `visit(triangle)` for the triangles of the leaves reached; `visit` returns false to stop
/// the walk. Returns false when it was stopped.
template <class Enter, class Visit>
bool walk_triangles(const Bvh<Aabb>& bvh, Enter&& enter, Visit&& visit) {
  if (bvh.empty()) return true;
  const auto& nodes = bvh.nodes();
  const auto& prims = bvh.primitives();
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    const auto& n = nodes[i];
    if (!enter(n.bv)) continue;
    if (n.is_leaf()) {
      for (int p = n.begin; p < n.end; ++p)
        if (!visit(prims[p])) return false;
    } else {
      stack.push_back(n.right);
      stack.push_back(i + 1);
    }
  }
  return true;
}

/// Calls fn(triangle) for every triangle whose leaf box overlaps `box` (closed boxes); fn
/// returns false to stop early.
template <class Fn>
void for_each_triangle_near(const Bvh<Aabb>& bvh, const Aabb& box, Fn&& fn) {
  walk_triangles(
      bvh,
      [&](const Aabb& b) { return !((b.hi.array() < box.lo.array()).any() || (b.lo.array() > box.hi.array()).any()); },
      std::forward<Fn>(fn));
}

}  // namespace tryon::collision
