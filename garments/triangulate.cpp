#include "garments/triangulate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <queue>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/logger.hpp"

namespace tryon::garments {

// ---------------------------------------------------------------------------------------------
// Exact predicates [Shewchuk 1997, "Adaptive precision floating-point arithmetic and fast robust
// geometric predicates"]: a floating-point evaluation with a proven error bound, and when the
// bound cannot decide the sign, an exact evaluation with floating-point expansions (sums of
// non-overlapping doubles, smallest magnitude first). Underflow is not handled (coordinates are
// metres; products below 1e-300 do not occur).
// ---------------------------------------------------------------------------------------------
namespace predicates {
namespace {

using Expansion = std::vector<double>;
constexpr double kEps = 1.1102230246251565e-16;  // 2^-53
constexpr double kOrientBound = (3.0 + 16.0 * kEps) * kEps;
constexpr double kIncircleBound = (10.0 + 96.0 * kEps) * kEps;

// x + y = a + b exactly [Knuth; Shewchuk 1997 Thm 7].
inline void two_sum(double a, double b, double& x, double& y) {
  x = a + b;
  const double bv = x - a, av = x - bv;
  y = (a - av) + (b - bv);
}
// x + y = a - b exactly.
inline void two_diff(double a, double b, double& x, double& y) {
  x = a - b;
  const double bv = a - x, av = x + bv;
  y = (a - av) + (bv - b);
}
// x + y = a * b exactly (fused multiply-add gives the rounding error).
inline void two_product(double a, double b, double& x, double& y) {
  x = a * b;
  y = std::fma(a, b, -x);
}
Expansion diff(double a, double b) {
  double x, y;
  two_diff(a, b, x, y);
  Expansion e;
  if (y != 0.0) e.push_back(y);
  if (x != 0.0) e.push_back(x);
  return e;
}
// Grow-Expansion with zero elimination [Shewchuk 1997 Fig. 6].
Expansion grow(const Expansion& e, double b) {
  Expansion h;
  h.reserve(e.size() + 1);
  double q = b;
  for (double ei : e) {
    double qn, hh;
    two_sum(q, ei, qn, hh);
    if (hh != 0.0) h.push_back(hh);
    q = qn;
  }
  if (q != 0.0) h.push_back(q);
  return h;
}
Expansion sum(const Expansion& e, const Expansion& f) {
  Expansion h = e;
  for (double fj : f) h = grow(h, fj);
  return h;
}
// Scale-Expansion with zero elimination [Shewchuk 1997 Fig. 7].
Expansion scale(const Expansion& e, double b) {
  Expansion h;
  if (e.empty() || b == 0.0) return h;
  h.reserve(2 * e.size());
  double q, hh;
  two_product(e[0], b, q, hh);
  if (hh != 0.0) h.push_back(hh);
  for (std::size_t i = 1; i < e.size(); ++i) {
    double p1, p0, s, t;
    two_product(e[i], b, p1, p0);
    two_sum(q, p0, s, hh);
    if (hh != 0.0) h.push_back(hh);
    two_sum(p1, s, q, t);
    if (t != 0.0) h.push_back(t);
  }
  if (q != 0.0) h.push_back(q);
  return h;
}
Expansion mul(const Expansion& e, const Expansion& f) {
  Expansion h;
  for (double fj : f) h = sum(h, scale(e, fj));
  return h;
}
Expansion neg(Expansion e) {
  for (double& x : e) x = -x;
  return e;
}
// The most significant component carries the sign of a non-overlapping expansion.
double sign_of(const Expansion& e) { return e.empty() ? 0.0 : e.back(); }

double orient2d_exact(const Vec2& a, const Vec2& b, const Vec2& c) {
  const Expansion acx = diff(a.x(), c.x()), acy = diff(a.y(), c.y());
  const Expansion bcx = diff(b.x(), c.x()), bcy = diff(b.y(), c.y());
  return sign_of(sum(mul(acx, bcy), neg(mul(acy, bcx))));
}

double incircle_exact(const Vec2& a, const Vec2& b, const Vec2& c, const Vec2& d) {
  const Expansion adx = diff(a.x(), d.x()), ady = diff(a.y(), d.y());
  const Expansion bdx = diff(b.x(), d.x()), bdy = diff(b.y(), d.y());
  const Expansion cdx = diff(c.x(), d.x()), cdy = diff(c.y(), d.y());
  const Expansion alift = sum(mul(adx, adx), mul(ady, ady));
  const Expansion blift = sum(mul(bdx, bdx), mul(bdy, bdy));
  const Expansion clift = sum(mul(cdx, cdx), mul(cdy, cdy));
  const Expansion bc = sum(mul(bdx, cdy), neg(mul(bdy, cdx)));
  const Expansion ca = sum(mul(cdx, ady), neg(mul(cdy, adx)));
  const Expansion ab = sum(mul(adx, bdy), neg(mul(ady, bdx)));
  return sign_of(sum(sum(mul(alift, bc), mul(blift, ca)), mul(clift, ab)));
}

}  // namespace

double orient2d(const Vec2& a, const Vec2& b, const Vec2& c) {
  const double detleft = (a.x() - c.x()) * (b.y() - c.y());
  const double detright = (a.y() - c.y()) * (b.x() - c.x());
  const double det = detleft - detright;
  const double bound = kOrientBound * (std::abs(detleft) + std::abs(detright));
  if (std::abs(det) > bound || bound == 0.0) return det;
  const double exact = orient2d_exact(a, b, c);
  // Keep an approximate magnitude with the exact sign.
  if (exact == 0.0) return 0.0;
  return std::copysign(std::max(std::abs(det), std::numeric_limits<double>::min()), exact);
}

double incircle(const Vec2& a, const Vec2& b, const Vec2& c, const Vec2& d) {
  const double adx = a.x() - d.x(), ady = a.y() - d.y();
  const double bdx = b.x() - d.x(), bdy = b.y() - d.y();
  const double cdx = c.x() - d.x(), cdy = c.y() - d.y();
  const double bdxcdy = bdx * cdy, cdxbdy = cdx * bdy;
  const double cdxady = cdx * ady, adxcdy = adx * cdy;
  const double adxbdy = adx * bdy, bdxady = bdx * ady;
  const double alift = adx * adx + ady * ady;
  const double blift = bdx * bdx + bdy * bdy;
  const double clift = cdx * cdx + cdy * cdy;
  const double det = alift * (bdxcdy - cdxbdy) + blift * (cdxady - adxcdy) + clift * (adxbdy - bdxady);
  const double permanent = (std::abs(bdxcdy) + std::abs(cdxbdy)) * alift +
                           (std::abs(cdxady) + std::abs(adxcdy)) * blift +
                           (std::abs(adxbdy) + std::abs(bdxady)) * clift;
  const double bound = kIncircleBound * permanent;
  if (std::abs(det) > bound || bound == 0.0) return det;
  const double exact = incircle_exact(a, b, c, d);
  if (exact == 0.0) return 0.0;
  return std::copysign(std::max(std::abs(det), std::numeric_limits<double>::min()), exact);
}

}  // namespace predicates

using predicates::incircle;
using predicates::orient2d;

namespace {

constexpr double kPi = std::numbers::pi;
inline double deg(double rad) { return rad * 180.0 / kPi; }

Vec2 row(ConstRef<Points2> P, Eigen::Index i) { return Vec2(P(i, 0), P(i, 1)); }

// Angle at p of the corner (a, p, b), radians in [0, pi].
double corner_angle(const Vec2& a, const Vec2& p, const Vec2& b) {
  const Vec2 u = a - p, v = b - p;
  return std::atan2(std::abs(u.x() * v.y() - u.y() * v.x()), u.dot(v));
}

double min_angle_rad(const Vec2& a, const Vec2& b, const Vec2& c) {
  return std::min({corner_angle(c, a, b), corner_angle(a, b, c), corner_angle(b, c, a)});
}

// True when the closed segments [p, q] and [r, s] share at least one point (exact).
bool segments_touch(const Vec2& p, const Vec2& q, const Vec2& r, const Vec2& s) {
  const double o1 = orient2d(p, q, r), o2 = orient2d(p, q, s);
  const double o3 = orient2d(r, s, p), o4 = orient2d(r, s, q);
  auto sgn = [](double x) { return (x > 0) - (x < 0); };
  if (sgn(o1) * sgn(o2) < 0 && sgn(o3) * sgn(o4) < 0) return true;
  auto on_seg = [](const Vec2& a, const Vec2& b, const Vec2& x) {  // x collinear with a, b
    return std::min(a.x(), b.x()) <= x.x() && x.x() <= std::max(a.x(), b.x()) &&
           std::min(a.y(), b.y()) <= x.y() && x.y() <= std::max(a.y(), b.y());
  };
  if (o1 == 0 && on_seg(p, q, r)) return true;
  if (o2 == 0 && on_seg(p, q, s)) return true;
  if (o3 == 0 && on_seg(r, s, p)) return true;
  if (o4 == 0 && on_seg(r, s, q)) return true;
  return false;
}

// Uniform grid over the outline segments (segment i = points i, i+1 mod n) for intersection and
// distance queries. Cells are sized so that there are about as many cells as segments.
class SegmentGrid {
 public:
  explicit SegmentGrid(ConstRef<Points2> P) : P_(P) {
    const Eigen::Index n = P.rows();
    lo_ = Vec2(P.col(0).minCoeff(), P.col(1).minCoeff());
    const Vec2 hi(P.col(0).maxCoeff(), P.col(1).maxCoeff());
    const Vec2 ext = (hi - lo_).cwiseMax(1e-300);
    double total = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) total += (row(P, (i + 1) % n) - row(P, i)).norm();
    cell_ = std::max({total / static_cast<double>(n), std::sqrt(ext.x() * ext.y() / (2.0 * n)),
                      std::max(ext.x(), ext.y()) / 2048.0});
    nx_ = std::clamp(static_cast<int>(ext.x() / cell_) + 1, 1, 4096);
    ny_ = std::clamp(static_cast<int>(ext.y() / cell_) + 1, 1, 4096);
    start_.assign(static_cast<std::size_t>(nx_) * ny_ + 1, 0);
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<int> fill;
      if (pass == 1) {
        for (std::size_t c = 1; c < start_.size(); ++c) start_[c] += start_[c - 1];
        items_.resize(start_.back());
        fill.assign(start_.begin(), start_.end() - 1);
      }
      for (Eigen::Index i = 0; i < n; ++i) {
        const Vec2 a = row(P, i), b = row(P, (i + 1) % n);
        int x0, y0, x1, y1;
        cell_of(a.cwiseMin(b), x0, y0);
        cell_of(a.cwiseMax(b), x1, y1);
        for (int y = y0; y <= y1; ++y)
          for (int x = x0; x <= x1; ++x) {
            const std::size_t c = static_cast<std::size_t>(y) * nx_ + x;
            if (pass == 0)
              ++start_[c + 1];
            else
              items_[fill[c]++] = static_cast<int>(i);
          }
      }
    }
  }
  int nx() const { return nx_; }
  int ny() const { return ny_; }
  // Segments listed in cell (x, y).
  std::pair<const int*, const int*> cell(int x, int y) const {
    const std::size_t c = static_cast<std::size_t>(y) * nx_ + x;
    return {items_.data() + start_[c], items_.data() + start_[c + 1]};
  }
  // Calls fn(segment index) for every segment listed in a cell overlapping the box [lo, hi]
  // (a segment may be reported more than once).
  template <typename Fn>
  void for_each_near(const Vec2& lo, const Vec2& hi, Fn&& fn) const {
    int x0, y0, x1, y1;
    cell_of(lo, x0, y0);
    cell_of(hi, x1, y1);
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        auto [b, e] = cell(x, y);
        for (const int* it = b; it != e; ++it) fn(*it);
      }
  }
  // Distance from p to the nearest segment, searched up to `radius` (returns radius if none closer).
  double distance(const Vec2& p, double radius) const {
    int x0, y0, x1, y1;
    cell_of(p - Vec2::Constant(radius), x0, y0);
    cell_of(p + Vec2::Constant(radius), x1, y1);
    double best = radius;
    const Eigen::Index n = P_.rows();
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        auto [b, e] = cell(x, y);
        for (const int* it = b; it != e; ++it) {
          const Vec2 a = row(P_, *it), c = row(P_, (*it + 1) % n);
          const Vec2 d = c - a;
          const double t = std::clamp((p - a).dot(d) / d.squaredNorm(), 0.0, 1.0);
          best = std::min(best, (a + t * d - p).norm());
        }
      }
    return best;
  }

 private:
  void cell_of(const Vec2& p, int& x, int& y) const {
    // Clamp in floating point first: casting an out-of-range double to int is undefined.
    x = static_cast<int>(
        std::clamp(std::floor((p.x() - lo_.x()) / cell_), 0.0, static_cast<double>(nx_ - 1)));
    y = static_cast<int>(
        std::clamp(std::floor((p.y() - lo_.y()) / cell_), 0.0, static_cast<double>(ny_ - 1)));
  }
  Eigen::Ref<const Points2> P_;  // by value: a ConstRef member could dangle
  Vec2 lo_;
  double cell_ = 1.0;
  int nx_ = 1, ny_ = 1;
  std::vector<int> start_, items_;
};

