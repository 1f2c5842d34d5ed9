#include "outputs/colors.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace tryon::outputs;

namespace {

void expect_valid_scale(const ColorScale& s) {
  ASSERT_GE(s.stops.size(), 2u);
  for (std::size_t i = 1; i < s.stops.size(); ++i) EXPECT_LT(s.stops[i - 1].value, s.stops[i].value);
  for (double t : s.ticks) {
    EXPECT_GE(t, s.stops.front().value);
    EXPECT_LE(t, s.stops.back().value);
  }
  EXPECT_FALSE(s.title.empty());
}

}  // namespace

TEST(ColorScale, ScalesAreWellFormed) {
  expect_valid_scale(strain_scale());
  expect_valid_scale(distance_scale());
}

TEST(ColorScale, StopsGiveTheirOwnColours) {
  for (const ColorScale* s : {&strain_scale(), &distance_scale()})
    for (const ColorStop& stop : s->stops)
      EXPECT_EQ(color_at(*s, stop.value), stop.color) << s->title << " " << stop.value;
}

TEST(ColorScale, StrainScaleIsBlueWhiteRedOverMinus5To15Percent) {
  const ColorScale& s = strain_scale();
  EXPECT_DOUBLE_EQ(s.stops.front().value, -0.05);
  EXPECT_DOUBLE_EQ(s.stops.back().value, 0.15);
  const Rgb blue = color_at(s, -0.05), white = color_at(s, 0.0), red = color_at(s, 0.15);
  EXPECT_GT(blue[2], blue[0]);                                      // blue end
  EXPECT_GT(red[0], red[2]);                                        // red end
  EXPECT_TRUE(white[0] > 240 && white[1] > 240 && white[2] > 240);  // white middle
  // Clamped outside the range.
  EXPECT_EQ(color_at(s, -0.5), blue);
  EXPECT_EQ(color_at(s, 3.0), red);
}

TEST(ColorScale, InterpolatesLinearlyBetweenStops) {
  const ColorScale& s = strain_scale();
  const Rgb a = s.stops[1].color, b = s.stops[2].color;
  const double mid = 0.5 * (s.stops[1].value + s.stops[2].value);
  const Rgb c = color_at(s, mid);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(c[k], 0.5 * (a[k] + b[k]), 0.5 + 1e-9);
}

TEST(ColorScale, StretchGetsRedderMonotonically) {
  // From white to red the green channel falls steadily; from blue to white it rises.
  const ColorScale& s = strain_scale();
  int previous = 256;
  for (int i = 0; i <= 150; ++i) {
    const int g = color_at(s, i * 0.001)[1];
    EXPECT_LE(g, previous);
    previous = g;
  }
  previous = -1;
  for (int i = -50; i <= 0; ++i) {
    const int g = color_at(s, i * 0.001)[1];
    EXPECT_GE(g, previous);
    previous = g;
  }
}

TEST(ColorScale, DistanceScaleRunsRedYellowGreenBlueOver0To5Cm) {
  const ColorScale& s = distance_scale();
  const Rgb touching = color_at(s, 0.0), one_cm = color_at(s, 0.01), mid = color_at(s, 0.025),
            far = color_at(s, 0.05);
  EXPECT_GT(touching[0], 2 * touching[1]);                             // red
  EXPECT_TRUE(one_cm[0] > 200 && one_cm[1] > 200 && one_cm[2] < 120);  // yellow
  EXPECT_TRUE(mid[1] > mid[0] && mid[1] > mid[2]);                     // green
  EXPECT_TRUE(far[2] > far[0] && far[2] > far[1]);                     // blue
  EXPECT_EQ(color_at(s, 1.0), far);                                    // clamped beyond 5 cm
  const Rgb inside = color_at(s, -0.05);  // inside the body: darker than touching
  EXPECT_LT(inside[0] + inside[1] + inside[2], touching[0] + touching[1] + touching[2]);
}

TEST(ColorScale, NanGivesTheNoDataColour) {
  EXPECT_EQ(color_at(strain_scale(), std::numeric_limits<double>::quiet_NaN()), kNoDataColor);
  EXPECT_EQ(color_at(distance_scale(), std::numeric_limits<double>::quiet_NaN()), kNoDataColor);
}
