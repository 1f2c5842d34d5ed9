#include "garments/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "garments/geometry2d.hpp"

namespace tryon::garments {

std::string describe_edge(const Pattern& pattern, int panel, int edge) {
  return "panel '" + pattern.panels[panel].name + "', edge " + std::to_string(edge);
}

namespace {

// Relative shortfall of a circle arc's radius below half its chord still taken as a half circle.
constexpr double kArcRadiusTolerance = 1e-6;

std::string format_ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::abs(r) < 1e6 ? "%.2f" : "%.3g", r);  // absurd sizes in short form
  return buf;
}

// Outline polyline with a fixed number of samples per curved edge: enough to see crossings.
std::vector<Vec2> coarse_outline(const Panel& panel, std::vector<int>& edge_of_segment) {
  std::vector<Vec2> pts;
  for (std::size_t k = 0; k < panel.edges.size(); ++k) {
    const Edge& e = panel.edges[k];
    if (e.kind == CurveKind::polyline) {  // its own points: a crossing can be at any of them
      pts.push_back(panel.vertices[e.start]);
      pts.insert(pts.end(), e.controls.begin(), e.controls.end());
      edge_of_segment.insert(edge_of_segment.end(), e.controls.size() + 1, static_cast<int>(k));
      continue;
    }
    const int n = e.kind == CurveKind::straight ? 1 : 24;
    const auto s = sample_edge(panel, e, n);
    for (int i = 0; i < n; ++i) {
      pts.push_back(s[i]);
      edge_of_segment.push_back(static_cast<int>(k));
    }
  }
  return pts;
}

void check_panel(const Pattern& pattern, int pi, const ValidationLimits& limits, Diagnostics& d) {
  const Panel& panel = pattern.panels[pi];
  const std::string where = "panel '" + panel.name + "'";
  const std::size_t n = panel.edges.size();
  bool loop_ok = true;
  for (std::size_t k = 0; k < n; ++k) {
    const Edge& e = panel.edges[k];
    const Edge& next = panel.edges[(k + 1) % n];
    if (e.end != next.start) {
      d.errors.push_back(where + ": the outline is not a closed loop: edge " + std::to_string(k) +
                         " ends at vertex " + std::to_string(e.end) + " but edge " +
                         std::to_string((k + 1) % n) + " starts at vertex " + std::to_string(next.start));
      loop_ok = false;
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    const Edge& e = panel.edges[k];
    const double len = edge_length(panel, e);
    if (!(len >= limits.min_edge_length_m))
      d.errors.push_back(describe_edge(pattern, pi, static_cast<int>(k)) + " has zero length (" +
                         std::to_string(len * 1000) + " mm)");
  }
  Vec2 lo = Vec2::Constant(1e300), hi = Vec2::Constant(-1e300);
  for (const Vec2& v : panel.vertices) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
  for (const Edge& e : panel.edges) {
    for (const Vec2& c : e.controls) lo = lo.cwiseMin(c), hi = hi.cwiseMax(c);
    // An arc leaves its ends' box: a large arc of a huge radius spans far beyond them.
    if (e.kind == CurveKind::arc)
      for (int i = 1; i < 16; ++i) {
        const Vec2 q = edge_point(panel, e, i / 16.0);
        lo = lo.cwiseMin(q), hi = hi.cwiseMax(q);
      }
  }
  const Vec2 size = hi - lo;
  if (size.maxCoeff() > limits.max_panel_size_m)
    d.errors.push_back(where + " is " + format_ratio(size.x()) + " m × " + format_ratio(size.y()) +
                       " m; a panel larger than " + format_ratio(limits.max_panel_size_m) +
                       " m is not a garment (check units_in_meter)");
  if (panel.translation.cwiseAbs().maxCoeff() > limits.max_coordinate_m)
    d.errors.push_back(where + " is placed " + format_ratio(panel.translation.cwiseAbs().maxCoeff()) +
                       " m from the origin along an axis; that is not around a body");
  for (std::size_t k = 0; k < n; ++k) {
    // No circle of radius r passes through two points more than 2r apart. A half circle written
    // with rounding (r a hair under half the chord) is one: the relative tolerance lets it pass.
    const Edge& e = panel.edges[k];
    const double half_chord = (panel.vertices[e.end] - panel.vertices[e.start]).norm() / 2;
    if (e.kind == CurveKind::arc && e.radius < half_chord * (1 - kArcRadiusTolerance))
      d.errors.push_back("pattern '" + pattern.name + "', " + describe_edge(pattern, pi, static_cast<int>(k)) +
                         ": circle radius " + format_ratio(e.radius * 100) +
                         " cm is less than half the distance between the edge's ends (" +
                         format_ratio(half_chord * 100) + " cm); no circle of that radius joins them");
  }
  if (!loop_ok || !d.errors.empty()) return;  // geometry checks need a sound loop

  std::vector<int> edge_of_segment;
  const std::vector<Vec2> outline = coarse_outline(panel, edge_of_segment);
  const double area = signed_area(outline);
  if (std::abs(area) < 1e-6)  // 1 cm²
    d.errors.push_back(where + " has no area (its outline is collinear or folds onto itself)");
  else if (auto crossing = first_self_intersection(outline))
    d.errors.push_back(where + ": the outline crosses itself (edge " +
                       std::to_string(edge_of_segment[crossing->first]) + " and edge " +
                       std::to_string(edge_of_segment[crossing->second]) + ")");
}

}  // namespace

