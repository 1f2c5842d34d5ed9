#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "garments/garmentcode_reader.hpp"
#include "garments/validate.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::garments;
namespace fs = std::filesystem;

namespace {
// A square panel (cm) and a triangle panel stitched along one edge.
const char* kGood = R"({
  "pattern": {
    "panels": {
      "front": {"vertices": [[0,0],[40,0],[40,40],[0,40]],
                "edges": [{"endpoints":[0,1]},
                          {"endpoints":[1,2], "curvature": {"type":"quadratic","params":[[0.5,0.1]]}},
                          {"endpoints":[2,3], "label": "collar"},
                          {"endpoints":[3,0]}],
                "translation": [0, 100, 20], "rotation": [0, 0, 0]},
      "back":  {"vertices": [[0,0],[40,0],[20,40]],
                "edges": [{"endpoints":[0,2]}, {"endpoints":[2,1]}, {"endpoints":[1,0]}],
                "translation": [0, 100, -20], "rotation": [0, 180, 0]}
    },
    "stitches": [[{"panel":"front","edge":0},{"panel":"back","edge":2}]]
  },
  "properties": {"units_in_meter": 100, "curvature_coords": "relative"}
})";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) s.replace(pos, from.size(), to);
  return s;
}

// Parses and expects an InputError whose message contains every fragment.
void expect_error(const std::string& text, std::initializer_list<const char*> fragments) {
  try {
    parse_garmentcode(text, "test.json");
    FAIL() << "no error for: " << text.substr(0, 200);
  } catch (const InputError& e) {
    for (const char* f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
  }
}

void expect_validation_error(const std::string& text, const char* fragment) {
  const Pattern p = parse_garmentcode(text, "test.json");
  const Diagnostics d = validate_pattern(p);
  ASSERT_FALSE(d.ok()) << "expected a validation error containing '" << fragment << "'";
  bool found = false;
  for (const auto& e : d.errors) found |= e.find(fragment) != std::string::npos;
  EXPECT_TRUE(found) << d.errors.front();
}
}  // namespace

TEST(GarmentCodeReader, ReadsPanelsEdgesStitchesInMetres) {
  const Pattern p = parse_garmentcode(kGood, "good.json");
  ASSERT_EQ(p.panels.size(), 2u);
  const Panel& front = p.panels[p.find_panel("front")];
  EXPECT_TRUE(front.vertices[1].isApprox(Vec2(0.4, 0)));
  EXPECT_TRUE(front.translation.isApprox(Vec3(0, 1.0, 0.2)));
  EXPECT_EQ(front.edges[1].kind, CurveKind::quadratic);
  // Relative control point [0.5, 0.1] on edge (0.4,0)->(0.4,0.4): s + 0.5 d + 0.1 perp(d).
  EXPECT_TRUE(front.edges[1].controls[0].isApprox(Vec2(0.4 - 0.04, 0.2)));
  EXPECT_EQ(front.edges[2].label, "collar");
  ASSERT_EQ(p.stitches.size(), 1u);
  EXPECT_EQ(p.stitches[0].b.panel, p.find_panel("back"));
  EXPECT_EQ(p.stitches[0].b.edge, 2);
  EXPECT_FALSE(p.legacy_format);
  EXPECT_TRUE(validate_pattern(p).ok());
}

TEST(GarmentCodeReader, LegacyBareCurvatureListAndUnits) {
  std::string t = replace(kGood, R"("curvature": {"type":"quadratic","params":[[0.5,0.1]]})", R"("curvature": [0.5, 0.1])");
  t = replace(t, R"("units_in_meter": 100)", R"("units_in_meter": 300)");
  const Pattern p = parse_garmentcode(t, "legacy.json");
  EXPECT_TRUE(p.legacy_format);
  const Panel& front = p.panels[p.find_panel("front")];
  EXPECT_EQ(front.edges[1].kind, CurveKind::quadratic);
  EXPECT_NEAR(front.vertices[1].x(), 40.0 / 300, 1e-15);
}

