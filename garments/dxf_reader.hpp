#pragma once
// Reader for industry pattern files: DXF-AAMA and ASTM D6673 (the DXF R12/R13 subset the
// pattern CAD systems write). A file holds one style; each pattern piece of each size is a
// DXF BLOCK whose layers carry meaning [ASTM D6673-10, table of layers]:
//   1 piece boundary (cut line) and piece text   6 mirror (fold) line    13 drill holes
//   2 turn points, 3 curve points                7 grain line            14 sew lines
//   4 notches; 80 T-, 81 castle, 82 check, 83 U-notch                     8 internal lines
// Style text (ENTITIES, layer 1) gives "Style Name:", "Sample Size:", "Units:" (ENGLISH =
// inch, METRIC = mm; ENGLISH when absent, as the standard says) and "Grade Rule Table:".
// Piece text gives "Piece Name:", "Size:", "Quantity:", "Category:", "Annotation:".
// No DXF library in Debian fits (dxflib is GPL-2 and knows nothing of the AAMA layers), so
// this is a small group-code parser of our own [Autodesk, DXF Reference, "Group codes"].
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace tryon::garments::dxf {

/// One (group code, value) pair of the file; `line` is the code's 1-based line number.
struct GroupPair {
  int code = 0;
  std::string value;
  int line = 0;
};

/// Splits DXF text into pairs. Accepts LF, CRLF and CR line ends and surrounding blanks.
/// Throws InputError naming the source and line for a code that is not an integer, a file
/// that ends between a code and its value, or a binary DXF.
std::vector<GroupPair> tokenize(const std::string& text, const std::string& source);

enum class NotchType { slit, t_notch, castle, check, u_notch };
const char* to_string(NotchType type);

struct Notch {
  Vec2 position;            ///< metres, the file's frame
  NotchType type = NotchType::slit;
  double angle_deg = 0;     ///< group 50 when given (direction into the piece), else 0
  bool has_angle = false;
};

struct Segment2 {
  Vec2 a, b;  ///< metres
};

/// One pattern piece of one size. All coordinates in metres in the file's frame (an
/// INSERT's offset, scale and rotation already applied).
struct Piece {
  std::string block;                  ///< the DXF block name, e.g. "REGULAR TEEFR_50"
  std::string name;                   ///< "Piece Name:" text, else the block name less "_size"
  std::string size;                   ///< "Size:" text, else the block name's "_size" suffix
  int quantity = 1;                   ///< "Quantity:" (0: a reference piece, not cut)
  int flipped = -1;                   ///< of which mirrored (ASTM "Quantity: 1,1"); -1 unknown (AAMA)
  bool quantity_given = false;        ///< false: taken from the sample size's piece (or 1)
  std::string category, annotation;
  std::vector<Vec2> boundary;         ///< closed outline, no repeated end point, ≥ 3 points
  std::vector<Notch> notches;         ///< duplicates removed
  std::vector<Vec2> turn_points;      ///< layer 2 (corners), when the file gives them
  std::optional<Segment2> grain;      ///< layer 7: first point → second point
  std::optional<Segment2> mirror;     ///< layer 6: the fold line
  std::vector<std::vector<Vec2>> internal_lines;  ///< layer 8 (and 11, internal cut-outs)
  std::vector<std::vector<Vec2>> sew_lines;       ///< layer 14
  std::vector<Vec2> drill_holes;                  ///< layer 13
  int line = 0;                       ///< where the block starts, for messages
};

struct DxfPattern {
  std::string source;                 ///< file name, for messages
  std::string style;                  ///< "Style Name:"
  std::string author;                 ///< "Author:" (and "Product:")
  std::string units = "ENGLISH";      ///< as written in "Units:", upper case
  double metres_per_unit = 0.0254;
  bool units_given = false;
  std::string sample_size;            ///< "Sample Size:", else the first size
  std::string grade_rule_table;       ///< "Grade Rule Table:" when given
  std::vector<std::string> sizes;     ///< graded sizes in file order
  std::vector<Piece> pieces;          ///< every piece of every size
  std::vector<std::string> warnings;

  /// The pieces of one size in file order; InputError naming the sizes there are when absent.
  std::vector<const Piece*> pieces_of_size(const std::string& size) const;
};

/// Parses DXF text; `source` names it in messages. Throws InputError for anything that is
/// not a readable pattern: bad group codes, truncation, no pieces, a boundary of fewer than
/// three points, non-finite or absurd (> 1e6 units) coordinates, an unknown unit.
DxfPattern parse_dxf(const std::string& text, const std::string& source);

/// Reads and parses a file (at most 256 MB).
DxfPattern read_dxf(const std::filesystem::path& path);

/// True when the text looks like DXF: its first pair is "0 / SECTION" or a 999 comment.
bool looks_like_dxf(const std::string& head);

}  // namespace tryon::garments::dxf
