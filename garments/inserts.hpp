#pragma once
// Inserts (a godet, a gusset): panels sewn to one other panel only, into one opening of its
// outline (consecutive edges, such as a slit's two sides), and smaller than half of it.
// GarmentCode lays a skirt's godets out in a row in front of or behind the skirt, up to 60 cm
// to the side of the slits they fill; the sewing then dragged them across the skirt, and they
// came to rest folded through it. They are moved to their slits before the drape.
#include <string>
#include <vector>

#include "garments/pattern.hpp"

namespace tryon::garments {

/// Per panel, the translation that seats it where it is sewn: for an insert, the in-plane part
/// (in its own plane) of the step from the middle of its stitched edges to the middle of the
/// edges they are sewn to, so the side of the panel it fills that it lies on is kept; the
/// second insert of a panel is moved 1 cm further off it, the third 2 cm, and so on, as
/// inserts seated side by side overlap. Zero for every other panel. Adds a note naming the
/// inserts moved, if any.
std::vector<Vec3> insert_shifts(const Pattern& pattern, std::vector<std::string>& notes);

}  // namespace tryon::garments
