#pragma once
// The sewing-pattern model: panels whose outline is a closed loop of edges (straight,
// quadratic Bézier, cubic Bézier, circular arc, polyline), edge labels, 3D placement and stitches.
// Everything is in metres, in each panel's own 2D frame (x right, y up).
#include <string>
#include <vector>

#include "core/types.hpp"

namespace tryon::garments {

enum class CurveKind { straight, quadratic, cubic, arc, polyline };
const char* to_string(CurveKind kind);

/// One outline edge from vertex `start` to vertex `end` of its panel.
struct Edge {
  int start = 0, end = 0;
  CurveKind kind = CurveKind::straight;
  /// Absolute 2D control points: 1 (quadratic), 2 (cubic), or a polyline's inner points in
  /// order (a digitised outline from a DXF file; the parameter t is the arc-length fraction).
  std::vector<Vec2> controls;
  // Circular arc, SVG-style from start to end [W3C SVG 1.1, F.6.5]:
  double radius = 0;        ///< metres; raised to half the chord if smaller, as SVG does
  bool large_arc = false;
  bool right = false;       ///< the arc bulges to the right of start→end (y-up frame)
  std::string label;        ///< e.g. "lower_interface", "left_collar" (may be empty)
};

struct Panel {
  std::string name;
  std::vector<Vec2> vertices;  ///< corner points, metres
  std::vector<Edge> edges;     ///< ordered loop: edges[k].end == edges[k+1].start
  Vec3 translation = Vec3::Zero();   ///< metres
  Vec3 rotation_deg = Vec3::Zero();  ///< Euler XYZ in degrees (Maya): R = Rz·Ry·Rx
  std::string label;                 ///< e.g. "body", "leg"
};

/// One side of a stitch: edge `edge` of panel `panel` (indices into Pattern::panels).
struct StitchSide {
  int panel = 0;
  int edge = 0;
};

/// Joins two edges. By default the start of side a meets the end of side b (the edges run
/// in opposite directions along the seam); `same_direction` pairs start with start.
struct Stitch {
  StitchSide a, b;
  bool same_direction = false;
};

struct Pattern {
  std::string name;              ///< from the file name
  std::vector<Panel> panels;
  std::vector<Stitch> stitches;
  bool legacy_format = false;    ///< the 2021 Garment-Pattern-Generator template format
  /// Height (m) of the body the panels' 3D placement was made for, 0 when they were arranged
  /// on the body they are draped on (DXF): build_garment scales the placement's heights to
  /// the body's.
  double placed_for_height_m = 0;

  int find_panel(const std::string& name) const;  ///< index or -1
};

// ---- edge geometry -------------------------------------------------------------------

/// Point of edge `e` of `panel` at curve parameter t ∈ [0, 1].
Vec2 edge_point(const Panel& panel, const Edge& e, double t);
/// Arc length of an edge (exact for straight and arc edges, adaptive quadrature otherwise).
double edge_length(const Panel& panel, const Edge& e);
/// n+1 points along the edge at equal arc-length spacing, from start to end (n ≥ 1). Every
/// point lies exactly on the curve; the first and last are the edge's end vertices.
std::vector<Vec2> sample_edge(const Panel& panel, const Edge& e, int n);

/// Rotation of a panel: R = Rz(rz)·Ry(ry)·Rx(rx), angles in degrees.
Mat3 panel_rotation(const Vec3& rotation_deg);
/// 3D position of a 2D panel point: R·[p.x, p.y, 0] + translation.
Vec3 place_point(const Panel& panel, const Vec2& p);

}  // namespace tryon::garments
