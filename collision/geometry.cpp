#include "collision/geometry.hpp"

#include <algorithm>
#include <cmath>

namespace tryon::collision {
namespace {

using P2 = Eigen::Vector2d;

double inf_norm(const Vec3& v) { return v.cwiseAbs().maxCoeff(); }

// Sign values within this relative bound of zero are snapped to zero (touching / coplanar).
constexpr double kSnap = 1e-13;

double snap(double v, double tol) { return std::abs(v) <= tol ? 0.0 : v; }

double orient2d(const P2& a, const P2& b, const P2& c) {
  const P2 u = b - a, w = c - a;
  return snap(u.x() * w.y() - u.y() * w.x(), kSnap * u.cwiseAbs().maxCoeff() * w.cwiseAbs().maxCoeff());
}

// p on the closed segment [a,b], given orient2d(a,b,p) == 0.
bool on_segment_2d(const P2& a, const P2& b, const P2& p) {
  return std::min(a.x(), b.x()) <= p.x() && p.x() <= std::max(a.x(), b.x()) &&
         std::min(a.y(), b.y()) <= p.y() && p.y() <= std::max(a.y(), b.y());
}

bool segments_2d(const P2& p, const P2& q, const P2& r, const P2& s) {
  const double d1 = orient2d(r, s, p), d2 = orient2d(r, s, q);
  const double d3 = orient2d(p, q, r), d4 = orient2d(p, q, s);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
    return true;
  if (d1 == 0 && on_segment_2d(r, s, p)) return true;
  if (d2 == 0 && on_segment_2d(r, s, q)) return true;
  if (d3 == 0 && on_segment_2d(p, q, r)) return true;
  if (d4 == 0 && on_segment_2d(p, q, s)) return true;
  return false;
}

bool point_in_triangle_2d(const P2& p, const P2& a, const P2& b, const P2& c) {
  const double o1 = orient2d(a, b, p), o2 = orient2d(b, c, p), o3 = orient2d(c, a, p);
  return (o1 >= 0 && o2 >= 0 && o3 >= 0) || (o1 <= 0 && o2 <= 0 && o3 <= 0);
}

P2 drop(const Vec3& v, int axis) {
  switch (axis) {
    case 0: return {v.y(), v.z()};
    case 1: return {v.z(), v.x()};
    default: return {v.x(), v.y()};
  }
}

int dominant_axis(const Vec3& n) {
  int k = 0;
  n.cwiseAbs().maxCoeff(&k);
  return k;
}

}  // namespace

bool segment_segment_intersect(const Vec3& p, const Vec3& q, const Vec3& r, const Vec3& s) {
  const double tol = kSnap * inf_norm(q - p) * inf_norm(r - p) * inf_norm(s - p);
  if (snap(orient3d(p, q, r, s), tol) != 0) return false;  // not coplanar
  // Coplanar: intersecting in 3D implies intersecting in every coordinate projection, and the
  // projection along the dominant axis of the common normal is one-to-one on the plane, so
  // "all three projections intersect" is exact (it also covers parallel and point segments).
  for (int axis = 0; axis < 3; ++axis)
    if (!segments_2d(drop(p, axis), drop(q, axis), drop(r, axis), drop(s, axis))) return false;
  return true;
}

bool segment_triangle_intersect(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b,
                                const Vec3& c) {
  const Vec3 n = (b - a).cross(c - a);
  const double tri_scale = inf_norm(b - a) * inf_norm(c - a);
  if (inf_norm(n) <= kSnap * tri_scale) {  // zero-area triangle: its closed segment(s)
    return segment_segment_intersect(p, q, a, b) || segment_segment_intersect(p, q, b, c) ||
           segment_segment_intersect(p, q, c, a);
  }
  const double plane_tol = kSnap * tri_scale * std::max(inf_norm(p - a), inf_norm(q - a));
  const double op = snap(n.dot(p - a), plane_tol), oq = snap(n.dot(q - a), plane_tol);
  if ((op > 0 && oq > 0) || (op < 0 && oq < 0)) return false;
  if (op == 0 && oq == 0) {  // coplanar: 2D closed segment against closed triangle
    const int k = dominant_axis(n);
    const P2 p2 = drop(p, k), q2 = drop(q, k), a2 = drop(a, k), b2 = drop(b, k), c2 = drop(c, k);
    return point_in_triangle_2d(p2, a2, b2, c2) || point_in_triangle_2d(q2, a2, b2, c2) ||
           segments_2d(p2, q2, a2, b2) || segments_2d(p2, q2, b2, c2) ||
           segments_2d(p2, q2, c2, a2);
  }
  // The segment meets the plane in one point; the line through it passes through the closed
  // triangle iff the three Plücker volumes do not have strictly opposite signs.
  const double r = std::max({inf_norm(a - p), inf_norm(b - p), inf_norm(c - p)});
  const double tol = kSnap * inf_norm(q - p) * r * r;
  const double s1 = snap(orient3d(p, q, a, b), tol), s2 = snap(orient3d(p, q, b, c), tol),
               s3 = snap(orient3d(p, q, c, a), tol);
  return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0);
}