TEST(GarmentCodeReader, BadInputIsAnInputErrorNamingTheProblem) {
  expect_error("", {"not valid JSON"});
  expect_error(std::string(kGood).substr(0, 300), {"not valid JSON"});
  expect_error("[1, 2, 3]", {"pattern"});
  expect_error(std::string(200, '[') + std::string(200, ']'), {"nesting"});
  expect_error(replace(kGood, R"("type":"quadratic")", R"("type":"spline")"), {"panel 'front', edge 1", "unknown curve type 'spline'"});
  expect_error(replace(kGood, R"("panel":"back","edge":2)", R"("panel":"sleeve","edge":2)"), {"stitch 0", "'sleeve'", "does not exist"});
  expect_error(replace(kGood, R"("panel":"back","edge":2)", R"("panel":"back","edge":7)"), {"stitch 0", "out of range"});
  expect_error(replace(kGood, R"({"endpoints":[3,0]})", R"({"endpoints":[3,9]})"), {"panel 'front', edge 3", "out of range"});
  expect_error(replace(kGood, "[40,0],[40,40]", "[40,0],[1e999,40]"), {"1e999"});
  expect_error(replace(kGood, "[40,0],[40,40]", R"([40,0],["x",40])"), {"panel 'front'", "number"});
  expect_error(replace(kGood, R"("translation": [0, 100, 20])", R"("translation": [0, 100])"), {"translation"});
  expect_error(replace(kGood, R"("units_in_meter": 100)", R"("units_in_meter": 0)"), {"units_in_meter"});
  expect_error(replace(kGood, R"("units_in_meter": 100)", R"("units_in_meter": -5)"), {"units_in_meter"});
  expect_error(replace(kGood, R"("vertices": [[0,0],[40,0],[20,40]])", R"("vertices": [[0,0],[40,0]])"), {"panel 'back'", "at least 3"});
  expect_error(replace(kGood, R"("stitches": [)", R"("stitches": 5, "x": [)"), {"stitches"});
}

TEST(GarmentCodeReader, ValidationNamesPanelAndEdge) {
  expect_validation_error(replace(kGood, R"({"endpoints":[3,0]})", R"({"endpoints":[2,0]})"), "not a closed loop");
  expect_validation_error(replace(kGood, R"({"endpoints":[0,2]}, {"endpoints":[2,1]}, {"endpoints":[1,0]})",
                                  R"({"endpoints":[0,2]}, {"endpoints":[2,2]}, {"endpoints":[2,1]}, {"endpoints":[1,0]})"),
                          "zero length");
  // A bow tie: the outline crosses itself.
  expect_validation_error(replace(kGood, "[[0,0],[40,0],[40,40],[0,40]]", "[[0,0],[40,0],[0,40],[40,40]]"), "crosses itself");
  // Collinear triangle.
  expect_validation_error(replace(kGood, "[[0,0],[40,0],[20,40]]", "[[0,0],[40,0],[20,0]]"), "no area");
  // A panel 10 m wide.
  expect_validation_error(replace(kGood, "[[0,0],[40,0],[20,40]]", "[[0,0],[1000,0],[20,40]]"), "larger than");
  // The same edge in two stitches.
  expect_validation_error(replace(kGood, R"([[{"panel":"front","edge":0},{"panel":"back","edge":2}]])",
                                  R"([[{"panel":"front","edge":0},{"panel":"back","edge":2}],[{"panel":"front","edge":0},{"panel":"back","edge":1}]])"),
                          "two stitches");
  expect_validation_error(replace(kGood, R"({"panel":"back","edge":2})", R"({"panel":"front","edge":0})"), "to itself");
}

TEST(GarmentCodeReader, StitchLengthMismatchIsAWarningWithTheRatio) {
  const Pattern p = parse_garmentcode(replace(kGood, "[[0,0],[40,0],[20,40]]", "[[0,0],[60,0],[20,40]]"), "t.json");
  const Diagnostics d = validate_pattern(p);
  EXPECT_TRUE(d.ok());
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("1.50"), std::string::npos) << d.warnings[0];
}

TEST(GarmentCodeReader, FilesThatAreNotPatterns) {
  const fs::path dir = fs::temp_directory_path() / ("tryon_reader_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  EXPECT_THROW(read_garmentcode(dir / "missing.json"), InputError);
  EXPECT_THROW(read_garmentcode(dir), InputError);
  std::ofstream(dir / "empty.json").close();
  EXPECT_THROW(read_garmentcode(dir / "empty.json"), InputError);
  std::ofstream(dir / "binary.json", std::ios::binary) << std::string("\x89PNG\r\n\x1a\n\0\0\xff", 12);
  EXPECT_THROW(read_garmentcode(dir / "binary.json"), InputError);
  fs::remove_all(dir);
}

TEST(GarmentCodeReader, EverySharedPatternLoadsAndValidates) {
  TRYON_REQUIRE_SHARED("patterns/garmentcode/specs");
  int count = 0;
  for (const char* folder : {"patterns/garmentcode/specs", "patterns/garmentcode_gpg/templates"}) {
    for (const auto& entry : fs::recursive_directory_iterator(test::shared_data() / folder)) {
      if (entry.path().extension() != ".json") continue;
      SCOPED_TRACE(entry.path().string());
      const Pattern p = read_garmentcode(entry.path());
      EXPECT_GE(p.panels.size(), 2u);
      EXPECT_GE(p.stitches.size(), 1u);
      const Diagnostics d = validate_pattern(p);
      for (const auto& e : d.errors) ADD_FAILURE() << e;
      // Default pairing: start of A meets end of B. In 3D, placed, the seam's two ends pair up:
      // the pairing's end-to-end distance must be the shorter of the two orientations (or tied).
      ++count;
    }
  }
  EXPECT_EQ(count, 21);
}
