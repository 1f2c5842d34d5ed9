#pragma once
// Exact-predicate style primitive tests and closest points (double precision).
//
// Contact semantics (the policy every query of tryon::collision inherits):
// - Triangles and segments are CLOSED sets: touching (a shared point, a shared vertex, an edge lying
//   on a face) counts as intersecting.
// - Coplanar triangles intersect when their closed 2D regions overlap (tested in the projection that
//   drops the dominant axis of the normal).
// - A zero-area triangle is treated as the closed segment (or point) it spans.
// - The sign predicates are evaluated in double precision (no adaptive exact arithmetic). A sign
//   value within 1e-13 relative of zero (scaled by the lengths involved) is snapped to zero, so
//   nearly coplanar input is decided by the 2D coplanar test and near-touching counts as touching:
//   rounding noise never produces a crossing that is not there. Gaps smaller than ~1e-13 of the
//   triangle size therefore count as contact.
#include "core/types.hpp"

namespace tryon::collision {

/// A rigid transform x -> R x + t.
struct Rigid {
  Mat3 R = Mat3::Identity();
  Vec3 t = Vec3::Zero();
  Vec3 apply(const Vec3& p) const { return R * p + t; }
  bool is_identity() const { return R == Mat3::Identity() && t == Vec3::Zero(); }
  /// this ∘ other (apply `other` first).
  Rigid compose(const Rigid& other) const { return {R * other.R, R * other.t + t}; }
  Rigid inverse() const { return {R.transpose(), -(R.transpose() * t)}; }
};

/// Signed volume (b-a)×(c-a)·(d-a): > 0 when d is on the side the normal of abc points to.
inline double orient3d(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  return (b - a).cross(c - a).dot(d - a);
}

/// Closed segment [p,q] against closed triangle abc (possibly zero-area).
bool segment_triangle_intersect(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b,
                                const Vec3& c);

/// Closed segments [p,q] and [r,s] in 3D (points allowed).
bool segment_segment_intersect(const Vec3& p, const Vec3& q, const Vec3& r, const Vec3& s);

/// Closed triangles a0a1a2 and b0b1b2 (policy above). Plane rejection first, then the six
/// edge–triangle tests: two closed convex sets meet iff an extreme point of their intersection
/// lies on an edge of one of them.
bool triangles_intersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0,
                         const Vec3& b1, const Vec3& b2);

/// Closest point of triangle abc to p, [Ericson 2005, "Real-Time Collision Detection", 5.1.5].
/// @param[out] bary barycentric weights (wa, wb, wc) of the closest point, summing to 1.
/// Zero-area triangles are handled (the closest point of the segment/point is returned).
Vec3 closest_point_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c, Vec3* bary);

/// Closest points of segments [p0,p1] and [q0,q1], [Ericson 2005, 5.1.9].
/// @param[out] s,t parameters in [0,1]: ca = p0 + s (p1-p0), cb = q0 + t (q1-q0).
/// @return the squared distance |ca - cb|².
double closest_points_segments(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1,
                               double* s, double* t, Vec3* ca, Vec3* cb);

}  // namespace tryon::collision