Diagnostics validate_pattern(const Pattern& pattern, const ValidationLimits& limits) {
  Diagnostics d;
  if (pattern.panels.empty()) d.errors.push_back("the pattern has no panels");
  for (std::size_t p = 0; p < pattern.panels.size(); ++p) {
    Diagnostics panel_d;
    check_panel(pattern, static_cast<int>(p), limits, panel_d);
    d.errors.insert(d.errors.end(), panel_d.errors.begin(), panel_d.errors.end());
    d.warnings.insert(d.warnings.end(), panel_d.warnings.begin(), panel_d.warnings.end());
  }
  std::map<std::pair<int, int>, int> used;  // (panel, edge) -> first stitch
  for (std::size_t s = 0; s < pattern.stitches.size(); ++s) {
    const Stitch& st = pattern.stitches[s];
    const std::string where = "stitch " + std::to_string(s);
    if (st.a.panel == st.b.panel && st.a.edge == st.b.edge) {
      d.errors.push_back(where + " joins " + describe_edge(pattern, st.a.panel, st.a.edge) + " to itself");
      continue;
    }
    for (const StitchSide& side : {st.a, st.b}) {
      auto [it, fresh] = used.emplace(std::make_pair(side.panel, side.edge), static_cast<int>(s));
      if (!fresh)
        d.errors.push_back(describe_edge(pattern, side.panel, side.edge) + " is in two stitches (" +
                           std::to_string(it->second) + " and " + std::to_string(s) +
                           "); an edge can be sewn to one other edge only");
    }
    const Panel& pa = pattern.panels[st.a.panel];
    const Panel& pb = pattern.panels[st.b.panel];
    const double la = edge_length(pa, pa.edges[st.a.edge]);
    const double lb = edge_length(pb, pb.edges[st.b.edge]);
    const double ratio = std::max(la, lb) / std::max(std::min(la, lb), 1e-12);
    if (ratio > limits.stitch_length_warning)
      d.warnings.push_back(where + ": " + describe_edge(pattern, st.a.panel, st.a.edge) + " (" +
                           format_ratio(la * 100) + " cm) and " +
                           describe_edge(pattern, st.b.panel, st.b.edge) + " (" +
                           format_ratio(lb * 100) + " cm) differ in length by a ratio of " +
                           format_ratio(ratio) + "; the longer side will be gathered onto the shorter");
  }
  return d;
}

}  // namespace tryon::garments
