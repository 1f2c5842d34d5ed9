#pragma once
// Point queries against a closed triangle mesh over its AABB tree: inside/outside by the
// winding number, the closest surface point, and the triangles near a box.
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

/// Calls fn(triangle) for every triangle whose leaf box overlaps `box` (closed boxes).
template <class Fn>
void for_each_triangle_near(const Bvh<Aabb>& bvh, const Aabb& box, Fn&& fn) {
  if (bvh.empty()) return;
  const auto& nodes = bvh.nodes();
  const auto& prims = bvh.primitives();
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    const auto& n = nodes[i];
    if ((n.bv.hi.array() < box.lo.array()).any() || (n.bv.lo.array() > box.hi.array()).any()) continue;
    if (n.is_leaf()) {
      for (int p = n.begin; p < n.end; ++p) fn(prims[p]);
    } else {
      stack.push_back(n.right);
      stack.push_back(i + 1);
    }
  }
}

}  // namespace tryon::collision
