#include "garments/pattern.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace tryon::garments {

const char* to_string(CurveKind kind) {
  switch (kind) {
    case CurveKind::straight: return "straight";
    case CurveKind::quadratic: return "quadratic";
    case CurveKind::cubic: return "cubic";
    case CurveKind::arc: return "circle";
    case CurveKind::polyline: return "polyline";
  }
  return "?";
}

int Pattern::find_panel(const std::string& panel_name) const {
  for (std::size_t i = 0; i < panels.size(); ++i)
    if (panels[i].name == panel_name) return static_cast<int>(i);
  return -1;
}

namespace {

struct ArcGeometry {
  Vec2 centre;
  double radius, angle0, sweep;  // signed sweep: > 0 counter-clockwise
};

// SVG endpoint parameterisation to centre form [W3C SVG 1.1, Appendix F.6.5], y-up frame.
// An arc that bulges to the right of start→end is traversed counter-clockwise.
ArcGeometry arc_geometry(const Vec2& s, const Vec2& e, const Edge& edge) {
  const Vec2 chord = e - s;
  const double half = 0.5 * chord.norm();
  const double r = std::max(edge.radius, half);
  const double h = std::sqrt(std::max(0.0, r * r - half * half));
  const Vec2 left = half > 0 ? Vec2(-chord.y(), chord.x()) / (2 * half) : Vec2(0, 1);
  // Minor arc: the centre lies opposite the bulge; major arc: on the bulge's side.
  const bool centre_left = edge.right != edge.large_arc;
  const Vec2 centre = 0.5 * (s + e) + (centre_left ? h : -h) * left;
  const double a0 = std::atan2(s.y() - centre.y(), s.x() - centre.x());
  const double a1 = std::atan2(e.y() - centre.y(), e.x() - centre.x());
  double sweep = a1 - a0;
  const double two_pi = 2 * std::numbers::pi;
  if (edge.right) {  // counter-clockwise
    while (sweep <= 0) sweep += two_pi;
  } else {
    while (sweep >= 0) sweep -= two_pi;
  }
  // A half circle (h = 0) can come out as ±2π minus rounding; a full turn is never meant.
  if (std::abs(sweep) > two_pi - 1e-12) sweep = std::copysign(std::numbers::pi, sweep);
  return {centre, r, a0, sweep};
}

// A polyline edge's points: start, inner points, end.
std::vector<Vec2> polyline_points(const Panel& panel, const Edge& e) {
  std::vector<Vec2> pts{panel.vertices[e.start]};
  pts.insert(pts.end(), e.controls.begin(), e.controls.end());
  pts.push_back(panel.vertices[e.end]);
  return pts;
}

double polyline_length(const Panel& panel, const Edge& e) {
  const auto pts = polyline_points(panel, e);
  double sum = 0;
  for (std::size_t i = 0; i + 1 < pts.size(); ++i) sum += (pts[i + 1] - pts[i]).norm();
  return sum;
}

// The point at arc-length fraction t and the unit direction of the piece it lies on.
std::pair<Vec2, Vec2> polyline_at(const Panel& panel, const Edge& e, double t) {
  const auto pts = polyline_points(panel, e);
  const double target = std::clamp(t, 0.0, 1.0) * polyline_length(panel, e);
  double run = 0;
  for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
    const double len = (pts[i + 1] - pts[i]).norm();
    if (len <= 0) continue;
    if (run + len >= target || i + 2 == pts.size()) {
      const double f = std::clamp((target - run) / len, 0.0, 1.0);
      return {pts[i] + f * (pts[i + 1] - pts[i]), (pts[i + 1] - pts[i]) / len};
    }
    run += len;
  }
  return {pts.front(), Vec2::Zero()};
}

Vec2 derivative(const Panel& panel, const Edge& e, double t) {
  const Vec2& p0 = panel.vertices[e.start];
  const Vec2& p3 = panel.vertices[e.end];
  switch (e.kind) {
    case CurveKind::straight: return p3 - p0;
    case CurveKind::quadratic: {
      const Vec2& c = e.controls[0];
      return 2 * (1 - t) * (c - p0) + 2 * t * (p3 - c);
    }
    case CurveKind::cubic: {
      const Vec2 &c1 = e.controls[0], &c2 = e.controls[1];
      const double u = 1 - t;
      return 3 * u * u * (c1 - p0) + 6 * u * t * (c2 - c1) + 3 * t * t * (p3 - c2);
    }
    case CurveKind::arc: {
      const ArcGeometry a = arc_geometry(p0, p3, e);
      const double ang = a.angle0 + t * a.sweep;
      return a.radius * a.sweep * Vec2(-std::sin(ang), std::cos(ang));
    }
    case CurveKind::polyline: return polyline_at(panel, e, t).second * polyline_length(panel, e);
  }
  return Vec2::Zero();
}

