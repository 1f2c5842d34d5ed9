#include "garments/geometry2d.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tryon::garments {

double signed_area(const std::vector<Vec2>& loop) {
  double a = 0;
  const std::size_t n = loop.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2& p = loop[i];
    const Vec2& q = loop[(i + 1) % n];
    a += p.x() * q.y() - q.x() * p.y();
  }
  return 0.5 * a;
}

namespace {
double orient(const Vec2& a, const Vec2& b, const Vec2& c) {
  return (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
}
bool on_segment(const Vec2& a, const Vec2& b, const Vec2& p) {
  return std::min(a.x(), b.x()) <= p.x() && p.x() <= std::max(a.x(), b.x()) &&
         std::min(a.y(), b.y()) <= p.y() && p.y() <= std::max(a.y(), b.y());
}
}  // namespace

bool segments_intersect(const Vec2& a, const Vec2& b, const Vec2& c, const Vec2& d) {
  const double d1 = orient(c, d, a), d2 = orient(c, d, b);
  const double d3 = orient(a, b, c), d4 = orient(a, b, d);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
    return true;
  if (d1 == 0 && on_segment(c, d, a)) return true;
  if (d2 == 0 && on_segment(c, d, b)) return true;
  if (d3 == 0 && on_segment(a, b, c)) return true;
  if (d4 == 0 && on_segment(a, b, d)) return true;
  return false;
}

std::optional<std::pair<int, int>> first_self_intersection(const std::vector<Vec2>& loop) {
  const int n = static_cast<int>(loop.size());
  if (n < 3) return std::nullopt;
  // Sweep: segments sorted by their smallest x; test each against the active ones that
  // overlap it in x. Adjacent segments share an end point and are skipped.
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  auto lo = [&](int i) { return std::min(loop[i].x(), loop[(i + 1) % n].x()); };
  auto hi = [&](int i) { return std::max(loop[i].x(), loop[(i + 1) % n].x()); };
  std::sort(order.begin(), order.end(), [&](int a, int b) { return lo(a) < lo(b) || (lo(a) == lo(b) && a < b); });
  std::vector<int> active;
  std::optional<std::pair<int, int>> best;
  for (int i : order) {
    const double x = lo(i);
    active.erase(std::remove_if(active.begin(), active.end(), [&](int j) { return hi(j) < x; }),
                 active.end());
    for (int j : active) {
      const int d = std::abs(i - j);
      if (d == 1 || d == n - 1) continue;
      if (segments_intersect(loop[i], loop[(i + 1) % n], loop[j], loop[(j + 1) % n])) {
        const std::pair<int, int> p(std::min(i, j), std::max(i, j));
        if (!best || p < *best) best = p;
      }
    }
    active.push_back(i);
  }
  // Adjacent segments that fold back onto each other (a spike) also make a non-simple outline.
  for (int i = 0; i < n && !best; ++i) {
    const Vec2& a = loop[(i + n - 1) % n];
    const Vec2& b = loop[i];
    const Vec2& c = loop[(i + 1) % n];
    if (orient(a, b, c) == 0 && (a - b).dot(c - b) > 0) best = std::make_pair((i + n - 1) % n, i);
  }
  return best;
}

}  // namespace tryon::garments
