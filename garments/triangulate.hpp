#pragma once
// Panel triangulation: constrained Delaunay triangulation (CDT) of a closed 2D outline whose
// segments are never split (the seams rely on those exact vertices), filled with a hexagonal
// lattice of interior points and improved by Delaunay refinement.
//
// Steps: (1) check the outline (simple polygon, finite, no duplicates); (2) Delaunay
// triangulation of the outline points by Bowyer-Watson insertion [Bowyer 1981; Watson 1981],
// segments recovered by flips [Sloan 1993] and Lawson flips [Lawson 1977], outside triangles
// removed; (3) for segments longer than 1.5 target_edge, their equilateral apex; (4) a hexagonal
// lattice of spacing target_edge, without the points closer than target_edge / 2 to the outline;
// (5) refinement: each triangle with an angle below min_angle_deg (or a circumradius above
// 0.8 target_edge, graded up near long segments) gets an off-centre [Ungor 2004] or its
// circumcentre [Chew 1993; Ruppert 1995; Shewchuk 2002]. A Steiner point that would become the
// apex of a segment in a triangle that cannot be repaired later is refused; the segment's own
// triangle is then repaired with a point on the segment's inward bisector when it is bad.
// Predicates (orientation, in-circle) are exact: a floating-point filter, then expansion
// arithmetic [Shewchuk 1997].
//
// Guaranteed, for any outline that passes check_outline:
// - the triangles cover exactly the outline's interior (no triangle outside, no gap, no
//   overlap; area equal up to rounding); the first n vertices are the outline points, bit for
//   bit, in input order; every outline segment is an edge of exactly one triangle;
// - every triangle has the outline's winding; the result is the same on every run (no threads,
//   no unordered containers, fixed-seed walks);
// - it terminates: Steiner insertions are capped (a warning is logged if the cap is reached),
//   and more than max_triangles triangles is refused with InputError (estimated from the area
//   up front, and checked while building).
// Measured (tests/garments/test_triangulate.cpp), not guaranteed:
// - smallest angle >= min_angle_deg outside the zones of outline corners sharper than
//   min_angle_deg (see triangle_min_angle): on all 20 GarmentCode panels of ../shared (shirt,
//   hoody, dress, sampled at 1 cm) 20.7 deg at least; on squares, circles, L, comb, 1 m x 2 cm
//   strip, gathered sides 23-34 deg; a 3 mm or 2 mm segment next to 1 cm ones still >= 20 deg.
// - Where it falls short: a 1 mm segment at a corner next to 1 cm ones (8.6 deg, at that
//   segment), a 3 cm segment meeting 4.5 mm ones at a right angle (18 deg), and the narrow
//   wedge just beyond the exemption zone of a corner sharper than about 10 deg (16-20 deg).
// - interior edges close to target_edge (hexagonal lattice): 1 m^2 at 1 cm gives 23 084
//   triangles (ideal 23 094) in about 20 ms; time grows linearly (369 k triangles in 0.6 s).
#include <cstddef>
#include <vector>

#include "core/types.hpp"

