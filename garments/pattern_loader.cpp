#include "garments/pattern_loader.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

#include "avatars/landmarks.hpp"
#include "core/files.hpp"
#include "garments/dxf_arrange.hpp"
#include "garments/garmentcode_reader.hpp"

namespace tryon::garments {

bool is_dxf_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(256, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  if (!head.empty() && dxf::looks_like_dxf(head)) return true;
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".dxf";
}

LoadedPattern load_pattern(const std::filesystem::path& path, const PatternOptions& options) {
  require_readable_file(path, "pattern");
  LoadedPattern out;
  if (!is_dxf_file(path)) {
    out.pattern = read_garmentcode(path);
    out.format = out.pattern.legacy_format ? "garment-pattern-generator-2021" : "garmentcode";
    return out;
  }
  out.format = "dxf";
  out.dxf = dxf::read_dxf(path);
  out.notes = out.dxf->warnings;

  // Seam file: given, or NAME.seams.json beside the DXF.
  std::filesystem::path seams_path = options.seams;
  if (seams_path.empty()) {
    std::filesystem::path beside = path;
    beside.replace_extension(".seams.json");
    if (std::filesystem::exists(beside)) seams_path = beside;
  }
  nlohmann::json seam_doc;
  if (!seams_path.empty()) {
    seam_doc = dxf::read_seam_file(seams_path);
    out.seams_file = seams_path.string();
    out.quantities = dxf::parse_quantities(seam_doc, seams_path.string());
  }
  std::string size = options.size;
  if (size.empty() && seam_doc.is_object() && seam_doc.contains("size") && seam_doc["size"].is_string())
    size = seam_doc["size"].get<std::string>();
  out.cut = dxf::cut_pieces(*out.dxf, size, out.quantities);
  const dxf::CutPattern& cut = *out.cut;
  out.notes.insert(out.notes.end(), cut.notes.begin(), cut.notes.end());
  if (seam_doc.is_object() && seam_doc.contains("seams")) {
    out.seams = dxf::parse_seams(seam_doc, cut, seams_path.string());
  } else {
    out.seams = dxf::propose_seams(cut, out.notes);
    out.seams_proposed = true;
  }

  // Panels no seam reaches would fall off the body: leave them out (when anything is sewn).
  dxf::CutPattern kept = cut;
  if (!out.seams.empty()) {
    std::set<std::string> sewn;
    for (const dxf::Seam& s : out.seams) sewn.insert(s.a.panel), sewn.insert(s.b.panel);
    kept.pieces.clear();
    for (const dxf::CutPiece& c : cut.pieces) {
      if (sewn.count(c.name)) kept.pieces.push_back(c);
      else out.notes.push_back("panel '" + c.name + "' is left out of the garment: no seam attaches it");
    }
  }
  out.pattern = dxf::to_pattern(kept, out.seams, out.dxf->style.empty() ? path.stem().string() : out.dxf->style);
  const avatars::Landmarks landmarks =
      options.body ? avatars::find_landmarks(*options.body) : dxf::proportional_landmarks(options.body_height_m);
  out.notes.insert(out.notes.end(), landmarks.warnings.begin(), landmarks.warnings.end());
  dxf::arrange(out.pattern, kept, landmarks, options.body ? *options.body : TriMesh{}, out.notes);
  out.pattern.name = path.stem().string();
  return out;
}

Pattern read_pattern(const std::filesystem::path& path, const PatternOptions& options) {
  return load_pattern(path, options).pattern;
}

}  // namespace tryon::garments
