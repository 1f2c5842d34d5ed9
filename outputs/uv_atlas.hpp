#pragma once
// A second UV set for a garment: its panels laid out side by side in the unit square, without
// overlap and all at one scale (true-scale ratios between panels kept), for texture painting
// and baking in other tools.
#include <vector>

#include "core/types.hpp"

namespace tryon::outputs {

/// Packs the panels' 2D bounding boxes into shelves (rows filled left to right, the tallest
/// panels first), trying several shelf widths and keeping the layout with the smallest square,
/// then scales the whole layout by one factor into [0, 1]².
/// @param[in] rest             |V|×2 flat panel coordinates (metres)
/// @param[in] panel_of_vertex  |V| panel index of each vertex, in [0, num_panels)
/// @param[in] num_panels       number of panels (a panel without vertices takes no room)
/// @param[in] gap              space kept between panels and around the layout, as a fraction of
///                             the largest panel's larger side
/// @return |V|×2 coordinates in [0, 1]²: each panel translated and scaled by the same factor,
///         never mirrored or turned; panels' boxes (with the gap) do not overlap.
/// Throws InputError on mismatched sizes, a panel index out of range or non-finite input.
Points2 pack_panels_uv(ConstRef<Points2> rest, const std::vector<int>& panel_of_vertex, int num_panels,
                       double gap = 0.02);

}  // namespace tryon::outputs
