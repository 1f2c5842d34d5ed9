#pragma once
// glTF 2.0 binary (.glb) export of the draped garment, written by our own small writer (JSON
// chunk through nlohmann-json, one binary chunk): positions, normals, UVs and fit-map colours.
#include <filesystem>
#include <string>
#include <vector>

#include "core/trimesh.hpp"
#include "outputs/fit_maps.hpp"
#include "outputs/render.hpp"

namespace tryon::outputs {

struct GlbOptions {
  const TriMesh* body = nullptr;      ///< optional second mesh "body" (positions, normals, grey material)
  const FitMaps* fit_maps = nullptr;  ///< optional: written as the custom SCALAR float attributes
                                      ///< _STRAIN (fraction) and _DISTANCE_M (metres) of the garment
  Rgb fabric_color{70, 120, 190};     ///< garment base colour when `colors` is empty (white otherwise,
                                      ///< so that COLOR_0 shows unaltered)
  Rgb body_color{190, 190, 195};
};

/// Formats the GLB file contents (the bytes of a .glb).
/// The garment is mesh/node 0 "garment": POSITION (float VEC3, with min/max), NORMAL (area-weighted
/// vertex normals [Gouraud 1971], unit length), TEXCOORD_0 = (u, 1 − v) of the 2D panel
/// coordinates in metres (glTF puts the texture origin at the top left: Assimp and Blender flip v
/// back on import, so they read the panel coordinates themselves), COLOR_0 when `colors` is set
/// (float VEC3, the sRGB colours converted to linear as glTF requires), indices as UNSIGNED_INT,
/// a double-sided material. The body, when given, is mesh/node 1 "body".
/// @param[in] garment  draped garment: V |V|×3, F |F|×3 (garment.UV is not used)
/// @param[in] uv       |V|×2 2D panel coordinates, or 0 rows for none
/// @param[in] colors   |V| vertex colours (e.g. fit_map_colors), or empty for none
/// Throws InputError on mismatched sizes, non-finite values or an empty garment.
std::string format_glb(const TriMesh& garment, ConstRef<Points2> uv, const std::vector<Rgb>& colors,
                       const GlbOptions& options = {});

/// format_glb written whole or not at all (temporary file, then rename).
void write_glb(const std::filesystem::path& path, const TriMesh& garment, ConstRef<Points2> uv,
               const std::vector<Rgb>& colors, const GlbOptions& options = {});

/// Area-weighted per-vertex unit normals (sum of the incident triangles' area vectors
/// [Gouraud 1971]); a vertex with no area around it gets (0, 1, 0). |V|×3.
Points3 vertex_normals(ConstRef<Points3> V, ConstRef<Triangles> F);

/// sRGB 8-bit channel to linear intensity in [0, 1] (IEC 61966-2-1 transfer function).
double srgb_to_linear(unsigned char c);

}  // namespace tryon::outputs
