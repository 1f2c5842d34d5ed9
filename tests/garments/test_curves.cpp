#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "garments/pattern.hpp"

using namespace tryon;
using namespace tryon::garments;

namespace {
Panel two_point_panel(const Vec2& a, const Vec2& b) {
  Panel p;
  p.vertices = {a, b};
  return p;
}
Edge edge(CurveKind kind, std::vector<Vec2> controls = {}) {
  Edge e;
  e.start = 0;
  e.end = 1;
  e.kind = kind;
  e.controls = std::move(controls);
  return e;
}
// Closed form of the quadratic Bézier arc length (integral of |B'(t)|).
double quadratic_length(const Vec2& p0, const Vec2& p1, const Vec2& p2) {
  const Vec2 a = p0 - 2 * p1 + p2, b = 2 * (p1 - p0);
  const double A = 4 * a.squaredNorm(), B = 4 * a.dot(b), C = b.squaredNorm();
  const double sabc = 2 * std::sqrt(A + B + C), a2 = std::sqrt(A), a32 = 2 * A * a2, c2 = 2 * std::sqrt(C);
  const double ba = B / a2;
  return (a32 * sabc + a2 * B * (sabc - c2) + (4 * C * A - B * B) * std::log((2 * a2 + ba + sabc) / (ba + c2))) /
         (4 * a32);
}
}  // namespace

TEST(Curves, StraightEdgeLengthAndSamples) {
  const Panel p = two_point_panel({0, 0}, {0.3, 0.4});
  const Edge e = edge(CurveKind::straight);
  EXPECT_DOUBLE_EQ(edge_length(p, e), 0.5);
  const auto s = sample_edge(p, e, 5);
  ASSERT_EQ(s.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR((s[i] - Vec2(0.06 * i, 0.08 * i)).norm(), 0, 1e-15);
}

TEST(Curves, QuadraticLengthMatchesClosedForm) {
  const Panel p = two_point_panel({0, 0}, {1, 0});
  for (const Vec2& c : {Vec2(0.5, 0.3), Vec2(0.1, -0.8), Vec2(0.9, 0.05)}) {
    const Edge e = edge(CurveKind::quadratic, {c});
    EXPECT_NEAR(edge_length(p, e), quadratic_length({0, 0}, c, {1, 0}), 1e-10);
  }
}

TEST(Curves, CubicThatIsAStraightLineHasItsLength) {
  // Control points on the chord, unevenly spaced: the length is still the chord's.
  const Panel p = two_point_panel({0, 0}, {2, 0});
  const Edge e = edge(CurveKind::cubic, {Vec2(0.2, 0), Vec2(0.5, 0)});
  EXPECT_NEAR(edge_length(p, e), 2.0, 1e-9);
  // Equal arc-length samples are evenly spaced along the line despite the uneven speed.
  const auto s = sample_edge(p, e, 8);
  for (int i = 0; i <= 8; ++i) EXPECT_NEAR(s[i].x(), 0.25 * i, 1e-9);
}

TEST(Curves, CubicSamplesHaveEqualArcLengthAndLieOnTheCurve) {
  const Panel p = two_point_panel({0, 0}, {1, 0});
  const Edge e = edge(CurveKind::cubic, {Vec2(0.2, 0.5), Vec2(0.9, -0.4)});
  const double total = edge_length(p, e);
  const auto s = sample_edge(p, e, 10);
  // Arc length between successive samples, measured by a fine polyline of the curve.
  const int fine = 200000;
  std::vector<double> cum(fine + 1, 0);
  Vec2 prev = edge_point(p, e, 0);
  for (int i = 1; i <= fine; ++i) {
    const Vec2 q = edge_point(p, e, static_cast<double>(i) / fine);
    cum[i] = cum[i - 1] + (q - prev).norm();
    prev = q;
  }
  EXPECT_NEAR(cum.back(), total, 1e-8);
  for (int k = 1; k < 10; ++k) {
    // Find the curve parameter of sample k by nearest fine point, then its arc length.
    int best = 0;
    double bd = 1e9;
    for (int i = 0; i <= fine; i += 1) {
      const double d = (edge_point(p, e, static_cast<double>(i) / fine) - s[k]).squaredNorm();
      if (d < bd) bd = d, best = i;
    }
    EXPECT_LT(std::sqrt(bd), 1e-5) << "sample " << k << " is off the curve";
    EXPECT_NEAR(cum[best], total * k / 10, 1e-5);
  }
}

TEST(Curves, ArcLengthAndBulgeSide) {
  // Half circle of radius 0.5 from (0,0) to (1,0).
  const Panel p = two_point_panel({0, 0}, {1, 0});
  Edge e = edge(CurveKind::arc);
  e.radius = 0.5;
  e.right = true;
  EXPECT_NEAR(edge_length(p, e), std::numbers::pi * 0.5, 1e-12);
  EXPECT_LT(edge_point(p, e, 0.5).y(), -0.49);  // bulges to the right of +x, i.e. down
  e.right = false;
  EXPECT_GT(edge_point(p, e, 0.5).y(), 0.49);
  // Minor and major arcs of radius 1 over a chord of 1: 60° and 300°.
  e.radius = 1.0;
  e.large_arc = false;
  EXPECT_NEAR(edge_length(p, e), std::numbers::pi / 3, 1e-12);
  e.large_arc = true;
  EXPECT_NEAR(edge_length(p, e), 5 * std::numbers::pi / 3, 1e-12);
  const auto s = sample_edge(p, e, 12);
  for (const Vec2& q : s) {
    // Every sample lies on the circle through the end points with radius 1.
    const Vec2 centre(0.5, e.right == e.large_arc ? -std::sqrt(0.75) : std::sqrt(0.75));
    EXPECT_NEAR((q - centre).norm(), 1.0, 1e-12);
  }
  // A radius smaller than half the chord is raised to it, as SVG does.
  e.radius = 0.1;
  e.large_arc = false;
  EXPECT_NEAR(edge_length(p, e), std::numbers::pi * 0.5, 1e-12);
}

TEST(Curves, PanelRotationIsZYX) {
  // R = Rz·Ry·Rx: rotating x by 90° about x then z by 90° about z.
  const Mat3 R = panel_rotation(Vec3(90, 0, 90));
  EXPECT_TRUE((R * Vec3::UnitY()).isApprox(Vec3::UnitZ(), 1e-12));
  EXPECT_TRUE((R * Vec3::UnitX()).isApprox(Vec3::UnitY(), 1e-12));
  Panel p;
  p.translation = Vec3(1, 2, 3);
  p.rotation_deg = Vec3(0, 180, 0);
  EXPECT_TRUE(place_point(p, Vec2(1, 1)).isApprox(Vec3(0, 3, 3), 1e-12));
}
