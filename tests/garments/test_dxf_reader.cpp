// The DXF-AAMA / ASTM reader: group codes, entities, piece text, units, graded sizes, the
// shared CAD exports, and hostile input (every refusal an InputError naming the problem).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "garments/dxf_pieces.hpp"
#include "garments/dxf_reader.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::garments::dxf;

namespace {

// Builds DXF text from (code, value) lines.
struct Dxf {
  std::string text;
  Dxf& operator()(int code, const std::string& value) {
    text += std::to_string(code) + "\n" + value + "\n";
    return *this;
  }
};

// A 10 × 20 unit rectangle piece with a grain line along +y, a notch, a drill hole, a fold
// line on its left edge, an internal and a sew line, in block NAME_SIZE.
void add_piece(Dxf& d, const std::string& name, const std::string& size, const std::string& quantity = "2") {
  d(0, "BLOCK")(8, "0")(2, name + "_" + size)(70, "64")(10, "0")(20, "0");
  d(0, "TEXT")(8, "1")(10, "1")(20, "1")(1, "Piece Name: " + name);
  d(0, "TEXT")(8, "1")(10, "1")(20, "2")(1, "Size: " + size);
  d(0, "TEXT")(8, "1")(10, "1")(20, "3")(1, "Quantity: " + quantity);
  d(0, "TEXT")(8, "1")(10, "1")(20, "4")(1, "Category: FRONT");
  // The boundary as two polyline pieces, the second one drawn backwards.
  d(0, "POLYLINE")(8, "1")(66, "1")(70, "0");
  d(0, "VERTEX")(8, "1")(10, "0")(20, "0");
  d(0, "VERTEX")(8, "1")(10, "10")(20, "0");
  d(0, "VERTEX")(8, "1")(10, "10")(20, "20");
  d(0, "SEQEND")(8, "1");
  d(0, "POLYLINE")(8, "1")(66, "1")(70, "0");
  d(0, "VERTEX")(8, "1")(10, "0")(20, "0");
  d(0, "VERTEX")(8, "1")(10, "0")(20, "20");
  d(0, "VERTEX")(8, "1")(10, "10")(20, "20");
  d(0, "SEQEND")(8, "1");
  d(0, "POINT")(8, "4")(10, "10")(20, "10")(50, "180");
  d(0, "POINT")(8, "4")(10, "10")(20, "10");  // the same notch twice, as Gerber writes it
  d(0, "POINT")(8, "81")(10, "5")(20, "0");
  d(0, "LINE")(8, "7")(10, "5")(20, "5")(11, "5")(21, "15");
  d(0, "LINE")(8, "6")(10, "0")(20, "0")(11, "0")(21, "20");
  d(0, "LWPOLYLINE")(8, "8")(90, "2")(70, "0")(10, "2")(20, "2")(10, "8")(20, "2");
  d(0, "LINE")(8, "14")(10, "1")(20, "1")(11, "9")(21, "1");
  d(0, "POINT")(8, "13")(10, "5")(20, "12");
  d(0, "ENDBLK")(8, "0");
}

std::string make_file(const std::string& units = "METRIC", bool sample = true) {
  Dxf d;
  d(0, "SECTION")(2, "HEADER")(0, "ENDSEC");
  d(0, "SECTION")(2, "BLOCKS");
  add_piece(d, "FRONT", "S");
  add_piece(d, "FRONT", "M");
  d(0, "ENDSEC");
  d(0, "SECTION")(2, "ENTITIES");
  d(0, "TEXT")(8, "1")(10, "0")(20, "0")(1, "Style Name: TEST STYLE");
  if (sample) d(0, "TEXT")(8, "1")(10, "0")(20, "0")(1, "Sample Size: M");
  if (!units.empty()) d(0, "TEXT")(8, "1")(10, "0")(20, "0")(1, "Units: " + units);
  d(0, "INSERT")(8, "1")(2, "FRONT_S")(10, "0")(20, "0");
  d(0, "INSERT")(8, "1")(2, "FRONT_M")(10, "100")(20, "0");
  d(0, "ENDSEC")(0, "EOF");
  return d.text;
}

void expect_input_error(const std::string& text, const std::string& fragment) {
  try {
    parse_dxf(text, "hostile.dxf");
    FAIL() << "no error; expected one containing '" << fragment << "'";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("hostile.dxf"), std::string::npos) << msg;
    EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
  }
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) s.replace(pos, from.size(), to);
  return s;
}

}  // namespace