// Outline corners sharper than a threshold and the zone around each where the angle bound is
// waived: a triangle is exempt when it touches such a corner, or when all three of its vertices
// lie within r = L * max(2, 0.2 / sin(alpha / 2)) of it (alpha: the corner's interior angle, L:
// the longer of its two segments). Inside r the wedge is narrower than 0.4 L, too narrow for a
// triangle on an (unsplittable) segment of length L to have base angles of 20 degrees.
class SharpCorners {
 public:
  SharpCorners(ConstRef<Points2> P, double threshold_deg) {
    const Eigen::Index n = P.rows();
    const auto ang = interior_angles_deg(P);
    is_sharp_.assign(static_cast<std::size_t>(n), 0);
    for (Eigen::Index i = 0; i < n; ++i) {
      if (!(ang[static_cast<std::size_t>(i)] < threshold_deg)) continue;
      is_sharp_[static_cast<std::size_t>(i)] = 1;
      const Vec2 c = row(P, i);
      const double l = std::max((row(P, (i + 1) % n) - c).norm(), (row(P, (i + n - 1) % n) - c).norm());
      const double alpha = ang[static_cast<std::size_t>(i)] * kPi / 180.0;
      const double r = l * std::min(1000.0, std::max(2.0, 0.2 / std::max(std::sin(0.5 * alpha), 1e-300)));
      at_.push_back(c);
      radius2_.push_back(r * r);
    }
  }
  // ia, ib, ic: vertex indices (outline points are 0..n-1).
  bool exempt(int ia, int ib, int ic, const Vec2& a, const Vec2& b, const Vec2& c) const {
    for (int v : {ia, ib, ic})
      if (v >= 0 && v < static_cast<int>(is_sharp_.size()) && is_sharp_[static_cast<std::size_t>(v)])
        return true;
    for (std::size_t k = 0; k < at_.size(); ++k)
      if ((a - at_[k]).squaredNorm() <= radius2_[k] && (b - at_[k]).squaredNorm() <= radius2_[k] &&
          (c - at_[k]).squaredNorm() <= radius2_[k])
        return true;
    return false;
  }
  bool any() const { return !at_.empty(); }

 private:
  std::vector<char> is_sharp_;
  std::vector<Vec2> at_;
  std::vector<double> radius2_;
};

// ---------------------------------------------------------------------------------------------
// The mesher: triangles with neighbour links, constrained edges flagged, all triangles kept
// counter-clockwise. Edge i of a triangle joins v[i+1] and v[i+2] (mod 3) and is shared with
// neighbour n[i]. Vertices 0..nb-1 are the outline, nb..nb+3 a bounding box, then Steiner points.
// ---------------------------------------------------------------------------------------------
struct Tri {
  std::array<int, 3> v{};
  std::array<int, 3> n{-1, -1, -1};
  std::uint8_t con = 0;  // bit i: edge i is an outline segment
  bool alive = true;
  bool inside = false;
  std::uint32_t gen = 0;  // bumped whenever the slot is reused (stale queue entries)
};