namespace tryon::garments {

struct TriangulateOptions {
  double target_edge = 0.01;              ///< metres: desired interior edge length (> 0)
  double min_angle_deg = 20.0;            ///< quality bound for refinement, in [0, 30]
  std::size_t max_triangles = 2'000'000;  ///< refuse (throw InputError) rather than run out of memory
};

struct PanelTriangulation {
  Points2 V;             ///< |V|×2: first num_boundary rows = the outline, unchanged, in input order
  Triangles F;           ///< |F|×3, oriented like the outline (CCW outline -> CCW triangles)
  int num_boundary = 0;  ///< n, the number of outline points
};

/// Triangulates one panel.
/// @param[in] outline  |n|×2 closed loop (first point not repeated), either winding, already
///                     sampled along its curves. Segments (i, i+1 mod n) are constraints and are
///                     never split.
/// @param[in] options  target edge length, angle bound, size limit.
/// @throws InputError for fewer than 3 points, non-finite coordinates, duplicate points,
///         self-intersecting or zero-area outlines, bad options, or a result that would exceed
///         options.max_triangles.
PanelTriangulation triangulate_panel(ConstRef<Points2> outline, const TriangulateOptions& options = {});

/// Throws InputError (naming `what` and the offending point indices) unless the outline is a
/// simple polygon: >= 3 finite points, no two equal, no two non-adjacent segments touching, no
/// adjacent segments folding back on each other, non-zero area. O(n log n)-ish (uniform grid).
void check_outline(ConstRef<Points2> outline, const char* what = "outline");

/// Signed area of a closed polygon (shoelace formula): > 0 for counter-clockwise.
double polygon_signed_area(ConstRef<Points2> outline);

/// Interior angle (degrees, in [0, 360)) at every outline point, measured inside the polygon
/// whichever the winding. |n| values.
std::vector<double> interior_angles_deg(ConstRef<Points2> outline);

/// True when p lies strictly inside the polygon (crossing number with exact orientation tests;
/// points on the outline count as outside).
bool point_in_polygon(ConstRef<Points2> outline, const Vec2& p);

/// Smallest angle of one triangle and whether it lies at a sharp outline corner: a corner whose
/// interior angle alpha is below the threshold is exempt from the angle bound, and so is every
/// triangle touching it or having all three vertices within r = L * max(2, 0.2 / sin(alpha / 2))
/// of it (L: the longer of the corner's two segments). Inside r the wedge is narrower than 0.4 L,
/// too narrow for triangles on unsplittable segments of length L to have 20 degree angles.
struct TriangleAngle {
  double min_angle_deg = 0.0;    ///< smallest of the three angles, degrees
  bool at_sharp_corner = false;  ///< a vertex is an outline point with interior angle < threshold
};
/// @param[in] T  a triangulation from triangulate_panel
/// @param[in] f  triangle index, 0 <= f < |F|
/// @param[in] sharp_corner_deg  outline corners with interior angle below this are "sharp"
/// Costs O(n) (it scans the outline's corners); use triangulation_quality for all triangles.
TriangleAngle triangle_min_angle(const PanelTriangulation& T, int f, double sharp_corner_deg = 20.0);

/// Quality statistics of a triangulation (for tests and `tryon inspect`'s min_angle_deg, which
/// is `min_angle_deg` below). O(|F| log |F|).
struct TriangulationQuality {
  double min_angle_deg = 180.0;      ///< over triangles not touching a sharp corner
  double min_angle_all_deg = 180.0;  ///< over all triangles
  double max_angle_deg = 0.0;        ///< over all triangles
  int num_triangles = 0;
  int num_at_sharp_corner = 0;  ///< triangles excluded from min_angle_deg
  int num_below = 0;            ///< non-exempt triangles with an angle < sharp_corner_deg
  double area = 0.0;            ///< sum of unsigned triangle areas
  double min_edge = 0.0, mean_edge = 0.0, max_edge = 0.0;  ///< over unique edges
};
TriangulationQuality triangulation_quality(const PanelTriangulation& T, double sharp_corner_deg = 20.0);

/// Checks that the triangulation lies inside its outline (T.V's first num_boundary rows): every
/// triangle's centroid strictly inside the polygon and no triangle edge properly crossing an
/// outline segment or passing through an outline point. Returns the number of offending
/// triangles. Exact predicates; a uniform grid over the segments keeps it near O(|F| sqrt(n)).
int count_triangles_outside(const PanelTriangulation& T);

namespace predicates {
/// Orientation of (a, b, c): > 0 counter-clockwise, < 0 clockwise, 0 collinear. The sign is
/// exact (floating-point filter, then exact expansion arithmetic) [Shewchuk 1997]. The magnitude
/// is approximately twice the triangle's signed area.
double orient2d(const Vec2& a, const Vec2& b, const Vec2& c);
/// > 0 when d lies inside the circle through a, b, c (counter-clockwise), < 0 outside, 0 on it.
/// Exact sign [Shewchuk 1997].
double incircle(const Vec2& a, const Vec2& b, const Vec2& c, const Vec2& d);
}  // namespace predicates

}  // namespace tryon::garments
