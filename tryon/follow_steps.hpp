#pragma once
// How far a moving body travels in a frame where it can touch the cloth: the follow stage takes
// its steps a frame from it, so a body part far from the garment (the feet under a shirt) does
// not set the step.
#include "core/trimesh.hpp"

namespace tryon {

/// The farthest a vertex of a body triangle that can reach the cloth moves from pose `from` to
/// pose `to` (m; 0 when none can). A triangle can reach the cloth when its box over both poses,
/// grown by `reach` (m), holds one of the `cloth` points (a conservative test: cloth points are
/// binned in cubes of side `reach`).
double travel_near_cloth(const Points3& from, const Points3& to, const Triangles& F, const Points3& cloth,
                         double reach);

/// The longest edge of the triangles (m): a point of the surface is at most this far from one
/// of its vertices.
double longest_edge(const Points3& V, const Triangles& F);

}  // namespace tryon