inline int nx3(int i) { return i == 2 ? 0 : i + 1; }
inline int pv3(int i) { return i == 0 ? 2 : i - 1; }

struct BoundaryEdge {
  int u, w;   // edge u -> w with the cavity on its left
  int outer;  // triangle across, or -1
  bool con;   // outline segment
};

enum class Insert { kOk, kRejected, kBlocked };

class Mesher {
 public:
  Mesher(ConstRef<Points2> outline, const TriangulateOptions& opt)
      : opt_(opt), sharp_(outline, opt.min_angle_deg), grid_(outline) {
    nb_ = static_cast<int>(outline.rows());
    for (int i = 0; i < nb_; ++i) P_.push_back(row(outline, i));
    theta_ = opt.min_angle_deg * kPi / 180.0;
    ccw_ = polygon_signed_area(outline) > 0;
    for (int i = 0; i < nb_; ++i) longest_ = std::max(longest_, (P_[(i + 1) % nb_] - P_[i]).norm());
  }

  void build_outline_cdt() {
    Vec2 lo = P_[0], hi = P_[0];
    for (const Vec2& p : P_) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
    const double m = 2.0 * std::max(hi.x() - lo.x(), hi.y() - lo.y());
    const int b0 = add_vertex(Vec2(lo.x() - m, lo.y() - m));
    const int b1 = add_vertex(Vec2(hi.x() + m, lo.y() - m));
    const int b2 = add_vertex(Vec2(hi.x() + m, hi.y() + m));
    const int b3 = add_vertex(Vec2(lo.x() - m, hi.y() + m));
    const int t0 = new_tri(b0, b1, b2), t1 = new_tri(b0, b2, b3);
    T_[t0].n = {-1, t1, -1};  // edge opposite b1 is (b2, b0) shared with t1
    T_[t1].n = {-1, -1, t0};  // edge opposite b3 is (b0, b2)
    for (int i = 0; i < nb_; ++i) {
      const int t = locate(P_[i], last_);
      if (t < 0) throw InputError("triangulate: internal error locating an outline point");
      for (int k = 0; k < 3; ++k)
        if (P_[T_[t].v[k]] == P_[i])
          throw InputError("triangulate: duplicate outline point " + std::to_string(i));
      if (cavity(t, P_[i], false) != Insert::kOk)
        throw InputError("triangulate: internal error inserting outline point " + std::to_string(i));
      commit(i);
    }
    for (int i = 0; i < nb_; ++i) insert_segment(i, (i + 1) % nb_);
    mark_inside();
  }

  // Outline segments longer than 1.5 h get their own apex first: the point on the inward
  // bisector that sees the segment under kLongApex (the segment cannot be split, so its triangle
  // is large; the refinement then grades from that triangle's inner edges down to the lattice).
  static constexpr double kLongApex = kPi / 3;
  void insert_long_segment_apexes() {
    const double h = opt_.target_edge;
    for (int i = 0; i < nb_; ++i) {
      const Vec2 a = P_[i], b = P_[(i + 1) % nb_];
      const Vec2 d = b - a;
      const double len = d.norm();
      if (len < 1.5 * h) continue;
      const Vec2 nrm = (ccw_ ? Vec2(-d.y(), d.x()) : Vec2(d.y(), -d.x())) / len;
      const Vec2 q = 0.5 * (a + b) + nrm * (0.5 * len / std::tan(0.5 * kLongApex));
      const int t = locate(q, last_);
      if (t < 0 || !T_[t].inside) continue;
      bool on_vertex = false;
      for (int k = 0; k < 3; ++k) on_vertex |= P_[T_[t].v[k]] == q;
      if (on_vertex) continue;
      if (cavity(t, q, true) == Insert::kOk && far_from_cavity(q, 0.3 * len)) commit(add_vertex(q));
    }
  }

  // Hexagonal lattice of spacing h over the bounding box; points closer than 0.5 h to the
  // outline are dropped (the refinement grades the band along the outline).
  void insert_lattice() {
    const SegmentGrid& grid = grid_;
    const double h = opt_.target_edge;
    Vec2 lo = P_[0], hi = P_[0];
    for (int i = 0; i < nb_; ++i) lo = lo.cwiseMin(P_[i]), hi = hi.cwiseMax(P_[i]);
    const double dy = h * std::sqrt(3.0) / 2.0;
    const long rows = static_cast<long>((hi.y() - lo.y()) / dy) + 1;
    const long cols = static_cast<long>((hi.x() - lo.x()) / h) + 2;
    int start = last_;
    for (long j = 0; j < rows; ++j) {
      const double y = lo.y() + 0.5 * dy + static_cast<double>(j) * dy;
      const double x0 = lo.x() + ((j % 2) ? 0.5 * h : 0.0);
      for (long k = 0; k < cols; ++k) {
        // Boustrophedon order keeps the point-location walks short.
        const long kk = (j % 2) ? cols - 1 - k : k;
        const Vec2 p(x0 + static_cast<double>(kk) * h, y);
        if (p.x() > hi.x()) continue;
        const int t = locate(p, start);
        if (t < 0 || !T_[t].inside) continue;
        start = t;
        if (grid.distance(p, 0.5 * h) < 0.5 * h) continue;
        if (size_at(p) > 1.2 * h) continue;
        if (cavity(t, p, true) == Insert::kOk && far_from_cavity(p, 0.5 * h)) {
          start = commit(add_vertex(p));
          check_size();
        }
      }
    }
  }

  // Target size at x: target_edge, raised near outline segments longer than 1.5 target_edge
  // (which cannot be split) to L - d/2 (L: segment length, d: distance to it), so that sizes
  // grade from the segment's own triangle down to the lattice with slope 1/2.
  double size_at(const Vec2& x) const {
    const double h = opt_.target_edge;
    if (longest_ < 1.5 * h) return h;
    double s = h;
    const double r = 2.0 * longest_;
    grid_.for_each_near(x - Vec2::Constant(r), x + Vec2::Constant(r), [&](int i) {
      const Vec2 &a = P_[i], &b = P_[(i + 1) % nb_];
      const Vec2 d = b - a;
      const double len = d.norm();
      if (len < 1.5 * h) return;
      const double t = std::clamp((x - a).dot(d) / (len * len), 0.0, 1.0);
      s = std::max(s, len - 0.5 * (a + t * d - x).norm());
    });
    return s;
  }

  void refine() {
    const double h = opt_.target_edge;
    size_limit_ = 0.8 * h;  // circumradius bound (equilateral of side h: 0.577 h)
    double area = 0.0;
    for (int i = 0; i < nb_; ++i)
      area += P_[i].x() * P_[(i + 1) % nb_].y() - P_[(i + 1) % nb_].x() * P_[i].y();
    const double lattice = std::abs(area) / 2.0 / (std::sqrt(3.0) / 2.0 * h * h);
    const std::size_t cap =
        static_cast<std::size_t>(2.0 * lattice) + 50 * static_cast<std::size_t>(nb_) + 1000;
    for (int t = 0; t < static_cast<int>(T_.size()); ++t) push(t);
    std::size_t inserted = 0;
    while (!queue_.empty()) {
      const QItem it = queue_.top();
      queue_.pop();
      const int t = it.tri;
      if (!T_[t].alive || T_[t].gen != it.gen) continue;
      if (inserted >= cap) {
        logger().warn("triangulate: refinement stopped after {} Steiner points (limit)", inserted);
        break;
      }
      if (split_triangle(t)) ++inserted;
    }
  }

