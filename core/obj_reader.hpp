#pragma once
#include <string_view>

#include "core/trimesh.hpp"

namespace tryon {

/// What an OBJ holds besides triangles: polyline elements, as vertex pairs.
struct ObjContents {
  TriMesh mesh;    ///< V, F, and UV per vertex when faces name texture coordinates
  Segments lines;  ///< |L|×2 vertex pairs of the `l` elements (a polyline gives one per segment)
};

/// Parses Wavefront OBJ text: `v` positions (double precision), `vt` texture coordinates,
/// `f` faces (any `i`, `i/t`, `i//n`, `i/t/n` form, negative indices relative, polygons
/// fan-triangulated) and `l` lines; everything else is ignored. A vertex's UV is the `vt`
/// of the first face corner that names it. Unlike Assimp's importer, which splits every face corner into
/// its own single-precision vertex, it keeps the file's vertex indexing, so distinct vertices
/// a fraction of a micrometre apart stay distinct. Throws InputError naming `source` and the
/// line for malformed numbers or indices out of range.
ObjContents parse_obj(std::string_view text, const std::string& source);

}  // namespace tryon
