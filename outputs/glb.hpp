#pragma once
// glTF 2.0 binary (.glb) export of the draped garment, written by our own small writer (JSON
// chunk through nlohmann-json, one binary chunk): positions, normals, two UV sets, fit-map
// colours and values, one mesh per panel, the seams as lines, the report as extras.
#include <filesystem>
#include <string>
#include <vector>

#include "core/trimesh.hpp"
#include "outputs/fit_maps.hpp"
#include "outputs/render.hpp"

namespace tryon::outputs {

/// The garment's panels and seams: with them the GLB has one node and mesh per panel (named as
/// the panel) under a node "garment", and a node "seams" with the seam lines.
struct GlbPanels {
  std::vector<int> panel_of_triangle;  ///< |F| panel index of each triangle
  std::vector<std::string> names;      ///< panel names (mesh and node names)
  std::vector<std::string> labels;     ///< body part each panel dresses ("arm", "body", ...), or empty
  Segments seam_pairs;                 ///< |S|×2 vertex pairs sewn together
  std::vector<int> stitch_of_pair;     ///< |S| stitch of each pair
};

/// The garment's motion: its positions at frames 1/fps apart (each |V|×3, the garment's vertex
/// order). Written as one morph target per frame (POSITION displacements from the garment's
/// positions) on every garment mesh, seams included, and one animation, "motion", of their
/// weights: at frame k's time target k has weight 1, linearly blended between frames.
struct GlbMotion {
  std::vector<Points3> frames;
  double fps = 30;
  /// The body's positions per frame (as many frames), played the same way; empty: it stands.
  std::vector<Points3> body_frames;
};

struct GlbOptions {
  const TriMesh* body = nullptr;      ///< optional mesh "body" (positions, normals, grey material)
  const FitMaps* fit_maps = nullptr;  ///< optional: written as the custom SCALAR float attributes
                                      ///< _STRAIN (fraction) and _DISTANCE_M (metres) of the garment
  const GlbPanels* panels = nullptr;  ///< optional: one mesh per panel, seam lines, TEXCOORD_1
  const GlbMotion* motion = nullptr;  ///< optional: the garment's motion as morph targets
  std::string extras_json;            ///< optional JSON object stored as the scene's extras.tryon
  Rgb fabric_color{70, 120, 190};     ///< garment base colour when `colors` is empty (white otherwise,
                                      ///< so that COLOR_0 shows unaltered)
  Rgb body_color{190, 190, 195};
  Rgb seam_color{20, 20, 20};
};

/// Formats the GLB file contents (the bytes of a .glb).
/// The garment's vertex attributes: POSITION (float VEC3, with min/max), NORMAL (area-weighted
/// vertex normals of the whole garment, unit length), TEXCOORD_0 = (u, 1 − v) of the 2D panel
/// coordinates in metres (glTF puts the texture origin at the top left: Assimp and Blender flip v
/// back on import, so they read the panel coordinates themselves), with panels TEXCOORD_1 = the
/// panels packed without overlap in the unit square (pack_panels_uv, v flipped likewise),
/// COLOR_0 when `colors` is set (float VEC3, the sRGB colours converted to linear as glTF
/// requires), the fit maps; indices as UNSIGNED_INT, a double-sided material.
/// Without panels the garment is one mesh/node "garment"; with them node 0 "garment" has one
/// child node per panel (extras: panel name and label) and a child "seams" whose mesh draws,
/// as LINES, the garment's boundary edges that run along a seam. The body, when given, is the
/// last node, "body". extras_json (the report) and the panel names are the scene's extras.
/// @param[in] garment  draped garment: V |V|×3, F |F|×3 (garment.UV is not used)
/// @param[in] uv       |V|×2 2D panel coordinates, or 0 rows for none
/// @param[in] colors   |V| vertex colours (e.g. fit_map_colors), or empty for none
/// Throws InputError on mismatched sizes, non-finite values, an empty garment or an empty panel
/// list, a motion without frames, with frames of another size or an fps not above 0, and on
/// extras_json that is not a JSON object.
std::string format_glb(const TriMesh& garment, ConstRef<Points2> uv, const std::vector<Rgb>& colors,
                       const GlbOptions& options = {});

/// format_glb written whole or not at all (temporary file, then rename).
void write_glb(const std::filesystem::path& path, const TriMesh& garment, ConstRef<Points2> uv,
               const std::vector<Rgb>& colors, const GlbOptions& options = {});

/// The boundary edges of F (edges of one triangle) whose two ends are both sewn by one stitch:
/// the seam lines along the cloth (both sides of each seam, which meet when it is closed).
/// |L|×2, sorted. Pairs or stitches out of range throw InputError.
Segments seam_lines(ConstRef<Triangles> F, ConstRef<Segments> seam_pairs, const std::vector<int>& stitch_of_pair);

/// sRGB 8-bit channel to linear intensity in [0, 1] (IEC 61966-2-1 transfer function).
double srgb_to_linear(unsigned char c);

}  // namespace tryon::outputs