  PanelTriangulation output(bool clockwise) const {
    PanelTriangulation out;
    const int nv = static_cast<int>(P_.size()) - 4;
    out.num_boundary = nb_;
    out.V.resize(nv, 2);
    for (int i = 0; i < static_cast<int>(P_.size()); ++i) {
      if (i >= nb_ && i < nb_ + 4) continue;
      const int o = i < nb_ ? i : i - 4;
      out.V(o, 0) = P_[i].x();
      out.V(o, 1) = P_[i].y();
    }
    int nf = 0;
    for (const Tri& t : T_) nf += t.alive && t.inside;
    out.F.resize(nf, 3);
    int f = 0;
    for (const Tri& t : T_) {
      if (!t.alive || !t.inside) continue;
      std::array<int, 3> v = t.v;
      for (int& x : v) x = x < nb_ ? x : x - 4;
      if (clockwise) std::swap(v[1], v[2]);
      out.F.row(f++) << v[0], v[1], v[2];
    }
    return out;
  }

 private:
  // ---- storage -------------------------------------------------------------------------------
  int add_vertex(const Vec2& p) {
    P_.push_back(p);
    vtri_.push_back(-1);
    return static_cast<int>(P_.size()) - 1;
  }
  int new_tri(int a, int b, int c) {
    int t;
    if (!free_.empty()) {
      t = free_.back();
      free_.pop_back();
      const std::uint32_t g = T_[t].gen + 1;
      T_[t] = Tri{};
      T_[t].gen = g;
    } else {
      t = static_cast<int>(T_.size());
      T_.emplace_back();
      mark_.push_back(0);
    }
    T_[t].v = {a, b, c};
    if (static_cast<int>(vtri_.size()) < static_cast<int>(P_.size())) vtri_.resize(P_.size(), -1);
    vtri_[a] = vtri_[b] = vtri_[c] = t;
    ++alive_;
    return t;
  }
  void kill_tri(int t) {
    T_[t].alive = false;
    free_.push_back(t);
    --alive_;
  }
  void check_size() const {
    if (static_cast<std::size_t>(alive_) > opt_.max_triangles + 8)
      throw InputError("triangulate: more than max_triangles (" + std::to_string(opt_.max_triangles) +
                       ") triangles; raise target_edge or max_triangles");
  }
  int edge_of(int t, int nbr) const {
    for (int i = 0; i < 3; ++i)
      if (T_[t].n[i] == nbr) return i;
    return -1;
  }
  void relink(int t, int old_nbr, int new_nbr) {
    if (t < 0) return;
    const int i = edge_of(t, old_nbr);
    if (i >= 0) T_[t].n[i] = new_nbr;
  }

  // ---- point location ------------------------------------------------------------------------
  // Visibility walk over the whole triangulation (constraints ignored), with a fixed-seed
  // pseudo-random choice of the first edge so that it cannot cycle [Devillers, Pion & Teillaud
  // 2002]. Returns a triangle containing p (closed), or -1 if p is outside the bounding box.
  int locate(const Vec2& p, int start) {
    int t = (start >= 0 && start < static_cast<int>(T_.size()) && T_[start].alive) ? start : first_alive();
    const std::size_t limit = 4 * T_.size() + 64;
    for (std::size_t step = 0; step < limit; ++step) {
      rng_ = rng_ * 6364136223846793005ULL + 1442695040888963407ULL;
      const int r = static_cast<int>((rng_ >> 33) % 3);
      int next = -2;
      for (int k = 0; k < 3; ++k) {
        const int i = (r + k) % 3;
        const Tri& tr = T_[t];
        if (orient2d(P_[tr.v[nx3(i)]], P_[tr.v[pv3(i)]], p) < 0) {
          next = tr.n[i];
          break;
        }
      }
      if (next == -2) return t;
      if (next < 0) return -1;
      t = next;
    }
    return -1;
  }
  int first_alive() const {
    for (int t = 0; t < static_cast<int>(T_.size()); ++t)
      if (T_[t].alive) return t;
    return -1;
  }

  // Straight walk inside the domain from a point o strictly inside triangle t towards p. Returns
  // the triangle containing p; or -1 with (blocked_tri_, blocked_edge_) set when an outline
  // segment is in the way (or the walk fails).
  int walk_to(int t, const Vec2& o, const Vec2& p) {
    blocked_tri_ = -1;
    blocked_edge_ = -1;
    const std::size_t limit = T_.size() + 16;
    for (std::size_t step = 0; step < limit; ++step) {
      const Tri& tr = T_[t];
      int exit = -1;
      for (int i = 0; i < 3; ++i) {
        const Vec2& a = P_[tr.v[nx3(i)]];
        const Vec2& b = P_[tr.v[pv3(i)]];
        if (orient2d(a, b, p) >= 0) continue;  // p not beyond this edge
        // The ray o->p leaves through (a, b) when a is right of (or on) it and b left of (or on) it.
        if (orient2d(o, p, a) <= 0 && orient2d(o, p, b) >= 0) {
          exit = i;
          break;
        }
      }
      if (exit < 0) {
        bool in = true;
        for (int i = 0; i < 3; ++i)
          if (orient2d(P_[tr.v[nx3(i)]], P_[tr.v[pv3(i)]], p) < 0) in = false;
        return in ? t : -1;
      }
      if ((tr.con >> exit) & 1 || tr.n[exit] < 0 || !T_[tr.n[exit]].inside) {
        blocked_tri_ = t;
        blocked_edge_ = exit;
        return -1;
      }
      t = tr.n[exit];
    }
    return -1;
  }

  // ---- Bowyer-Watson insertion [Bowyer 1981; Watson 1981], constrained -----------------------
  // Collects the cavity of p (triangles whose circumcircle contains p, reachable from t without
  // crossing an outline segment) into cav_ / bnd_. With `domain`, only inside triangles. Rejects
  // (kRejected) when the cavity is not star-shaped from p, or when p would become the apex of an
  // outline segment with a triangle that no later point could repair (bad_apex); then
  // reject_tri_/reject_edge_ name that segment.
  Insert cavity(int t, const Vec2& p, bool domain) {
    cav_.clear();
    bnd_.clear();
    reject_tri_ = reject_edge_ = -1;
    ++stamp_;
    std::vector<int>& stack = stack_;
    stack.clear();
    stack.push_back(t);
    mark_[t] = stamp_;
    while (!stack.empty()) {
      const int c = stack.back();
      stack.pop_back();
      cav_.push_back(c);
      for (int i = 0; i < 3; ++i) {
        const int nbr = T_[c].n[i];
        if (nbr < 0 || mark_[nbr] == stamp_) continue;
        if ((T_[c].con >> i) & 1) continue;
        if (domain && !T_[nbr].inside) continue;
        const Tri& q = T_[nbr];
        if (incircle(P_[q.v[0]], P_[q.v[1]], P_[q.v[2]], p) > 0) {
          mark_[nbr] = stamp_;
          stack.push_back(nbr);
        }
      }
    }
    for (int c : cav_) {
      for (int i = 0; i < 3; ++i) {
        const int nbr = T_[c].n[i];
        if (nbr >= 0 && mark_[nbr] == stamp_) continue;
        const BoundaryEdge e{T_[c].v[nx3(i)], T_[c].v[pv3(i)], nbr, static_cast<bool>((T_[c].con >> i) & 1)};
        if (orient2d(P_[e.u], P_[e.w], p) <= 0) return Insert::kRejected;
        if (e.con && domain && bad_apex(P_[e.u], P_[e.w], p)) {
          reject_tri_ = c;
          reject_edge_ = i;
          return Insert::kRejected;
        }
        bnd_.push_back(e);
      }
    }
    // A disk of k triangles without interior vertices has k + 2 boundary edges, and a simple
    // boundary loop starts one edge at each of its vertices.
    if (bnd_.size() != cav_.size() + 2) return Insert::kRejected;
    if (vmark_.size() < P_.size()) vmark_.resize(P_.size() + 64, 0);
    ++vstamp_;
    for (const BoundaryEdge& e : bnd_) {
      if (vmark_[static_cast<std::size_t>(e.u)] == vstamp_) return Insert::kRejected;
      vmark_[static_cast<std::size_t>(e.u)] = vstamp_;
    }
    return Insert::kOk;
  }

  // p may become the apex of the unsplittable segment (a, b) when the triangle is good, or when
  // its circumcentre (inside the domain, apex angle <= 90 - theta) gives a good triangle later.
  // (The looser diametral-lens rule of [Shewchuk 2002] lets Steiner points crowd long segments
  // from which no later point can recover when the segment cannot be split.)
  bool bad_apex(const Vec2& a, const Vec2& b, const Vec2& p) const {
    if (min_angle_rad(a, b, p) >= theta_) return false;
    return corner_angle(a, p, b) > kPi / 2 - theta_;
  }