// Arc length of [t0, t1] by 5-point Gauss–Legendre on each of `pieces` sub-intervals.
double length_between(const Panel& panel, const Edge& e, double t0, double t1, int pieces) {
  static const double x[5] = {-0.9061798459386640, -0.5384693101056831, 0.0,
                              0.5384693101056831, 0.9061798459386640};
  static const double w[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889,
                              0.4786286704993665, 0.2369268850561891};
  double sum = 0;
  const double step = (t1 - t0) / pieces;
  for (int p = 0; p < pieces; ++p) {
    const double a = t0 + p * step, mid = a + 0.5 * step;
    for (int k = 0; k < 5; ++k) sum += w[k] * 0.5 * step * derivative(panel, e, mid + 0.5 * step * x[k]).norm();
  }
  return sum;
}

constexpr int kTablePieces = 256;  // arc-length table resolution per edge

}  // namespace

Vec2 edge_point(const Panel& panel, const Edge& e, double t) {
  const Vec2& p0 = panel.vertices[e.start];
  const Vec2& p3 = panel.vertices[e.end];
  if (t <= 0) return p0;
  if (t >= 1) return p3;
  const double u = 1 - t;
  switch (e.kind) {
    case CurveKind::straight: return u * p0 + t * p3;
    case CurveKind::quadratic: return u * u * p0 + 2 * u * t * e.controls[0] + t * t * p3;
    case CurveKind::cubic:
      return u * u * u * p0 + 3 * u * u * t * e.controls[0] + 3 * u * t * t * e.controls[1] +
             t * t * t * p3;
    case CurveKind::arc: {
      const ArcGeometry a = arc_geometry(p0, p3, e);
      const double ang = a.angle0 + t * a.sweep;
      return a.centre + a.radius * Vec2(std::cos(ang), std::sin(ang));
    }
    case CurveKind::polyline: return polyline_at(panel, e, t).first;
  }
  return p0;
}

double edge_length(const Panel& panel, const Edge& e) {
  const Vec2& p0 = panel.vertices[e.start];
  const Vec2& p3 = panel.vertices[e.end];
  if (e.kind == CurveKind::straight) return (p3 - p0).norm();
  if (e.kind == CurveKind::polyline) return polyline_length(panel, e);
  if (e.kind == CurveKind::arc) {
    const ArcGeometry a = arc_geometry(p0, p3, e);
    return a.radius * std::abs(a.sweep);
  }
  return length_between(panel, e, 0, 1, kTablePieces);
}

std::vector<Vec2> sample_edge(const Panel& panel, const Edge& e, int n) {
  n = std::max(n, 1);
  std::vector<Vec2> out(n + 1);
  out.front() = panel.vertices[e.start];
  out.back() = panel.vertices[e.end];
  if (n == 1) return out;
  if (e.kind == CurveKind::straight || e.kind == CurveKind::arc || e.kind == CurveKind::polyline) {
    // Constant speed: equal parameter steps are equal arc-length steps.
    for (int i = 1; i < n; ++i) out[i] = edge_point(panel, e, static_cast<double>(i) / n);
    return out;
  }
  // Cumulative arc-length table, then invert s(t) = target by Newton on each piece.
  std::vector<double> cumulative(kTablePieces + 1, 0.0);
  for (int p = 0; p < kTablePieces; ++p)
    cumulative[p + 1] = cumulative[p] + length_between(panel, e, static_cast<double>(p) / kTablePieces,
                                                       static_cast<double>(p + 1) / kTablePieces, 1);
  const double total = cumulative.back();
  for (int i = 1; i < n; ++i) {
    const double target = total * i / n;
    const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), target);
    const int p = std::clamp(static_cast<int>(it - cumulative.begin()) - 1, 0, kTablePieces - 1);
    const double ta = static_cast<double>(p) / kTablePieces, tb = static_cast<double>(p + 1) / kTablePieces;
    const double piece = cumulative[p + 1] - cumulative[p];
    double t = piece > 0 ? ta + (target - cumulative[p]) / piece * (tb - ta) : ta;
    for (int iter = 0; iter < 4; ++iter) {
      const double speed = derivative(panel, e, t).norm();
      if (speed <= 0) break;
      const double s = cumulative[p] + length_between(panel, e, ta, t, 1);
      t = std::clamp(t - (s - target) / speed, ta, tb);
    }
    out[i] = edge_point(panel, e, t);
  }
  return out;
}

Mat3 panel_rotation(const Vec3& rotation_deg) {
  const Vec3 r = rotation_deg * std::numbers::pi / 180.0;
  return (Eigen::AngleAxisd(r.z(), Vec3::UnitZ()) * Eigen::AngleAxisd(r.y(), Vec3::UnitY()) *
          Eigen::AngleAxisd(r.x(), Vec3::UnitX()))
      .toRotationMatrix();
}

Vec3 place_point(const Panel& panel, const Vec2& p) {
  return panel_rotation(panel.rotation_deg) * Vec3(p.x(), p.y(), 0) + panel.translation;
}

}  // namespace tryon::garments
