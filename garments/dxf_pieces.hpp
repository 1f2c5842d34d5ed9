#pragma once
// From a DXF pattern to panels that can be sewn: pieces of one size are oriented (grain line
// up), cut on the fold unfolded, quantity-2 pieces doubled with a mirrored copy, one-piece
// sleeves and legs split into front and back halves; each outline gets named key points
// (corners "c0", "c1"… and notches "n0", "n1"…, numbered counter-clockwise) so that seams
// can address ranges of the outline. A seam set comes from a sidecar JSON file (format in
// README.md, "Seam files") or from propose_seams(), which knows tops (tees, tanks: front,
// back, sleeves), skirts (front, back) and trousers/leggings (one-piece legs).
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "garments/dxf_reader.hpp"
#include "garments/pattern.hpp"

namespace tryon::garments::dxf {

/// What a piece is on the body.
enum class Role { front, back, sleeve, sleeve_front, sleeve_back, leg, leg_front, leg_back, collar, waistband, other };
const char* to_string(Role role);
/// The role from the piece's name (or, failing that, its category). `prefix`, the style's
/// common name prefix (e.g. "REGULAR TEE"), is ignored: in "ORILEG WB LL" only "LL" counts.
Role classify(const std::string& name, const std::string& category, const std::string& prefix = "");

struct KeyPoint {
  std::string id;  ///< "c3" (corner) or "n1" (notch)
  int index = 0;   ///< into CutPiece::outline
};

/// One panel to be: a piece (or its mirrored copy) in its panel frame.
struct CutPiece {
  std::string name;              ///< panel name: the piece name, "… (mirror)" for the copy
  std::string piece;             ///< the DXF piece name
  Role role = Role::other;
  bool mirrored = false, unfolded = false;
  std::vector<Vec2> outline;     ///< counter-clockwise, metres; grain along +y; x = 0 on the fold
  std::vector<KeyPoint> keys;    ///< by increasing index
  /// Named outline ranges found by the matcher ("side_r", "armhole_l", "cap"…): key ids.
  std::map<std::string, std::pair<std::string, std::string>> ranges;
  double split_x = 0;            ///< halves of a split sleeve or leg: x of the cut line
  int key_index(const std::string& id) const;  ///< outline index of "c3", "n1" or "p17"; -1 if none
};

struct CutPattern {
  std::string size;
  std::vector<CutPiece> pieces;
  std::vector<std::string> notes;  ///< skipped pieces, missing grain lines…
  /// One-piece sleeves cut in two along the overarm line (front, back panel names): the
  /// matcher sews the halves back together.
  std::vector<std::pair<std::string, std::string>> split_sleeves;
  int find(const std::string& name) const;
};

/// Orients, unfolds and doubles the pieces of `size` (the sample size when empty).
/// `quantities` overrides the file's "Quantity:" per piece name (0, 1 or 2), e.g. to cut a
/// reference piece. One-piece sleeves are split into a front and a back half.
CutPattern cut_pieces(const DxfPattern& dxf, const std::string& size = "", const std::map<std::string, int>& quantities = {});

/// One side of a seam: the outline of `panel` from key `from` to key `to`, counter-clockwise.
struct SeamSide {
  std::string panel, from, to;
};
/// A seam joins two ranges; by default a.from meets b.to (the ranges run in opposite
/// directions along the seam, as two outward-facing panels' outlines do).
struct Seam {
  SeamSide a, b;
  bool same_direction = false;
  std::string note;  ///< e.g. "side seam, body left"
};

/// +1 when a sleeve (leg) half belongs on the body's left arm (leg), on +x; -1 on the right;
/// 0 for other pieces. The half's split line (a sleeve's overarm, a leg's side seam) faces
/// away from the body: on the left it is on a front half's +x side (relative to its
/// centroid) and, the back half being turned round, on a back half's −x side.
int sleeve_side(const CutPiece& piece);

/// Proposes seams from the pieces' roles and labelled outlines: side seams and shoulders
/// between one front and one back, sleeve caps into armholes, sleeve halves to each other
/// (overarm, underarm), leg halves to each other (side seam, inseam) and the legs' rises
/// (crotch). What it cannot match is said in `notes`.
std::vector<Seam> propose_seams(const CutPattern& cut, std::vector<std::string>& notes);

/// Sidecar seam file: {"format": "tryon-seams-1", "size": "50", "seams": [{"a": {"panel":
/// …, "from": "c1", "to": "n0"}, "b": {…}, "same_direction": false}]}. Throws InputError
/// naming the file and seam for unknown panels or key points.
/// The file may also hold "quantities": {"piece name": 0|1|2}, overriding the DXF's.
nlohmann::json read_seam_file(const std::filesystem::path& path);
std::map<std::string, int> parse_quantities(const nlohmann::json& doc, const std::string& source);
std::vector<Seam> parse_seams(const nlohmann::json& doc, const CutPattern& cut, const std::string& source);
nlohmann::json seams_to_json(const CutPattern& cut, const std::vector<Seam>& seams);

/// Builds the pattern: one panel per cut piece, its outline split into polyline edges at the
/// seams' ends and at the corners outside seams; one stitch per seam. Panels sit flat at
/// the origin (the arrangement places them). Throws InputError for overlapping seams.
Pattern to_pattern(const CutPattern& cut, const std::vector<Seam>& seams, const std::string& name);

}  // namespace tryon::garments::dxf