  bool far_from_cavity(const Vec2& p, double dmin) const {
    for (const BoundaryEdge& e : bnd_)
      if ((P_[e.u] - p).norm() < dmin) return false;
    return true;
  }

  // Replaces the cavity by the fan of triangles from vertex v. Returns one new triangle.
  int commit(int v) {
    const bool inside = !cav_.empty() && T_[cav_[0]].inside;
    for (int c : cav_) kill_tri(c);
    if (static_cast<int>(start_of_.size()) < static_cast<int>(P_.size())) start_of_.resize(P_.size(), -1);
    fan_.clear();
    for (const BoundaryEdge& e : bnd_) {
      const int t = new_tri(v, e.u, e.w);
      T_[t].n[0] = e.outer;
      T_[t].con = e.con ? 1 : 0;
      T_[t].inside = inside;
      if (e.outer >= 0) {
        // The outer triangle pointed to a (now dead) cavity triangle across edge (w, u).
        Tri& o = T_[e.outer];
        for (int i = 0; i < 3; ++i)
          if (o.v[nx3(i)] == e.w && o.v[pv3(i)] == e.u) o.n[i] = t;
      }
      start_of_[e.u] = t;
      fan_.push_back(t);
    }
    for (int t : fan_) {
      // Edge opposite u (index 1) is (w, v): shared with the fan triangle starting at w.
      // Edge opposite w (index 2) is (v, u): shared with the fan triangle ending at u.
      const int w = T_[t].v[2];
      const int nb = start_of_[w];
      T_[t].n[1] = nb;
      T_[nb].n[2] = t;
    }
    for (int t : fan_) start_of_[T_[t].v[1]] = -1;
    last_ = fan_.empty() ? last_ : fan_[0];
    for (int t : fan_) push(t);
    return last_;
  }

  // ---- segment recovery by flips [Sloan 1993] ------------------------------------------------
  void flip(int t, int i) {
    const int u = T_[t].n[i];
    const int j = edge_of(u, t);
    const int a = T_[t].v[i], b = T_[t].v[nx3(i)], c = T_[t].v[pv3(i)];  // t = (a, b, c), edge (b, c)
    const int d = T_[u].v[j];                                            // u = (d, c, b)
    const int n_ab = T_[t].n[pv3(i)], n_ca = T_[t].n[nx3(i)];
    const bool c_ab = (T_[t].con >> pv3(i)) & 1, c_ca = (T_[t].con >> nx3(i)) & 1;
    // In u = (d, c, b) at index j: edge opposite c is (b, d), edge opposite b is (d, c).
    const int jc = nx3(j), jb = pv3(j);
    const int n_bd = T_[u].n[jc], n_dc = T_[u].n[jb];
    const bool c_bd = (T_[u].con >> jc) & 1, c_dc = (T_[u].con >> jb) & 1;
    // New t = (a, b, d), new u = (a, d, c).
    T_[t].v = {a, b, d};
    T_[t].n = {n_bd, u, n_ab};
    T_[t].con = static_cast<std::uint8_t>((c_bd ? 1 : 0) | (c_ab ? 4 : 0));
    T_[u].v = {a, d, c};
    T_[u].n = {n_dc, n_ca, t};
    T_[u].con = static_cast<std::uint8_t>((c_dc ? 1 : 0) | (c_ca ? 2 : 0));
    relink(n_bd, u, t);
    relink(n_ca, t, u);
    vtri_[a] = t;
    vtri_[b] = t;
    vtri_[d] = u;
    vtri_[c] = u;
  }

  // Makes outline segment a-b an edge of the triangulation and flags it: collects the edges it
  // crosses, flips them away [Sloan 1993], then restores the constrained Delaunay property
  // around the new edges by Lawson flips. An outline point on the segment, or a crossed outline
  // segment, means the outline is not simple: InputError (check_outline catches these first).
  void insert_segment(int a, int b) {
    const std::string what = "segment " + std::to_string(a) + "-" + std::to_string(b);
    // Collect the edges crossed by a->b, walking from a.
    std::vector<std::pair<int, int>> crossing;
    int t = vtri_[a];
    int ia = index_in(t, a);
    const std::size_t lim = T_.size() + 16;
    // Rotate around a to find the triangle containing the direction to b.
    bool found = false;
    for (std::size_t s = 0; s < lim && !found; ++s) {
      const int v1 = T_[t].v[nx3(ia)], v2 = T_[t].v[pv3(ia)];
      if (v1 == b || v2 == b) return mark_constrained(a, b);
      const double o1 = orient2d(P_[a], P_[b], P_[v1]);
      const double o2 = orient2d(P_[a], P_[b], P_[v2]);
      if (o1 == 0 && (P_[v1] - P_[a]).dot(P_[b] - P_[a]) > 0)
        throw InputError("triangulate: outline point " + std::to_string(v1) + " lies on " + what);
      if (o2 == 0 && (P_[v2] - P_[a]).dot(P_[b] - P_[a]) > 0)
        throw InputError("triangulate: outline point " + std::to_string(v2) + " lies on " + what);
      if (o1 < 0 && o2 > 0) {
        found = true;
        break;
      }
      // Next triangle counter-clockwise around a: across edge (v2, a), opposite v1.
      t = T_[t].n[nx3(ia)];
      if (t < 0) throw InputError("triangulate: internal error recovering " + what);
      ia = index_in(t, a);
    }
    if (!found) throw InputError("triangulate: internal error recovering " + what);
    // Walk across crossed edges.
    int cur = t, ie = ia;  // edge ie of cur (opposite a) is crossed
    for (std::size_t s = 0; s < lim; ++s) {
      if ((T_[cur].con >> ie) & 1)
        throw InputError("triangulate: outline " + what + " crosses another segment (self-intersection)");
      const int u = T_[cur].v[nx3(ie)], w = T_[cur].v[pv3(ie)];
      crossing.emplace_back(u, w);
      const int nxt = T_[cur].n[ie];
      const int k = edge_of(nxt, cur);
      const int opp = T_[nxt].v[k];
      if (opp == b) break;
      const double o = orient2d(P_[a], P_[b], P_[opp]);
      if (o == 0) throw InputError("triangulate: outline point " + std::to_string(opp) + " lies on " + what);
      // nxt = (opp, w, u) counter-clockwise from index k, u right of a->b and w left of it.
      // opp left: the next crossed edge is (u, opp), opposite w; opp right: (opp, w), opposite u.
      cur = nxt;
      ie = o > 0 ? nx3(k) : pv3(k);
    }
    // Flip crossing edges until a-b appears [Sloan 1993].
    std::vector<std::pair<int, int>> fresh;
    std::size_t guard = 0;
    const std::size_t guard_limit = 64 * (crossing.size() + 4) * (crossing.size() + 4);
    std::size_t head = 0;
    while (head < crossing.size()) {
      if (++guard > guard_limit) throw InputError("triangulate: could not recover " + what);
      const auto [u, w] = crossing[head++];
      int tt, ii;
      if (!find_edge(u, w, tt, ii)) throw InputError("triangulate: internal error recovering " + what);
      const int nbr = T_[tt].n[ii];
      const int p = T_[tt].v[ii], q = T_[nbr].v[edge_of(nbr, tt)];
      // Convex quad iff segment p-q crosses u-w.
      if (orient2d(P_[p], P_[q], P_[u]) * orient2d(P_[p], P_[q], P_[w]) < 0 &&
          orient2d(P_[u], P_[w], P_[p]) * orient2d(P_[u], P_[w], P_[q]) < 0) {
        flip(tt, ii);
        const bool touches = p == a || p == b || q == a || q == b;
        const double op = orient2d(P_[a], P_[b], P_[p]), oq = orient2d(P_[a], P_[b], P_[q]);
        if (!touches && op * oq < 0)
          crossing.emplace_back(p, q);
        else
          fresh.emplace_back(p, q);
      } else {
        crossing.emplace_back(u, w);
      }
    }
    mark_constrained(a, b);
    // Restore the constrained Delaunay property around the new edges [Lawson 1977].
    std::vector<std::pair<int, int>> stack(fresh.begin(), fresh.end());
    std::size_t flips = 0;
    while (!stack.empty()) {
      const auto [u, w] = stack.back();
      stack.pop_back();
      int tt, ii;
      if (!find_edge(u, w, tt, ii) || ((T_[tt].con >> ii) & 1)) continue;
      const int nbr = T_[tt].n[ii];
      if (nbr < 0) continue;
      const int q = T_[nbr].v[edge_of(nbr, tt)];
      const Tri& tr = T_[tt];
      if (incircle(P_[tr.v[0]], P_[tr.v[1]], P_[tr.v[2]], P_[q]) > 0) {
        if (++flips > 64 * (fresh.size() + 4) * (fresh.size() + 4))
          throw InputError("triangulate: internal error (flip loop) recovering " + what);
        const int p = tr.v[ii];
        flip(tt, ii);
        stack.emplace_back(p, q);
        stack.emplace_back(u, q);
        stack.emplace_back(w, q);
        stack.emplace_back(p, u);
        stack.emplace_back(p, w);
      }
    }
  }

