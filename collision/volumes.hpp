#pragma once
// Bounding volumes. Each one is fitted to a set of triangles (`fit`), can tell whether it contains
// a point (`contains`, for checks), and has an overlap test against a volume of the same kind given
// in another frame (a Pose maps the second volume's frame into the first's).
//
// Overlap semantics: conservative and closed. Touching volumes overlap, so the exact triangle tests
// below them decide; a test may say "overlap" for disjoint volumes (e.g. sphere–OBB tests only the
// box's three axes), never the reverse.
#include <vector>

#include "collision/geometry.hpp"
#include "core/types.hpp"

namespace tryon::collision {

/// Pose of frame B in frame A with |R| precomputed, shared by every overlap test of a traversal.
struct Pose {
  Mat3 R = Mat3::Identity();
  Mat3 absR = Mat3::Identity();
  Vec3 t = Vec3::Zero();
  bool identity = true;
  Pose() = default;
  explicit Pose(const Rigid& T)
      : R(T.R), absR(T.R.cwiseAbs()), t(T.t), identity(T.is_identity()) {}
  Vec3 apply(const Vec3& p) const { return identity ? p : Vec3(R * p + t); }
};

/// Axis-aligned box [lo, hi].
struct Aabb {
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 hi = Vec3::Constant(-std::numeric_limits<double>::infinity());
  void extend(const Vec3& p) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  void extend(const Aabb& b) {
    lo = lo.cwiseMin(b.lo);
    hi = hi.cwiseMax(b.hi);
  }
  Vec3 center() const { return 0.5 * (lo + hi); }
  Vec3 half() const { return 0.5 * (hi - lo); }
  double half_area() const {
    const Vec3 e = (hi - lo).cwiseMax(0.0);
    return e.x() * e.y() + e.y() * e.z() + e.z() * e.x();
  }
  bool contains(const Vec3& p, double tol = 0) const {
    return (p.array() >= lo.array() - tol).all() && (p.array() <= hi.array() + tol).all();
  }
  bool contains(const Aabb& b, double tol = 0) const {
    return (b.lo.array() >= lo.array() - tol).all() && (b.hi.array() <= hi.array() + tol).all();
  }
  /// Bounds of the triangles prims[0..n) of (V, F).
  static Aabb fit(ConstRef<Points3> V, ConstRef<Triangles> F, const int* prims, int n);
  /// Parent from two children: 6 comparisons [the try-on paper's refit].
  static Aabb merge(const Aabb& a, const Aabb& b) { return {a.lo.cwiseMin(b.lo), a.hi.cwiseMax(b.hi)}; }
};

/// Sphere: centre of the node's AABB, radius = farthest vertex from it (as the papers build it).
struct Sphere {
  Vec3 c = Vec3::Zero();
  double r = -1;
  bool contains(const Vec3& p, double tol = 0) const { return (p - c).norm() <= r + tol; }
  static Sphere fit(ConstRef<Points3> V, ConstRef<Triangles> F, const int* prims, int n);
};

/// Oriented box: centre c, unit axes as the columns of `axes`, half extents `e`.
struct Obb {
  Mat3 axes = Mat3::Identity();
  Vec3 c = Vec3::Zero();
  Vec3 e = Vec3::Zero();
  bool contains(const Vec3& p, double tol = 0) const {
    return ((axes.transpose() * (p - c)).cwiseAbs().array() <= e.array() + tol).all();
  }
  /// Axes = eigenvectors of the area-weighted covariance of the triangles
  /// [Gottschalk, Lin & Manocha 1996, "OBBTree", eq. for C_jk over the hull triangles];
  /// extents from the projections of the vertices. Zero total area: covariance of the vertices.
  static Obb fit(ConstRef<Points3> V, ConstRef<Triangles> F, const int* prims, int n);
};

/// Sphere→OBB hybrid node ["Collision detection algorithm based on the mix of Sphere and OBB",
/// Software 2011]: both volumes are stored; traversal uses the sphere at depth < sphere_levels.
struct SphereObb {
  Sphere sphere;
  Obb obb;
  bool contains(const Vec3& p, double tol = 0) const {
    return sphere.contains(p, tol) && obb.contains(p, tol);
  }
  static SphereObb fit(ConstRef<Points3> V, ConstRef<Triangles> F, const int* prims, int n) {
    return {Sphere::fit(V, F, prims, n), Obb::fit(V, F, prims, n)};
  }
};

/// S-AABB node [Zhao et al. 2008, OpenMP hybrid bounding volumes]: a sphere and an AABB; the
/// cheap sphere test runs first.
struct SAabb {
  Sphere sphere;
  Aabb box;
  bool contains(const Vec3& p, double tol = 0) const {
    return sphere.contains(p, tol) && box.contains(p, tol);
  }
  static SAabb fit(ConstRef<Points3> V, ConstRef<Triangles> F, const int* prims, int n) {
    return {Sphere::fit(V, F, prims, n), Aabb::fit(V, F, prims, n)};
  }
};

// ---- overlap tests; b is given in its own frame, T maps it into a's frame ----

/// a against b inflated by `margin` (identity pose).
inline bool overlap(const Aabb& a, const Aabb& b, double margin = 0) {
  return (a.lo.array() <= b.hi.array() + margin).all() && (b.lo.array() <= a.hi.array() + margin).all();
}
/// a against the AABB of the moved box of b (|R| times the half extents): conservative.
inline bool overlap(const Aabb& a, const Aabb& b, const Pose& T) {
  if (T.identity) return overlap(a, b);
  // Slack of 1e-12 relative keeps the rounding of the moved box conservative.
  const Vec3 c = T.R * b.center() + T.t, h = T.absR * b.half();
  const double slack = 1e-12 * (c.cwiseAbs().maxCoeff() + h.maxCoeff() + a.center().cwiseAbs().maxCoeff() + a.half().maxCoeff());
  return ((a.center() - c).cwiseAbs().array() <= (a.half() + h).array() + slack).all();
}
inline bool overlap(const Sphere& a, const Sphere& b, const Pose& T) {
  const Vec3 cb = T.apply(b.c);
  const double rr = (a.r + b.r) * (1 + 1e-12) + 1e-12 * (a.c.cwiseAbs().maxCoeff() + cb.cwiseAbs().maxCoeff());
  return (a.c - cb).squaredNorm() <= rr * rr;
}
/// 15-axis separating-axis test [Gottschalk, Lin & Manocha 1996].
bool overlap(const Obb& a, const Obb& b, const Pose& T);
/// Sphere (in a's frame) against a box: the box's three face axes only.
inline bool overlap(const Sphere& s, const Obb& o) {
  const Vec3 d = o.axes.transpose() * (s.c - o.c);
  const double slack = 1e-12 * (s.c.cwiseAbs().maxCoeff() + o.c.cwiseAbs().maxCoeff() + o.e.maxCoeff() + s.r);
  return (d.cwiseAbs().array() <= o.e.array() + s.r + slack).all();
}
bool overlap_levels(const SphereObb& a, int depth_a, const SphereObb& b, int depth_b,
                    const Pose& T, int sphere_levels);
inline bool overlap(const SAabb& a, const SAabb& b, const Pose& T) {
  return overlap(a.sphere, b.sphere, T) && overlap(a.box, b.box, T);
}

}  // namespace tryon::collision
