#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace tryon::garments {

/// A triangulated, stitched and placed garment, ready for the simulator. Each panel has
/// its own vertices; seams are listed as vertex pairs that the simulator joins (merges or
/// sews). Units: metres.
struct GarmentMesh {
  Points3 V;       ///< |V|×3 placed 3D positions
  Points2 rest;    ///< |V|×2 flat 2D panel coordinates (panel frame): rest lengths come from here
  Triangles F;     ///< |F|×3; winding gives the panel's outward normal in 3D
  std::vector<int> panel_of_vertex;    ///< |V| panel index
  std::vector<int> panel_of_triangle;  ///< |F| panel index
  std::vector<std::string> panel_names;
  /// |panels| the body part each panel dresses, as GarmentCode labels panels ("arm", "body",
  /// "leg"); empty when the pattern does not say.
  std::vector<std::string> panel_labels;
  Segments seam_pairs;            ///< |S|×2 vertex pairs (a on edge A, b on edge B) to be joined
  std::vector<int> stitch_of_pair;  ///< |S| index of the stitch each pair belongs to
  int num_stitches = 0;
  /// Edge label (e.g. "lower_interface", "left_collar") -> vertices lying on labelled edges.
  std::map<std::string, std::vector<int>> labelled_vertices;

  int num_vertices() const { return static_cast<int>(V.rows()); }
  int num_triangles() const { return static_cast<int>(F.rows()); }
};

}  // namespace tryon::garments