  int index_in(int t, int v) const {
    for (int i = 0; i < 3; ++i)
      if (T_[t].v[i] == v) return i;
    return -1;
  }
  // Finds the triangle holding the undirected edge (u, w) and the index of that edge, rotating
  // around u (both ways, since u may lie on the bounding box).
  bool find_edge(int u, int w, int& t, int& i) const {
    for (int dir = 0; dir < 2; ++dir) {
      int c = vtri_[u];
      const int first = c;
      for (std::size_t s = 0; s <= T_.size() && c >= 0; ++s) {
        const int iu = index_in(c, u);
        if (T_[c].v[nx3(iu)] == w) {
          t = c;
          i = pv3(iu);
          return true;
        }
        if (T_[c].v[pv3(iu)] == w) {
          t = c;
          i = nx3(iu);
          return true;
        }
        c = dir == 0 ? T_[c].n[nx3(iu)] : T_[c].n[pv3(iu)];
        if (c == first) return false;
      }
    }
    return false;
  }
  void mark_constrained(int a, int b) {
    int t, i;
    if (!find_edge(a, b, t, i)) throw InputError("triangulate: internal error: segment not recovered");
    T_[t].con |= static_cast<std::uint8_t>(1u << i);
    const int u = T_[t].n[i];
    T_[u].con |= static_cast<std::uint8_t>(1u << edge_of(u, t));
  }

  // Flood fill from the bounding box without crossing outline segments: the rest is inside.
  void mark_inside() {
    for (Tri& t : T_) t.inside = t.alive;
    std::vector<int> stack;
    for (int t = 0; t < static_cast<int>(T_.size()); ++t) {
      if (!T_[t].alive) continue;
      for (int v : T_[t].v)
        if (v >= nb_ && v < nb_ + 4 && T_[t].inside) {
          T_[t].inside = false;
          stack.push_back(t);
        }
    }
    while (!stack.empty()) {
      const int t = stack.back();
      stack.pop_back();
      for (int i = 0; i < 3; ++i) {
        const int u = T_[t].n[i];
        if (u < 0 || ((T_[t].con >> i) & 1) || !T_[u].inside) continue;
        T_[u].inside = false;
        stack.push_back(u);
      }
    }
    int inside = 0;
    for (const Tri& t : T_) inside += t.alive && t.inside;
    if (inside != nb_ - 2)
      throw InputError("triangulate: outline is not a simple polygon (" + std::to_string(inside) +
                       " triangles inside, expected " + std::to_string(nb_ - 2) + ")");
  }

  // ---- refinement [Ruppert 1995; Shewchuk 2002] ----------------------------------------------
  struct QItem {
    double key;
    int tri;
    std::uint32_t gen;
    bool operator<(const QItem& o) const {  // max-heap: smaller key first, then smaller index
      if (key != o.key) return key > o.key;
      return tri > o.tri;
    }
  };
  bool exempt(const Tri& t) const {
    return sharp_.exempt(t.v[0], t.v[1], t.v[2], P_[t.v[0]], P_[t.v[1]], P_[t.v[2]]);
  }
  // Badness key (< 0: not bad). Skinny triangles first (smallest angle first), then large ones.
  double badness(const Tri& t) const {
    if (!t.alive || !t.inside || exempt(t)) return -1.0;
    const Vec2 &a = P_[t.v[0]], &b = P_[t.v[1]], &c = P_[t.v[2]];
    const double ang = min_angle_rad(a, b, c);
    if (ang < theta_) return ang;
    const double R = circumradius(a, b, c);
    if (R > size_limit_) {
      const double limit = longest_ < 1.5 * opt_.target_edge ? size_limit_ : 0.8 * size_at((a + b + c) / 3.0);
      if (R > limit) return 10.0 + limit / R;
    }
    return -1.0;
  }
  void push(int t) {
    if (size_limit_ <= 0) return;  // refinement not started
    const double k = badness(T_[t]);
    if (k >= 0) queue_.push({k, t, T_[t].gen});
  }
  static double circumradius(const Vec2& a, const Vec2& b, const Vec2& c) {
    const double la = (b - c).norm(), lb = (c - a).norm(), lc = (a - b).norm();
    const double cr = std::abs((b - a).x() * (c - a).y() - (b - a).y() * (c - a).x());
    return cr > 0 ? la * lb * lc / (2.0 * cr) : std::numeric_limits<double>::infinity();
  }
  static Vec2 circumcenter(const Vec2& a, const Vec2& b, const Vec2& c) {
    const Vec2 B = b - a, C = c - a;
    const double d = 2.0 * (B.x() * C.y() - B.y() * C.x());
    const double b2 = B.squaredNorm(), c2 = C.squaredNorm();
    return a + Vec2((C.y() * b2 - B.y() * c2) / d, (B.x() * c2 - C.x() * b2) / d);
  }
  static bool strictly_inside(const Vec2& a, const Vec2& b, const Vec2& c, const Vec2& p) {
    return orient2d(a, b, p) > 0 && orient2d(b, c, p) > 0 && orient2d(c, a, p) > 0;
  }

  // Tries to insert a Steiner point at p, walking from triangle t (origin: its centroid).
  // kBlocked/kRejected set seg_tri_/seg_edge_ to the outline segment in the way when known.
  Insert try_insert(int t, const Vec2& p, double dmin) {
    seg_tri_ = seg_edge_ = -1;
    const Tri& tr = T_[t];
    const Vec2 o = (P_[tr.v[0]] + P_[tr.v[1]] + P_[tr.v[2]]) / 3.0;
    if (!p.allFinite() || !strictly_inside(P_[tr.v[0]], P_[tr.v[1]], P_[tr.v[2]], o))
      return Insert::kRejected;
    const int c = walk_to(t, o, p);
    if (c < 0) {
      seg_tri_ = blocked_tri_;
      seg_edge_ = blocked_edge_;
      return Insert::kBlocked;
    }
    for (int k = 0; k < 3; ++k)
      if (P_[T_[c].v[k]] == p) return Insert::kRejected;
    const Insert r = cavity(c, p, true);
    if (r != Insert::kOk) {
      seg_tri_ = reject_tri_;
      seg_edge_ = reject_edge_;
      return r;
    }
    if (!far_from_cavity(p, dmin)) return Insert::kRejected;
    commit(add_vertex(p));
    check_size();
    return Insert::kOk;
  }

