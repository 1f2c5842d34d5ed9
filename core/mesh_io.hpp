#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/trimesh.hpp"

namespace tryon {

/// Reads every mesh of a file, merged into one TriMesh with node transforms applied and
/// polygons triangulated. OBJ is parsed by parse_obj (double precision, the file's own
/// vertex indexing); every other format (PLY, STL, glTF/GLB, FBX, COLLADA, ...) goes through
/// Assimp, which reads single precision and may split vertices per corner or at UV seams:
/// see weld_vertices.
/// Throws InputError for a missing, unreadable or empty file.
TriMesh read_mesh(const std::filesystem::path& path);

/// The OBJ branch of read_mesh, from memory: parse_obj, then the same checks (at least one
/// triangle, finite coordinates, indices in range). `source` names the text in messages.
TriMesh read_obj_mesh(std::string_view text, const std::string& source);

/// Optional extras written with an OBJ.
struct ObjExtras {
  Segments lines;                      ///< |L|×2 vertex pairs written as "l a b" elements
  std::string lines_group;             ///< group the lines are written in ("g NAME"), or none
  Points3 normals;                     ///< |V|×3 vertex normals written as "vn", or 0 rows for none
  std::vector<std::string> groups;     ///< group name per triangle group (see group_of)
  std::vector<int> group_of;           ///< |F| group index per triangle, or empty
  std::string comment;                 ///< written at the top as "# ..." lines
};

/// Formats a mesh as Wavefront OBJ text (v, vt when UV is set, vn when normals are given, f, l).
/// Throws InputError when normals are given for a different number of vertices.
std::string format_obj(const TriMesh& mesh, const ObjExtras& extras = {});

/// Writes an OBJ whole or not at all (temporary file, then rename).
void write_obj(const std::filesystem::path& path, const TriMesh& mesh,
               const ObjExtras& extras = {});

}  // namespace tryon