TEST(DxfReader, TokenizerAcceptsCrlfAndBlanksAndNamesBadLines) {
  const auto pairs = tokenize("  0\r\nSECTION  \r\n2\r\nBLOCKS\r\n", "t.dxf");
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].code, 0);
  EXPECT_EQ(pairs[0].value, "SECTION");
  EXPECT_EQ(pairs[1].line, 3);
  try {
    tokenize("0\nSECTION\nabc\nBLOCKS\n", "t.dxf");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.dxf:3"), std::string::npos) << e.what();
  }
}

TEST(DxfReader, ReadsPiecesSizesAndLayers) {
  const DxfPattern p = parse_dxf(make_file(), "test.dxf");
  EXPECT_EQ(p.style, "TEST STYLE");
  EXPECT_EQ(p.units, "METRIC");
  EXPECT_DOUBLE_EQ(p.metres_per_unit, 0.001);
  EXPECT_EQ(p.sample_size, "M");
  ASSERT_EQ(p.sizes, (std::vector<std::string>{"S", "M"}));
  const auto pieces = p.pieces_of_size("M");
  ASSERT_EQ(pieces.size(), 1u);
  const Piece& m = *pieces[0];
  EXPECT_EQ(m.name, "FRONT");
  EXPECT_EQ(m.quantity, 2);
  EXPECT_EQ(m.category, "FRONT");
  // Two polylines chained into one 4-corner loop, in metres, moved by the INSERT.
  ASSERT_EQ(m.boundary.size(), 4u);
  double xmin = 1e9, xmax = -1e9, ymax = -1e9;
  for (const auto& q : m.boundary) xmin = std::min(xmin, q.x()), xmax = std::max(xmax, q.x()), ymax = std::max(ymax, q.y());
  EXPECT_NEAR(xmin, 0.100, 1e-12);
  EXPECT_NEAR(xmax, 0.110, 1e-12);
  EXPECT_NEAR(ymax, 0.020, 1e-12);
  // The duplicate notch is dropped; the castle notch has its type; the angle is kept.
  ASSERT_EQ(m.notches.size(), 2u);
  EXPECT_TRUE(m.notches[0].has_angle);
  EXPECT_DOUBLE_EQ(m.notches[0].angle_deg, 180);
  EXPECT_EQ(m.notches[1].type, NotchType::castle);
  ASSERT_TRUE(m.grain && m.mirror);
  EXPECT_NEAR((m.grain->b - m.grain->a).y(), 0.010, 1e-12);
  EXPECT_EQ(m.internal_lines.size(), 1u);
  EXPECT_EQ(m.internal_lines[0].size(), 2u);
  EXPECT_EQ(m.sew_lines.size(), 1u);
  EXPECT_EQ(m.drill_holes.size(), 1u);
  EXPECT_THROW(p.pieces_of_size("XL"), InputError);
}

TEST(DxfReader, UnitsEnglishByDefaultAndUnknownRefused) {
  const DxfPattern inch = parse_dxf(make_file("ENGLISH"), "t.dxf");
  EXPECT_DOUBLE_EQ(inch.metres_per_unit, 0.0254);
  const DxfPattern none = parse_dxf(make_file(""), "t.dxf");
  EXPECT_FALSE(none.units_given);
  EXPECT_DOUBLE_EQ(none.metres_per_unit, 0.0254);
  ASSERT_FALSE(none.warnings.empty());
  expect_input_error(make_file("FURLONGS"), "unknown unit");
  // Without a Sample Size text the first size is the sample.
  EXPECT_EQ(parse_dxf(make_file("METRIC", false), "t.dxf").sample_size, "S");
}

TEST(DxfReader, AstmQuantityPairs) {
  const std::string t = replace(make_file(), "Quantity: 2", "Quantity: 1,1");
  const DxfPattern p = parse_dxf(t, "t.dxf");
  EXPECT_EQ(p.pieces[0].quantity, 2);
  EXPECT_EQ(p.pieces[0].flipped, 1);
  expect_input_error(replace(make_file(), "Quantity: 2", "Quantity: lots"), "Quantity");
}

