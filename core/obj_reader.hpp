#pragma once
#include <string_view>

#include "core/trimesh.hpp"

namespace tryon {

/// Parses Wavefront OBJ text: `v` positions (double precision) and `f` faces (any
/// `i`, `i/t`, `i//n`, `i/t/n` form, negative indices relative, polygons fan-triangulated);
/// everything else is ignored. Unlike Assimp's importer, which splits every face corner into
/// its own single-precision vertex, it keeps the file's vertex indexing, so distinct vertices
/// a fraction of a micrometre apart stay distinct. Throws InputError naming `source` and the
/// line for malformed numbers or indices out of range.
TriMesh parse_obj(std::string_view text, const std::string& source);

}  // namespace tryon
