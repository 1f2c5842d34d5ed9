// A circle arc edge whose radius is below half its chord (no circle of that radius joins its
// ends) is refused by validate_pattern, naming the pattern, panel and edge; a half circle whose
// radius was written with rounding passes.
#include <gtest/gtest.h>

#include <string>

#include "garments/validate.hpp"

using namespace tryon;
using namespace tryon::garments;

namespace {

/// A 40 × 40 cm square "sleeve" whose bottom edge (edge 0, chord 40 cm) is a circle arc of
/// `radius_m`, bulging down, away from the square.
Pattern arc_pattern(double radius_m) {
  Panel p;
  p.name = "sleeve";
  p.vertices = {{0, 0}, {0.4, 0}, {0.4, 0.4}, {0, 0.4}};
  for (int k = 0; k < 4; ++k) {
    Edge e;
    e.start = k;
    e.end = (k + 1) % 4;
    p.edges.push_back(e);
  }
  p.edges[0].kind = CurveKind::arc;
  p.edges[0].radius = radius_m;
  p.edges[0].right = true;
  Pattern pattern;
  pattern.name = "cape";
  pattern.panels = {p};
  return pattern;
}

}  // namespace

TEST(ValidateArcs, RadiusBelowHalfTheChordIsRefusedNamingPatternPanelAndEdge) {
  const Diagnostics d = validate_pattern(arc_pattern(0.01));
  ASSERT_EQ(d.errors.size(), 1u) << ::testing::PrintToString(d.errors);
  const std::string& e = d.errors[0];
  EXPECT_NE(e.find("pattern 'cape'"), std::string::npos) << e;
  EXPECT_NE(e.find("panel 'sleeve', edge 0"), std::string::npos) << e;
  EXPECT_NE(e.find("circle radius 1.00 cm"), std::string::npos) << e;
  EXPECT_NE(e.find("less than half the distance between the edge's ends (20.00 cm)"), std::string::npos) << e;
  // Just below the tolerance: still refused.
  EXPECT_FALSE(validate_pattern(arc_pattern(0.2 * (1 - 1e-5))).ok());
}

TEST(ValidateArcs, HalfCirclesAndLargerRadiiPass) {
  for (const double r : {0.2, 0.2 * (1 - 1e-7), 0.2 * (1 + 1e-9), 0.25, 1.0}) {
    SCOPED_TRACE(r);
    const Diagnostics d = validate_pattern(arc_pattern(r));
    EXPECT_TRUE(d.ok()) << ::testing::PrintToString(d.errors);
    EXPECT_TRUE(d.warnings.empty()) << ::testing::PrintToString(d.warnings);
  }
}

TEST(ValidateArcs, ALargeArcOfAHugeRadiusIsRefusedForTheSizeItSpans) {
  // Its ends are 40 cm apart, but the long way round a circle of 10^19 m: the panel is that
  // large, not 40 cm (a fuzzer's finding: it overflowed the edge's segment count).
  Pattern pattern = arc_pattern(1e19);
  pattern.panels[0].edges[0].large_arc = true;
  const Diagnostics d = validate_pattern(pattern);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.errors[0].find("panel 'sleeve' is 1e+19 m × 1.98e+19 m; a panel larger than 4.00 m"),
            std::string::npos) << d.errors[0];
}