TEST(DxfReader, HostileInputIsRefusedWithReasons) {
  const std::string good = make_file();
  expect_input_error("", "empty");
  expect_input_error(good.substr(0, good.size() / 2), "truncated");
  expect_input_error(good.substr(0, good.find("ENTITIES") + 9) + "0\n", "truncated");
  expect_input_error(replace(good, "\n0\nPOLYLINE\n", "\nxyz\nPOLYLINE\n"), "group code");
  expect_input_error(replace(good, "\n0\nPOLYLINE\n", "\n99999\nPOLYLINE\n"), "group code");
  expect_input_error("0\nSECTION\n2\nENTITIES\n0\nENDSEC\n0\nEOF\n", "no BLOCKS");
  expect_input_error(replace(good, "10\n10\n20\n0\n", "10\nnan\n20\n0\n"), "finite");
  expect_input_error(replace(good, "10\n10\n20\n0\n", "10\n1e300\n20\n0\n"), "out of range");
  expect_input_error(replace(good, "10\n10\n20\n0\n", "10\n12abc\n20\n0\n"), "must be a number");
  expect_input_error(replace(good, "2\nFRONT_M\n10\n100", "2\nBACK_M\n10\n100"), "does not define");
  expect_input_error("AutoCAD Binary DXF\r\n\x1a", "binary");
  // An empty polyline: a block whose boundary has no points.
  Dxf d;
  d(0, "SECTION")(2, "BLOCKS")(0, "BLOCK")(2, "P_M")(0, "POLYLINE")(8, "1")(66, "1")(0, "SEQEND")(0, "ENDBLK")(0, "ENDSEC");
  d(0, "EOF");
  expect_input_error(d.text, "at least 3");
  // A block that never ends.
  Dxf e;
  e(0, "SECTION")(2, "BLOCKS")(0, "BLOCK")(2, "P_M")(0, "POINT")(8, "4")(10, "0")(20, "0");
  expect_input_error(e.text, "ENDBLK");
}

// The shared CAD exports (Gerber AccuMark AAMA and ASTM, CLO): every one loads, with the
// pieces, sizes and units SOURCE.md lists and sizes of garment pieces.
TEST(DxfReader, EverySharedFileLoads) {
  TRYON_REQUIRE_SHARED("patterns/dxf/MEN_CLASSIC_TEE.DXF");
  struct Expect {
    const char* file;
    std::size_t sizes;
    const char* sample;
    std::size_t pieces_per_size;
    double metres_per_unit;
  };
  const Expect files[] = {
      {"WM_SLIM_TANK.DXF", 14, "36", 2, 0.0254},     {"MEN_CLASSIC_TEE.DXF", 15, "50", 7, 0.0254},
      {"ORILEGWB_AAMA.DXF", 14, "36", 2, 0.001},     {"ORILEGWB_ASTM.DXF", 14, "36", 2, 0.001},
      {"GMH1006F18_AAMA.DXF", 15, "50", 6, 0.001},   {"GMH1006F18_ASTM.DXF", 15, "50", 6, 0.001},
      {"clo-pattern.dxf", 1, "M", 9, 0.001},         {"clo-box.dxf", 1, "M", 1, 0.0254},
  };
  for (const Expect& x : files) {
    SCOPED_TRACE(x.file);
    const DxfPattern p = read_dxf(tryon::test::shared_data_path(std::string("patterns/dxf/") + x.file));
    EXPECT_TRUE(p.units_given);
    EXPECT_DOUBLE_EQ(p.metres_per_unit, x.metres_per_unit);
    EXPECT_EQ(p.sizes.size(), x.sizes);
    EXPECT_EQ(p.sample_size, x.sample);
    EXPECT_EQ(p.pieces.size(), x.sizes * x.pieces_per_size);
    for (const std::string& size : p.sizes) {
      const auto pieces = p.pieces_of_size(size);
      EXPECT_EQ(pieces.size(), x.pieces_per_size) << size;
      for (const Piece* piece : pieces) {
        Vec2 lo = Vec2::Constant(1e9), hi = Vec2::Constant(-1e9);
        for (const Vec2& q : piece->boundary) lo = lo.cwiseMin(q), hi = hi.cwiseMax(q);
        // A garment piece is between 1 cm and 3.1 m across (the CLO box is 3 m).
        EXPECT_GT((hi - lo).maxCoeff(), 0.01) << piece->name;
        EXPECT_LT((hi - lo).maxCoeff(), 3.1) << piece->name;
        EXPECT_TRUE(piece->grain.has_value()) << piece->name;
      }
    }
  }
}

