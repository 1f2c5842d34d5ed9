#include "garments/pattern_loader.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
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
  return has_extension(path, ".dxf");
}

namespace {

bool is_sleeve(dxf::Role r) { return r == dxf::Role::sleeve || r == dxf::Role::sleeve_front || r == dxf::Role::sleeve_back; }

// Whether a seam sews a sleeve panel.
bool sews_a_sleeve(const dxf::CutPattern& cut, const std::vector<dxf::Seam>& seams) {
  for (const dxf::Seam& s : seams)
    for (const std::string* panel : {&s.a.panel, &s.b.panel})
      if (const int i = cut.find(*panel); i >= 0 && is_sleeve(cut.pieces[i].role)) return true;
  return false;
}

// The cut with a reference sleeve in place of the sleeve pieces: the pieces, their quantities,
// the proposed seams and the matcher's notes on them.
struct SleeveAlternative {
  std::map<std::string, int> quantities;
  dxf::CutPattern cut;
  std::vector<dxf::Seam> seams;
  std::vector<std::string> seam_notes;
};

// When the cut sleeve pieces do not pair (the proposal sews no sleeve) and the file holds a
// reference piece (quantity 0) that is a one-piece sleeve, the matcher tries that piece cut
// twice in their place, as a pattern maker would choose in a seam file's "quantities": the
// shared men's tee cuts two sleeve halves whose overarm lines differ by 40 %, and holds a
// one-piece sleeve that fits its armholes. Returns the first such cut that sews the sleeves,
// or nothing.
std::optional<SleeveAlternative> reference_sleeve_cut(const dxf::DxfPattern& file, const dxf::CutPattern& cut) {
  std::set<std::string> cut_sleeves;
  for (const dxf::CutPiece& c : cut.pieces)
    if (is_sleeve(c.role)) cut_sleeves.insert(c.piece);
  if (cut_sleeves.empty()) return std::nullopt;
  for (const dxf::Piece* reference : file.pieces_of_size(cut.size)) {
    if (reference->quantity != 0) continue;
    SleeveAlternative alt;
    alt.quantities = {{reference->name, 2}};
    for (const std::string& name : cut_sleeves) alt.quantities[name] = 0;
    alt.cut = dxf::cut_pieces(file, cut.size, alt.quantities);
    bool one_piece_sleeve = false;
    for (const dxf::CutPiece& c : alt.cut.pieces) one_piece_sleeve |= c.piece == reference->name && is_sleeve(c.role);
    if (!one_piece_sleeve) continue;
    alt.seams = dxf::propose_seams(alt.cut, alt.seam_notes);
    if (sews_a_sleeve(alt.cut, alt.seams)) return alt;
  }
  return std::nullopt;
}

}  // namespace

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
  std::vector<std::string> seam_notes;
  if (seam_doc.is_object() && seam_doc.contains("seams")) {
    out.seams = dxf::parse_seams(seam_doc, *out.cut, seams_path.string());
  } else {
    out.seams = dxf::propose_seams(*out.cut, seam_notes);
    out.seams_proposed = true;
    if (out.quantities.empty() && !sews_a_sleeve(*out.cut, out.seams))
      if (auto alt = reference_sleeve_cut(*out.dxf, *out.cut)) {
        std::string names;
        for (const auto& [name, n] : alt->quantities)
          names += (names.empty() ? "'" : ", '") + name + "': " + std::to_string(n);
        out.notes.push_back("the sleeve pieces do not pair, the reference one-piece sleeve does: cut with quantities " +
                            names + " (a seam file's \"quantities\" can choose otherwise)");
        out.quantities = std::move(alt->quantities);
        out.cut = std::move(alt->cut);
        out.seams = std::move(alt->seams);
        seam_notes = std::move(alt->seam_notes);
      }
  }
  const dxf::CutPattern& cut = *out.cut;
  out.notes.insert(out.notes.end(), cut.notes.begin(), cut.notes.end());
  out.notes.insert(out.notes.end(), seam_notes.begin(), seam_notes.end());

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
