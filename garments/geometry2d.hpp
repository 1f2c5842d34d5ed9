#pragma once
// Small 2D polygon kernels shared by validation, meshing and tests.
#include <optional>
#include <utility>
#include <vector>

#include "core/types.hpp"

namespace tryon::garments {

/// Signed area of a closed polygon (positive when counter-clockwise).
double signed_area(const std::vector<Vec2>& loop);

/// First pair (i, j) of non-adjacent segments of a closed polygon that intersect (touching
/// counts), segment i running from loop[i] to loop[i+1]; nullopt for a simple polygon.
/// Sorted sweep over x: O((n + k) log n) for typical outlines.
std::optional<std::pair<int, int>> first_self_intersection(const std::vector<Vec2>& loop);

/// Whether closed segments [a, b] and [c, d] intersect (touching counts).
bool segments_intersect(const Vec2& a, const Vec2& b, const Vec2& c, const Vec2& d);

/// Outline corners with an interior angle below this are "sharp": triangles touching them
/// cannot meet a larger minimum angle and are left out of mesh-quality figures.
constexpr double kSharpCornerDeg = 20.0;

}  // namespace tryon::garments
