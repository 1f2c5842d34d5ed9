#include "collision/ccd.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "collision/geometry.hpp"

namespace tryon::collision {
namespace {

struct Cubic {
  double c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  double operator()(double t) const { return ((c3 * t + c2) * t + c1) * t + c0; }
};

// (u(t) × w(t)) · r(t) for u = u0 + t du etc.: a cubic in t.
Cubic triple_product(const Vec3& u0, const Vec3& du, const Vec3& w0, const Vec3& dw, const Vec3& r0,
                     const Vec3& dr) {
  Cubic c;
  c.c0 = u0.cross(w0).dot(r0);
  c.c1 = du.cross(w0).dot(r0) + u0.cross(dw).dot(r0) + u0.cross(w0).dot(dr);
  c.c2 = du.cross(dw).dot(r0) + du.cross(w0).dot(dr) + u0.cross(dw).dot(dr);
  c.c3 = du.cross(dw).dot(dr);
  return c;
}

void add_quadratic_roots(double a, double b, double c, std::vector<double>& out) {
  // roots of a t² + b t + c in (0, 1), numerically stable form
  if (a == 0) {
    if (b != 0) out.push_back(-c / b);
    return;
  }
  const double disc = b * b - 4 * a * c;
  if (disc < 0) return;
  const double q = -0.5 * (b + std::copysign(std::sqrt(disc), b));
  out.push_back(q / a);
  if (q != 0) out.push_back(c / q);
}

Vec3 lerp(const Vec3& x0, const Vec3& x1, double t) { return x0 + t * (x1 - x0); }

// The plane normal for the in-plane events: the longest of several cross products at t = 0, ½, 1
// (any of them may vanish when points are collinear at that instant).
Vec3 best_normal(std::initializer_list<Vec3> candidates) {
  Vec3 best = Vec3::Zero();
  for (const Vec3& n : candidates)
    if (n.squaredNorm() > best.squaredNorm()) best = n;
  return best;
}

double scale_of(std::initializer_list<const Vec3*> pts) {
  double s = 0;
  for (const Vec3* p : pts) s = std::max(s, p->cwiseAbs().maxCoeff());
  return std::max(s, 1e-300);
}

}  // namespace

// Whether |f(t)| > bound for every t in [0, 1], from the Bernstein coefficients of the cubic:
// f lies in their convex hull, so when all four have one sign and exceed the bound, so does f.
static bool stays_away(double c0, double c1, double c2, double c3, double bound) {
  const double b[4] = {c0, c0 + c1 / 3, c0 + (2 * c1 + c2) / 3, c0 + c1 + c2 + c3};
  const bool above = b[0] > bound && b[1] > bound && b[2] > bound && b[3] > bound;
  const bool below = b[0] < -bound && b[1] < -bound && b[2] < -bound && b[3] < -bound;
  return above || below;
}

// Conservative early exit for f = (u × w) · r: a pair within eta has |f| ≤ |u × w| eta, and
// |u|, |w| along a linear motion are bounded by their end values (convexity of the norm).
static bool cannot_come_within(double c0, double c1, double c2, double c3, double tol, double eta,
                               const Vec3& u0, const Vec3& u1, const Vec3& w0, const Vec3& w1) {
  const double span = std::max(u0.norm(), u1.norm()) * std::max(w0.norm(), w1.norm());
  return stays_away(c0, c1, c2, c3, tol + span * eta);
}

std::vector<double> cubic_candidates(double c0, double c1, double c2, double c3, double tol) {
  const Cubic f{c0, c1, c2, c3};
  std::vector<double> split{0.0, 1.0};
  std::vector<double> crit;
  add_quadratic_roots(3 * c3, 2 * c2, c1, crit);  // f' = 0
  for (double t : crit)
    if (t > 0 && t < 1) split.push_back(t);
  std::sort(split.begin(), split.end());
  std::vector<double> out;
  for (std::size_t k = 0; k + 1 < split.size(); ++k) {
    double lo = split[k], hi = split[k + 1];
    double flo = f(lo), fhi = f(hi);
    if (std::abs(flo) <= tol) out.push_back(lo);
    if (std::abs(fhi) <= tol) out.push_back(hi);
    if ((flo < 0 && fhi > 0) || (flo > 0 && fhi < 0)) {
      // f is monotone on [lo, hi]: bisection keeps the root bracketed.
      for (int it = 0; it < 200 && hi - lo > 1e-16; ++it) {
        const double mid = 0.5 * (lo + hi), fm = f(mid);
        if (fm == 0) {
          lo = hi = mid;
          break;
        }
        if ((fm < 0) == (flo < 0)) {
          lo = mid;
          flo = fm;
        } else {
          hi = mid;
        }
      }
      out.push_back(lo);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Impact vertex_face_ccd(const Vec3& p0, const Vec3& a0, const Vec3& b0, const Vec3& c0,
                       const Vec3& p1, const Vec3& a1, const Vec3& b1, const Vec3& c1, double eta) {
  const Vec3 dp = p1 - p0, da = a1 - a0, db = b1 - b0, dc = c1 - c0;
  const double L = scale_of({&p0, &a0, &b0, &c0, &p1, &a1, &b1, &c1});
  const double tol = 1e-12 * L * L * L;
  // Coplanarity: ((b − a) × (c − a)) · (p − a) = 0 [Bridson et al. 2002, eq. 1].
  const Cubic f = triple_product(b0 - a0, db - da, c0 - a0, dc - da, p0 - a0, dp - da);
  if (cannot_come_within(f.c0, f.c1, f.c2, f.c3, tol, eta, b0 - a0, b1 - a1, c0 - a0, c1 - a1)) return Impact{};
  std::vector<double> cand = cubic_candidates(f.c0, f.c1, f.c2, f.c3, tol);
  // In-plane events (robust coplanar case): p crossing the line of each edge.
  const Vec3 am = lerp(a0, a1, 0.5), bm = lerp(b0, b1, 0.5), cm = lerp(c0, c1, 0.5), pm = lerp(p0, p1, 0.5);
  const Vec3 n = best_normal({(bm - am).cross(cm - am), (b0 - a0).cross(c0 - a0), (b1 - a1).cross(c1 - a1),
                              (bm - am).cross(pm - am), (cm - bm).cross(pm - bm), (am - cm).cross(pm - cm)});
  if (n.squaredNorm() > 0) {
    const Vec3 e0[3] = {a0, b0, c0}, de[3] = {da, db, dc};
    for (int k = 0; k < 3; ++k) {
      const Vec3 &s0 = e0[k], &ds = de[k], &q0 = e0[(k + 1) % 3], &dq = de[(k + 1) % 3];
      const Cubic g = triple_product(q0 - s0, dq - ds, p0 - s0, dp - ds, n, Vec3::Zero());
      for (double t : cubic_candidates(g.c0, g.c1, g.c2, g.c3, tol * 1e-3)) cand.push_back(t);
    }
  }
  cand.push_back(0.0);
  std::sort(cand.begin(), cand.end());
  Impact im;
  for (double t : cand) {
    const Vec3 p = lerp(p0, p1, t), a = lerp(a0, a1, t), b = lerp(b0, b1, t), c = lerp(c0, c1, t);
    Vec3 w;
    const Vec3 x = closest_point_triangle(p, a, b, c, &w);
    const double d = (p - x).norm();
    if (d <= eta) {
      im.hit = true;
      im.toi = t;
      im.distance = d;
      im.bary = w;
      Vec3 nrm = (b - a).cross(c - a);
      if (nrm.squaredNorm() == 0) nrm = n;
      const double side = f.c0 != 0 ? f.c0 : (f.c1 != 0 ? -f.c1 : 1.0);  // side at t = 0 (or just after)
      im.normal = nrm.normalized() * (side >= 0 ? 1.0 : -1.0);
      return im;
    }
  }
  return im;
}

Impact edge_edge_ccd(const Vec3& a0, const Vec3& b0, const Vec3& c0, const Vec3& d0,
                     const Vec3& a1, const Vec3& b1, const Vec3& c1, const Vec3& d1, double eta) {
  const Vec3 da = a1 - a0, db = b1 - b0, dc = c1 - c0, dd = d1 - d0;
  const double L = scale_of({&a0, &b0, &c0, &d0, &a1, &b1, &c1, &d1});
  const double tol = 1e-12 * L * L * L;
  // Coplanarity: ((b − a) × (d − c)) · (c − a) = 0 [Bridson et al. 2002].
  const Cubic f = triple_product(b0 - a0, db - da, d0 - c0, dd - dc, c0 - a0, dc - da);
  // Segments within eta lie on lines within eta.
  if (cannot_come_within(f.c0, f.c1, f.c2, f.c3, tol, eta, b0 - a0, b1 - a1, d0 - c0, d1 - c1)) return Impact{};
  std::vector<double> cand = cubic_candidates(f.c0, f.c1, f.c2, f.c3, tol);
  // In-plane events: each end point crossing the line of the other edge.
  const Vec3 am = lerp(a0, a1, 0.5), bm = lerp(b0, b1, 0.5), cm = lerp(c0, c1, 0.5), dm = lerp(d0, d1, 0.5);
  const Vec3 n = best_normal({(bm - am).cross(dm - cm), (bm - am).cross(cm - am), (bm - am).cross(dm - am),
                              (dm - cm).cross(am - cm), (b0 - a0).cross(c0 - a0), (b0 - a0).cross(d0 - a0),
                              (b1 - a1).cross(c1 - a1), (b1 - a1).cross(d1 - a1), (d0 - c0).cross(a0 - c0),
                              (d1 - c1).cross(a1 - c1)});
  if (n.squaredNorm() > 0) {
    struct Line { Vec3 s0, ds, q0, dq, p0, dp; };
    const Line lines[4] = {{c0, dc, d0, dd, a0, da}, {c0, dc, d0, dd, b0, db},
                           {a0, da, b0, db, c0, dc}, {a0, da, b0, db, d0, dd}};
    for (const Line& l : lines) {
      const Cubic g = triple_product(l.q0 - l.s0, l.dq - l.ds, l.p0 - l.s0, l.dp - l.ds, n, Vec3::Zero());
      for (double t : cubic_candidates(g.c0, g.c1, g.c2, g.c3, tol * 1e-3)) cand.push_back(t);
    }
  }
  cand.push_back(0.0);
  std::sort(cand.begin(), cand.end());
  Impact im;
  for (double t : cand) {
    const Vec3 a = lerp(a0, a1, t), b = lerp(b0, b1, t), c = lerp(c0, c1, t), d = lerp(d0, d1, t);
    double s, u;
    Vec3 pa, pc;
    const double d2 = closest_points_segments(a, b, c, d, &s, &u, &pa, &pc);
    if (d2 <= eta * eta) {
      im.hit = true;
      im.toi = t;
      im.distance = std::sqrt(d2);
      im.s = s;
      im.t = u;
      Vec3 nrm = (b - a).cross(d - c);
      if (nrm.squaredNorm() == 0) nrm = n;
      if (nrm.squaredNorm() == 0) nrm = Vec3::UnitZ();
      const double side = f.c0 != 0 ? -f.c0 : (f.c1 != 0 ? f.c1 : 1.0);
      im.normal = nrm.normalized() * (side >= 0 ? 1.0 : -1.0);
      return im;
    }
  }
  return im;
}

}  // namespace tryon::collision