  // One refinement step on a bad triangle. Returns true if a point was inserted. Candidates: for
  // a skinny triangle the off-centre [Ungor 2004] (on the bisector of the shortest edge, where
  // that edge gets an apex angle just above the bound) when it is nearer than the circumcentre,
  // then the circumcentre [Chew 1993; Ruppert 1995].
  bool split_triangle(int t) {
    const Tri tr = T_[t];
    const Vec2 a = P_[tr.v[0]], b = P_[tr.v[1]], c = P_[tr.v[2]];
    const Vec2 cc = circumcenter(a, b, c);
    std::array<Vec2, 2> cand{cc, cc};
    int ncand = 1;
    const double lab = (b - a).norm(), lbc = (c - b).norm(), lca = (a - c).norm();
    const double shortest = std::min({lab, lbc, lca});
    if (min_angle_rad(a, b, c) < theta_) {
      const Vec2& p = lab == shortest ? a : (lbc == shortest ? b : c);
      const Vec2& q = lab == shortest ? b : (lbc == shortest ? c : a);
      const Vec2 mid = 0.5 * (p + q);
      const Vec2 d = q - p;
      const Vec2 nrm = Vec2(-d.y(), d.x()) / d.norm();  // left of p->q: towards the third vertex
      // Apex angle theta + 5 degrees: the new triangle just meets the bound [Ungor 2004].
      const double apex = theta_ + 5.0 * kPi / 180.0;
      const Vec2 off = mid + nrm * (0.5 * shortest / std::tan(0.5 * apex));
      if ((off - mid).norm() < (cc - mid).norm()) {
        cand = {off, cc};
        ncand = 2;
      }
    }
    int seg_t = -1, seg_e = -1;
    for (int k = 0; k < ncand; ++k) {
      if (try_insert(t, cand[static_cast<std::size_t>(k)], 0.1 * shortest) == Insert::kOk) return true;
      if (seg_t < 0 && seg_tri_ >= 0) seg_t = seg_tri_, seg_e = seg_edge_;
    }
    if (seg_t < 0) return false;
    // The candidates lie across, or would spoil, outline segment s: repair s's own triangle
    // with a point on its inward bisector instead (s cannot be split), then retry t once.
    if (repair_segment(seg_t, seg_e)) {
      if (T_[t].alive && T_[t].gen == tr.gen && T_[t].v == tr.v) push(t);
      return true;
    }
    // s's triangle is fine: try points pulled from the first candidate towards t's centroid
    // (still inside t's circumcircle, so they still remove t), further from s.
    const Vec2 g = (a + b + c) / 3.0;
    for (double lambda : {0.5, 0.25})
      if (try_insert(t, g + lambda * (cand[0] - g), 0.1 * shortest) == Insert::kOk) return true;
    return false;
  }

  // Segment s = edge e of inside triangle t, apex v. When (s, v) is a bad triangle, inserts the
  // point q on the inward perpendicular bisector of s whose apex angle psi gives base angles
  // >= theta: psi = 60 deg when the current apex angle phi < 60 deg, else halfway between phi and
  // 180 - 2 theta (q is then inside the circumcircle of (s, v), so it replaces v as apex).
  bool repair_segment(int t, int e) {
    const Tri tr = T_[t];
    const Vec2 &a = P_[tr.v[nx3(e)]], &b = P_[tr.v[pv3(e)]], &v = P_[tr.v[e]];
    if (min_angle_rad(a, b, v) >= theta_ || exempt(tr)) return false;
    const double phi = corner_angle(a, v, b);
    const double lens = kPi - 2.0 * theta_;
    if (phi >= lens) return false;
    const double psi = phi < kPi / 3 ? kPi / 3 : 0.5 * (phi + lens);
    const Vec2 d = b - a;
    const double len = d.norm();
    const Vec2 nrm = Vec2(-d.y(), d.x()) / len;  // left of a->b = inside
    const Vec2 q = 0.5 * (a + b) + nrm * (0.5 * len / std::tan(0.5 * psi));
    return try_insert(t, q, 0.25 * len) == Insert::kOk;
  }

  TriangulateOptions opt_;
  SharpCorners sharp_;
  SegmentGrid grid_;
  bool ccw_ = true;
  int nb_ = 0;
  double theta_ = 0.0, size_limit_ = 0.0, longest_ = 0.0;
  std::vector<Vec2> P_;
  std::vector<int> vtri_;
  std::vector<Tri> T_;
  std::vector<int> free_;
  std::vector<std::uint32_t> mark_, vmark_;  // visit stamps of triangles / vertices
  std::uint32_t stamp_ = 0, vstamp_ = 0;
  int alive_ = 0;
  int last_ = 0;
  std::uint64_t rng_ = 0x9E3779B97F4A7C15ULL;
  std::vector<int> cav_, stack_, fan_, start_of_;
  std::vector<BoundaryEdge> bnd_;
  int reject_tri_ = -1, reject_edge_ = -1, blocked_tri_ = -1, blocked_edge_ = -1;
  int seg_tri_ = -1, seg_edge_ = -1;
  std::priority_queue<QItem> queue_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------

double polygon_signed_area(ConstRef<Points2> P) {
  const Eigen::Index n = P.rows();
  double s = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index j = (i + 1) % n;
    s += P(i, 0) * P(j, 1) - P(j, 0) * P(i, 1);
  }
  return 0.5 * s;
}

std::vector<double> interior_angles_deg(ConstRef<Points2> P) {
  const Eigen::Index n = P.rows();
  std::vector<double> out(static_cast<std::size_t>(n), 180.0);
  if (n < 3) return out;
  const bool ccw = polygon_signed_area(P) >= 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Vec2 p = row(P, i), prev = row(P, (i + n - 1) % n), next = row(P, (i + 1) % n);
    const Vec2 u = next - p, w = prev - p;  // CCW polygon: interior from u to w counter-clockwise
    double a = std::atan2(u.x() * w.y() - u.y() * w.x(), u.dot(w));
    if (!ccw) a = -a;
    if (a < 0) a += 2.0 * kPi;
    out[static_cast<std::size_t>(i)] = deg(a);
  }
  return out;
}

namespace {
// One step of the crossing-number test for the rightward ray from p against segment (a, b),
// half-open in y: -1 when p lies on the segment, 1 when the ray crosses it, else 0.
int ray_crossing(const Vec2& a, const Vec2& b, const Vec2& p) {
  const double o = orient2d(a, b, p);
  if (o == 0 && std::min(a.x(), b.x()) <= p.x() && p.x() <= std::max(a.x(), b.x()) &&
      std::min(a.y(), b.y()) <= p.y() && p.y() <= std::max(a.y(), b.y()))
    return -1;
  if ((a.y() > p.y()) == (b.y() > p.y())) return 0;
  // The segment crosses the ray iff p is left of it directed upwards.
  return (b.y() > a.y() ? o > 0 : o < 0) ? 1 : 0;
}

// point_in_polygon with the grid: only segments in p's row of cells, from p's column rightwards,
// can cross the ray or contain p.
bool inside_with_grid(ConstRef<Points2> P, const SegmentGrid& grid, const Vec2& p, std::vector<int>& ids) {
  ids.clear();
  grid.for_each_near(p, Vec2(std::numeric_limits<double>::max(), p.y()), [&](int i) { ids.push_back(i); });
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const Eigen::Index n = P.rows();
  bool in = false;
  for (int i : ids) {
    const int c = ray_crossing(row(P, i), row(P, (i + 1) % n), p);
    if (c < 0) return false;
    if (c > 0) in = !in;
  }
  return in;
}
}  // namespace

bool point_in_polygon(ConstRef<Points2> P, const Vec2& p) {
  const Eigen::Index n = P.rows();
  bool in = false;
  for (Eigen::Index i = 0; i < n; ++i) {
    const int c = ray_crossing(row(P, i), row(P, (i + 1) % n), p);
    if (c < 0) return false;  // on the outline
    if (c > 0) in = !in;
  }
  return in;
}

