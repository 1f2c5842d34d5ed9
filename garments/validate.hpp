#pragma once
#include <string>
#include <vector>

#include "garments/pattern.hpp"

namespace tryon::garments {

/// What a pattern maker needs to hear about a pattern, each message naming panel and edge.
struct Diagnostics {
  std::vector<std::string> errors;    ///< the pattern cannot be sewn as it is
  std::vector<std::string> warnings;  ///< it can, but something looks unintended
  bool ok() const { return errors.empty(); }
};

struct ValidationLimits {
  double max_panel_size_m = 4.0;        ///< a panel wider or taller than this is absurd
  double max_coordinate_m = 50.0;       ///< a placement farther than this is absurd
  double min_edge_length_m = 1e-4;      ///< shorter edges count as zero-length
  double stitch_length_warning = 1.05;  ///< warn when stitched edges differ by more (ratio)
};

/// Checks a pattern: closed edge loops, zero-length edges, self-intersecting outlines,
/// panels without area, absurd sizes, stitches joining an edge to itself or using an edge
/// twice, and stitched edges of very different length (a warning with the ratio).
Diagnostics validate_pattern(const Pattern& pattern, const ValidationLimits& limits = {});

/// "panel 'name', edge k" for messages.
std::string describe_edge(const Pattern& pattern, int panel, int edge);

}  // namespace tryon::garments
