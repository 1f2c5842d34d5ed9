#pragma once
#include <filesystem>
#include <string>

#include "garments/pattern.hpp"

namespace tryon::garments {

/// Reads a GarmentCode specification JSON, the current format (curvature objects with
/// "type": quadratic | cubic | circle) and the 2021 Garment-Pattern-Generator templates
/// (curvature as a bare [u, v] list). Coordinates are converted to metres with the file's
/// "units_in_meter" (100 when absent). Throws InputError naming the file, panel and edge for
/// anything malformed: not JSON, wrong types, unknown curve types, indices out of range,
/// non-finite numbers, stitches to missing panels or edges.
Pattern read_garmentcode(const std::filesystem::path& path);

/// The same from JSON text; `source` names it in messages.
Pattern parse_garmentcode(const std::string& text, const std::string& source);

}  // namespace tryon::garments