void check_outline(ConstRef<Points2> P, const char* what) {
  const std::string name(what);
  const Eigen::Index n = P.rows();
  if (n < 3) throw InputError(name + ": needs at least 3 points, has " + std::to_string(n));
  if (!P.allFinite()) throw InputError(name + ": a coordinate is not finite (NaN or infinity)");
  // Duplicate points: sort by (x, y) and compare neighbours.
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  std::sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return P(a, 0) != P(b, 0) ? P(a, 0) < P(b, 0) : (P(a, 1) != P(b, 1) ? P(a, 1) < P(b, 1) : a < b);
  });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const Eigen::Index a = order[k - 1], b = order[k];
    if (P(a, 0) == P(b, 0) && P(a, 1) == P(b, 1)) {
      const bool adjacent = (a + 1) % n == b || (b + 1) % n == a;
      throw InputError(name + ": points " + std::to_string(a) + " and " + std::to_string(b) + " coincide" +
                       (adjacent ? " (zero-length segment)" : ""));
    }
  }
  // Segment pairs sharing a grid cell.
  SegmentGrid grid(P);
  for (int y = 0; y < grid.ny(); ++y)
    for (int x = 0; x < grid.nx(); ++x) {
      auto [b, e] = grid.cell(x, y);
      for (const int* i = b; i != e; ++i)
        for (const int* j = i + 1; j != e; ++j) {
          const Eigen::Index si = std::min(*i, *j), sj = std::max(*i, *j);
          const Vec2 a0 = row(P, si), a1 = row(P, (si + 1) % n);
          const Vec2 b0 = row(P, sj), b1 = row(P, (sj + 1) % n);
          std::ostringstream msg;
          if ((si + 1) % n == sj || (sj + 1) % n == si) {
            // Adjacent: shared vertex s; they overlap iff collinear and pointing the same way.
            const bool shared_start = (si + 1) % n == sj;  // a1 == b0
            const Vec2 s = shared_start ? a1 : a0;
            const Vec2 p = shared_start ? a0 : a1;
            const Vec2 q = shared_start ? b1 : b0;
            if (orient2d(p, s, q) == 0 && (p - s).dot(q - s) > 0) {
              msg << name << ": segments " << si << " and " << sj << " fold back on each other";
              throw InputError(msg.str());
            }
            if (n == 3) continue;
            continue;
          }
          if (segments_touch(a0, a1, b0, b1)) {
            msg << name << ": segments " << si << "-" << (si + 1) % n << " and " << sj << "-" << (sj + 1) % n
                << " intersect (self-intersecting outline)";
            throw InputError(msg.str());
          }
        }
    }
  if (polygon_signed_area(P) == 0.0) throw InputError(name + ": zero area");
}

PanelTriangulation triangulate_panel(ConstRef<Points2> outline, const TriangulateOptions& options) {
  if (!(options.target_edge > 0) || !std::isfinite(options.target_edge))
    throw InputError("triangulate: target_edge must be a positive number of metres");
  // Above 30 degrees the refinement around unsplittable segments stops converging (measured).
  if (!(options.min_angle_deg >= 0 && options.min_angle_deg <= 30))
    throw InputError("triangulate: min_angle_deg must be in [0, 30]");
  check_outline(outline, "triangulate: outline");
  const double area = std::abs(polygon_signed_area(outline));
  const double h = options.target_edge;
  const double estimate = area / (std::sqrt(3.0) / 4.0 * h * h) + 2.0 * static_cast<double>(outline.rows());
  if (estimate > static_cast<double>(options.max_triangles))
    throw InputError("triangulate: about " + std::to_string(static_cast<long long>(estimate)) +
                     " triangles needed, more than max_triangles (" + std::to_string(options.max_triangles) +
                     "); raise target_edge or max_triangles");
  Mesher mesher(outline, options);
  mesher.build_outline_cdt();
  mesher.insert_long_segment_apexes();
  mesher.insert_lattice();
  mesher.refine();
  PanelTriangulation out = mesher.output(polygon_signed_area(outline) < 0);
  logger().debug("triangulate: {} outline points -> {} vertices, {} triangles", outline.rows(), out.V.rows(),
                 out.F.rows());
  return out;
}

// ---------------------------------------------------------------------------------------------

TriangleAngle triangle_min_angle(const PanelTriangulation& T, int f, double sharp_corner_deg) {
  TriangleAngle out;
  const Vec2 a = row(T.V, T.F(f, 0)), b = row(T.V, T.F(f, 1)), c = row(T.V, T.F(f, 2));
  out.min_angle_deg = deg(min_angle_rad(a, b, c));
  const SharpCorners sharp(T.V.topRows(T.num_boundary), sharp_corner_deg);
  out.at_sharp_corner = sharp.exempt(T.F(f, 0), T.F(f, 1), T.F(f, 2), a, b, c);
  return out;
}

TriangulationQuality triangulation_quality(const PanelTriangulation& T, double sharp_corner_deg) {
  TriangulationQuality q;
  const SharpCorners corners(T.V.topRows(T.num_boundary), sharp_corner_deg);
  q.num_triangles = static_cast<int>(T.F.rows());
  for (Eigen::Index f = 0; f < T.F.rows(); ++f) {
    const Vec2 a = row(T.V, T.F(f, 0)), b = row(T.V, T.F(f, 1)), c = row(T.V, T.F(f, 2));
    const double angles[3] = {deg(corner_angle(c, a, b)), deg(corner_angle(a, b, c)),
                              deg(corner_angle(b, c, a))};
    const double mn = std::min({angles[0], angles[1], angles[2]});
    const double mx = std::max({angles[0], angles[1], angles[2]});
    const bool sharp = corners.exempt(T.F(f, 0), T.F(f, 1), T.F(f, 2), a, b, c);
    q.min_angle_all_deg = std::min(q.min_angle_all_deg, mn);
    q.max_angle_deg = std::max(q.max_angle_deg, mx);
    if (sharp) {
      ++q.num_at_sharp_corner;
    } else {
      q.min_angle_deg = std::min(q.min_angle_deg, mn);
      if (mn < sharp_corner_deg) ++q.num_below;
    }
    q.area += 0.5 * std::abs((b - a).x() * (c - a).y() - (b - a).y() * (c - a).x());
  }
  std::vector<std::pair<int, int>> edges;
  edges.reserve(static_cast<std::size_t>(3 * T.F.rows()));
  for (Eigen::Index f = 0; f < T.F.rows(); ++f)
    for (int k = 0; k < 3; ++k) {
      const int u = T.F(f, k), w = T.F(f, (k + 1) % 3);
      edges.emplace_back(std::min(u, w), std::max(u, w));
    }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  if (!edges.empty()) {
    q.min_edge = std::numeric_limits<double>::infinity();
    double total = 0.0;
    for (const auto& [u, w] : edges) {
      const double l = (row(T.V, u) - row(T.V, w)).norm();
      q.min_edge = std::min(q.min_edge, l);
      q.max_edge = std::max(q.max_edge, l);
      total += l;
    }
    q.mean_edge = total / static_cast<double>(edges.size());
  }
  return q;
}

int count_triangles_outside(const PanelTriangulation& T) {
  const Points2 outline = T.V.topRows(T.num_boundary);
  const int n = T.num_boundary;
  SegmentGrid grid(outline);
  std::vector<int> ids;
  int bad = 0;
  for (Eigen::Index f = 0; f < T.F.rows(); ++f) {
    const Vec2 a = row(T.V, T.F(f, 0)), b = row(T.V, T.F(f, 1)), c = row(T.V, T.F(f, 2));
    bool ok = inside_with_grid(outline, grid, (a + b + c) / 3.0, ids);
    for (int k = 0; k < 3 && ok; ++k) {
      const int u = T.F(f, k), w = T.F(f, (k + 1) % 3);
      if (u < n && w < n && ((u + 1) % n == w || (w + 1) % n == u)) continue;  // an outline segment
      const Vec2 p = row(T.V, u), q = row(T.V, w);
      grid.for_each_near(p.cwiseMin(q), p.cwiseMax(q), [&](int s) {
        const int s1 = (s + 1) % n;
        const Vec2 r0 = row(outline, s), r1 = row(outline, s1);
        const double o1 = orient2d(p, q, r0), o2 = orient2d(p, q, r1);
        const double o3 = orient2d(r0, r1, p), o4 = orient2d(r0, r1, q);
        if (o1 * o2 < 0 && o3 * o4 < 0) ok = false;  // proper crossing
        // An outline point strictly inside the edge (not one of its ends).
        if (s != u && s != w && o1 == 0 && (r0 - p).dot(r0 - q) < 0) ok = false;
      });
    }
    if (!ok) ++bad;
  }
  return bad;
}

}  // namespace tryon::garments