bool triangles_intersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0,
                         const Vec3& b1, const Vec3& b2) {
  // Plane rejection [Möller 1997]: all vertices of one triangle strictly on one side of the other.
  // Values within the rounding bound count as zero (no rejection).
  const Vec3 nb = (b1 - b0).cross(b2 - b0);
  const double da0 = nb.dot(a0 - b0), da1 = nb.dot(a1 - b0), da2 = nb.dot(a2 - b0);
  const double ta = kSnap * inf_norm(b1 - b0) * inf_norm(b2 - b0) *
                    std::max({inf_norm(a0 - b0), inf_norm(a1 - b0), inf_norm(a2 - b0)});
  if ((da0 > ta && da1 > ta && da2 > ta) || (da0 < -ta && da1 < -ta && da2 < -ta)) return false;
  const Vec3 na = (a1 - a0).cross(a2 - a0);
  const double db0 = na.dot(b0 - a0), db1 = na.dot(b1 - a0), db2 = na.dot(b2 - a0);
  const double tb = kSnap * inf_norm(a1 - a0) * inf_norm(a2 - a0) *
                    std::max({inf_norm(b0 - a0), inf_norm(b1 - a0), inf_norm(b2 - a0)});
  if ((db0 > tb && db1 > tb && db2 > tb) || (db0 < -tb && db1 < -tb && db2 < -tb)) return false;
  return segment_triangle_intersect(a0, a1, b0, b1, b2) ||
         segment_triangle_intersect(a1, a2, b0, b1, b2) ||
         segment_triangle_intersect(a2, a0, b0, b1, b2) ||
         segment_triangle_intersect(b0, b1, a0, a1, a2) ||
         segment_triangle_intersect(b1, b2, a0, a1, a2) ||
         segment_triangle_intersect(b2, b0, a0, a1, a2);
}

Vec3 closest_point_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                            Vec3* bary) {
  const Vec3 n = (b - a).cross(c - a);
  if (n.squaredNorm() <= 1e-30 * std::max(1e-300, ((b - a).squaredNorm() * (c - a).squaredNorm()))) {
    // Zero-area: closest point over the three edges.
    double best = std::numeric_limits<double>::infinity();
    Vec3 out = a, w(1, 0, 0);
    const Vec3* v[3] = {&a, &b, &c};
    for (int e = 0; e < 3; ++e) {
      double s, t;
      Vec3 ca, cb;
      const double d2 = closest_points_segments(p, p, *v[e], *v[(e + 1) % 3], &s, &t, &ca, &cb);
      if (d2 < best) {
        best = d2;
        out = cb;
        w.setZero();
        w[e] += 1 - t;
        w[(e + 1) % 3] += t;
      }
    }
    if (bary) *bary = w;
    return out;
  }
  // Voronoi regions of the triangle [Ericson 2005, 5.1.5].
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) {
    if (bary) *bary = {1, 0, 0};
    return a;
  }
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) {
    if (bary) *bary = {0, 1, 0};
    return b;
  }
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double v = d1 / (d1 - d3);
    if (bary) *bary = {1 - v, v, 0};
    return a + v * ab;
  }
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) {
    if (bary) *bary = {0, 0, 1};
    return c;
  }
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double w = d2 / (d2 - d6);
    if (bary) *bary = {1 - w, 0, w};
    return a + w * ac;
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    if (bary) *bary = {0, 1 - w, w};
    return b + w * (c - b);
  }
  const double denom = 1.0 / (va + vb + vc);
  const double v = vb * denom, w = vc * denom;
  if (bary) *bary = {1 - v - w, v, w};
  return a + ab * v + ac * w;
}

double closest_points_segments(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1,
                               double* s_out, double* t_out, Vec3* ca, Vec3* cb) {
  // [Ericson 2005, 5.1.9 ClosestPtSegmentSegment]
  const Vec3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  const double eps = 1e-300;
  double s = 0, t = 0;
  if (a <= eps && e <= eps) {
    s = t = 0;
  } else if (a <= eps) {
    s = 0;
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = d1.dot(r);
    if (e <= eps) {
      t = 0;
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = d1.dot(d2), denom = a * e - b * b;
      s = denom > 0 ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  const Vec3 x = p0 + s * d1, y = q0 + t * d2;
  if (s_out) *s_out = s;
  if (t_out) *t_out = t;
  if (ca) *ca = x;
  if (cb) *cb = y;
  return (x - y).squaredNorm();
}

}  // namespace tryon::collision
