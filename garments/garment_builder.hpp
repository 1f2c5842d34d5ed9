#pragma once
#include <optional>
#include <string>
#include <vector>

#include "garments/garment_mesh.hpp"
#include "garments/pattern.hpp"

namespace tryon::garments {

struct BuildOptions {
  double resolution_m = 0.01;  ///< target triangle edge length (`--resolution-cm` / 100)
  /// Translation added to every panel. Unset: none for current GarmentCode files; for the
  /// 2021 templates, whose body origin is at the waist, a lift that puts the garment on a
  /// body with feet at y = 0 (scaled by body_height_m when known). A pattern placed for a body
  /// of another height (Pattern::placed_for_height_m, more than 1 % off) has the heights of its
  /// placement scaled to body_height_m: a shirt made for mean_all (1.72 m) placed unscaled on a
  /// 1.76 m body sat 4 cm low, and its shoulder seams closed below the shoulders.
  std::optional<Vec3> offset;
  double body_height_m = 0;                ///< 0 when no body is given
  std::size_t max_triangles = 2'000'000;   ///< refuse larger work (InputError)
};

/// Per-panel figures of the mesh that was built.
struct PanelStats {
  std::string name;
  int first_vertex = 0;       ///< the panel's vertices are [first_vertex, first_vertex + vertices)
  int boundary_vertices = 0;  ///< the first ones, along the outline in edge order
  int vertices = 0, triangles = 0;
  double area_m2 = 0;        ///< area of the sampled outline
  double mesh_area_m2 = 0;   ///< sum of triangle areas
  double min_angle_deg = 0;  ///< leaving out triangles at outline corners sharper than 20°
};

struct GarmentBuild {
  GarmentMesh mesh;
  std::vector<PanelStats> panels;
  std::vector<std::string> warnings;  ///< validation warnings, placement notes
  Vec3 offset = Vec3::Zero();         ///< the translation applied to every panel
  double height_scale = 1;            ///< the placement's heights scaled by this (body / pattern's body)
  double min_angle_deg = 0;           ///< over all panels, as in PanelStats
};

/// Validates, samples the outlines (stitched edges get equal vertex counts, the longer
/// side gathers), triangulates each panel, places it in 3D (inserts moved to the seams they
/// fill, inserts.hpp) and lists the seam vertex pairs.
/// Throws InputError with every validation error when the pattern cannot be sewn.
GarmentBuild build_garment(const Pattern& pattern, const BuildOptions& options = {});

/// Segments per edge: ceil(length / resolution), at least 1; both edges of a stitch get
/// the larger of their two counts.
std::vector<std::vector<int>> edge_segment_counts(const Pattern& pattern, double resolution_m);

}  // namespace tryon::garments
