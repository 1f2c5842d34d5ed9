#pragma once
// One entry point for every pattern format: GarmentCode JSON or DXF-AAMA / ASTM D6673,
// chosen by content (a DXF starts with "0 / SECTION"), else by extension.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/trimesh.hpp"
#include "garments/dxf_pieces.hpp"
#include "garments/pattern.hpp"

namespace tryon::garments {

struct PatternOptions {
  std::string size;                  ///< DXF: graded size (default: the file's sample size)
  std::filesystem::path seams;       ///< DXF: seam file (default: NAME.seams.json next to the file, if any)
  const TriMesh* body = nullptr;     ///< DXF: the body to arrange the pieces around (may be null)
  double body_height_m = 1.72;       ///< DXF without a body: arrange for a body this tall
};

/// What loading found out, beyond the pattern itself (for `tryon inspect`).
struct LoadedPattern {
  Pattern pattern;
  std::string format;                       ///< "garmentcode", "garment-pattern-generator-2021" or "dxf"
  std::optional<dxf::DxfPattern> dxf;       ///< DXF only
  std::optional<dxf::CutPattern> cut;       ///< DXF only: the panels before leaving any out
  std::vector<dxf::Seam> seams;             ///< DXF only: the seams used
  bool seams_proposed = false;              ///< DXF: from the matcher (no seam file, or one without "seams")
  std::string seams_file;                   ///< DXF: the seam file read, if any
  std::map<std::string, int> quantities;    ///< DXF: quantity overrides from the seam file
  std::vector<std::string> notes;           ///< reader, matcher and arrangement notes
};

/// Reads a pattern file of either format. DXF pieces are cut, sewn by the seam file or
/// the matcher's proposal, and arranged around `options.body`; pieces that no seam reaches
/// are left out of the pattern (named in `notes`) when there are seams at all. Throws
/// InputError naming the file for anything unreadable.
LoadedPattern load_pattern(const std::filesystem::path& path, const PatternOptions& options = {});

/// The pattern alone.
Pattern read_pattern(const std::filesystem::path& path, const PatternOptions& options = {});

/// True when the file is (by content, else by its .dxf extension) a DXF file.
bool is_dxf_file(const std::filesystem::path& path);

}  // namespace tryon::garments