TEST(DxfReader, MensTeeSampleSizeInDetail) {
  TRYON_REQUIRE_SHARED("patterns/dxf/MEN_CLASSIC_TEE.DXF");
  const DxfPattern p = read_dxf(tryon::test::shared_data_path("patterns/dxf/MEN_CLASSIC_TEE.DXF"));
  EXPECT_EQ(p.style, "MEN CLASSIC TEE");
  const auto pieces = p.pieces_of_size("50");
  std::vector<std::string> names;
  for (const Piece* q : pieces) names.push_back(q->name);
  EXPECT_EQ(names, (std::vector<std::string>{"REGULAR TEEFR", "REGULAR TEEBK", "REGULAR TEESL1", "REGULAR TEECO",
                                             "REGULAR TEESFCO", "REGULAR TEESL BK", "REGULAR TEESL FR"}));
  const Piece& front = *pieces[0];
  EXPECT_EQ(front.quantity, 1);
  EXPECT_EQ(front.category, "FRONT");
  EXPECT_TRUE(front.mirror.has_value());
  EXPECT_EQ(front.notches.size(), 3u);
  // The half front: 71.5 cm long (along the grain) and 26.3 cm wide (half the chest).
  Vec2 lo = Vec2::Constant(1e9), hi = Vec2::Constant(-1e9);
  for (const Vec2& q : front.boundary) lo = lo.cwiseMin(q), hi = hi.cwiseMax(q);
  EXPECT_NEAR((hi - lo).x() * 100, 71.5, 0.1);
  EXPECT_NEAR((hi - lo).y() * 100, 26.3, 0.1);
  // Graded sizes grow: the size 42 front is narrower than the size 70 one.
  auto width = [&](const std::string& size) {
    double ymin = 1e9, ymax = -1e9;
    for (const Vec2& q : p.pieces_of_size(size)[0]->boundary) ymin = std::min(ymin, q.y()), ymax = std::max(ymax, q.y());
    return ymax - ymin;
  };
  EXPECT_LT(width("42"), width("50"));
  EXPECT_LT(width("50"), width("70"));
  // Notches are only in the sample size's blocks in these Gerber exports.
  EXPECT_TRUE(p.pieces_of_size("42")[0]->notches.empty());
  EXPECT_EQ(pieces[1]->drill_holes.size(), 1u);  // the back's drill hole
}

// Mutated files (lines dropped, swapped, replaced by noise, the file cut anywhere) either
// read or are refused with an InputError: never another exception, never a crash. Fixed
// seeds: the same mutations every run.
TEST(DxfReader, MutatedFilesReadOrAreRefusedCleanly) {
  std::vector<std::string> lines;
  {
    const std::string text = make_file();
    std::size_t a = 0;
    for (std::size_t b; (b = text.find('\n', a)) != std::string::npos; a = b + 1) lines.push_back(text.substr(a, b - a));
  }
  const char* noise[] = {"", "-1", "1e309", "NaN", "0", "SECTION", "ENDBLK", "99999", "  7  ", "\xff\xfe", "POLYLINE"};
  std::uint64_t state = 12345;
  auto next = [&](std::uint64_t n) {  // xorshift: the same sequence on every platform
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state % n;
  };
  int read = 0, refused = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<std::string> m = lines;
    const int edits = 1 + static_cast<int>(next(3));
    for (int e = 0; e < edits; ++e) {
      const std::size_t i = next(m.size());
      switch (next(4)) {
        case 0: m.erase(m.begin() + static_cast<std::ptrdiff_t>(i)); break;
        case 1: std::swap(m[i], m[next(m.size())]); break;
        case 2: m[i] = noise[next(std::size(noise))]; break;
        case 3: m.resize(i); break;
      }
      if (m.empty()) break;
    }
    std::string text;
    for (const auto& l : m) text += l + "\n";
    try {
      const DxfPattern p = parse_dxf(text, "mutated.dxf");
      EXPECT_FALSE(p.pieces.empty());
      for (const Piece& piece : p.pieces) EXPECT_GE(piece.boundary.size(), 3u);
      // What reads goes on through cutting, matching and pattern building.
      const CutPattern cut = cut_pieces(p);
      std::vector<std::string> notes;
      const auto seams = propose_seams(cut, notes);
      EXPECT_FALSE(to_pattern(cut, seams, "m").panels.empty());
      ++read;
    } catch (const InputError&) {
      ++refused;
    }
  }
  EXPECT_EQ(read + refused, 400);
  EXPECT_GT(refused, 100);  // most mutations break the file, and are caught
  EXPECT_GT(read, 20);      // some survive (a dropped text, a swapped vertex) and go all the way
}
