#include "avatars/landmarks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <numeric>
#include <unordered_map>

namespace tryon::avatars {
namespace {

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(int n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  }
  void unite(int a, int b) { parent[find(a)] = find(b); }
};

// The trunk's loop: the longest one that spans x = `centre_x`.
const CutLoop* trunk(const std::vector<CutLoop>& loops, double centre_x) {
  for (const CutLoop& l : loops)
    if (l.min.x() < centre_x && l.max.x() > centre_x) return &l;
  return nullptr;
}

// The longest loop wholly on one side (+1: x > trunk's max, -1: x < trunk's min).
const CutLoop* beside(const std::vector<CutLoop>& loops, const CutLoop& t, int side) {
  for (const CutLoop& l : loops) {
    if (&l == &t) continue;
    if (side > 0 ? l.min.x() > t.max.x() - 1e-3 : l.max.x() < t.min.x() + 1e-3) return &l;
  }
  return nullptr;
}

// The point at height y of the line along `direction` through the points' mean.
Vec3 axis_point_at(const std::vector<Vec3>& pts, const Vec3& direction, double y) {
  Vec3 mean = Vec3::Zero();
  for (const Vec3& p : pts) mean += p;
  mean /= static_cast<double>(pts.size());
  return mean + direction * ((mean.y() - y) / -direction.y());
}

// Least-squares line through points (as x(y), z(y)); direction pointing down (−y).
Vec3 fit_down_direction(const std::vector<Vec3>& pts) {
  double my = 0, mx = 0, mz = 0;
  for (const Vec3& p : pts) my += p.y(), mx += p.x(), mz += p.z();
  const double n = static_cast<double>(pts.size());
  my /= n, mx /= n, mz /= n;
  double syy = 0, sxy = 0, szy = 0;
  for (const Vec3& p : pts) {
    syy += (p.y() - my) * (p.y() - my);
    sxy += (p.x() - mx) * (p.y() - my);
    szy += (p.z() - mz) * (p.y() - my);
  }
  if (syy <= 0) return {0, -1, 0};
  return -Vec3(sxy / syy, 1, szy / syy).normalized();
}


// Arms held out (a T-pose) are not apart from the torso in horizontal cuts: cut across them
// by planes x = const beside the chest, and fit x ↦ (y, z) through the loops' centres.
bool fit_held_out_arm(const TriMesh& body, int side, double ymin, double H, ArmLandmarks& arm) {
  const auto chest = cut_loops(body, ymin + 0.70 * H);
  const CutLoop* t = trunk(chest, 0.0);
  const double edge = t ? (side > 0 ? t->max.x() : -t->min.x()) : 0.1 * H;
  std::vector<Vec3> centres;
  double radius_sum = 0;
  for (double d = edge + 0.08; d < edge + 0.35; d += 0.01) {
    const auto loops = cut_loops(body, 0, side * d);
    if (loops.empty() || loops.front().centre.y() < ymin + 0.6 * H) break;
    centres.push_back(loops.front().centre);
    radius_sum += loops.front().perimeter / (2 * std::numbers::pi);
  }
  if (centres.size() < 5) return false;
  double mx = 0, my = 0, mz = 0, sxx = 0, sxy = 0, sxz = 0;
  for (const Vec3& c : centres) mx += c.x(), my += c.y(), mz += c.z();
  const double n = static_cast<double>(centres.size());
  mx /= n, my /= n, mz /= n;
  for (const Vec3& c : centres)
    sxx += (c.x() - mx) * (c.x() - mx), sxy += (c.x() - mx) * (c.y() - my), sxz += (c.x() - mx) * (c.z() - mz);
  arm.found = true;
  arm.direction = Vec3(side, side * sxy / sxx, side * sxz / sxx).normalized();
  arm.radius_m = radius_sum / n;
  const double x0 = side * (edge + 0.02);  // the axis where it meets the chest's side
  arm.axis_point = Vec3(mx, my, mz) + arm.direction * ((x0 - mx) / arm.direction.x());
  return true;
}

}  // namespace

std::vector<CutLoop> cut_loops(const TriMesh& body, double y) { return cut_loops(body, 1, y); }

std::vector<CutLoop> cut_loops(const TriMesh& body, int axis, double y) {
  std::unordered_map<long long, int> edge_id;
  std::vector<Vec3> points;
  std::vector<std::pair<int, int>> segments;
  const int nv = body.num_vertices();
  auto crossing = [&](int a, int b) {
    if (a > b) std::swap(a, b);
    const long long key = static_cast<long long>(a) * nv + b;
    auto [it, added] = edge_id.emplace(key, static_cast<int>(points.size()));
    if (added) {
      const Vec3 pa = body.V.row(a), pb = body.V.row(b);
      const double t = (y - pa[axis]) / (pb[axis] - pa[axis]);
      points.push_back(pa + t * (pb - pa));
    }
    return it->second;
  };
  for (int f = 0; f < body.num_triangles(); ++f) {
    int v[3] = {body.F(f, 0), body.F(f, 1), body.F(f, 2)};
    bool above[3];
    for (int k = 0; k < 3; ++k) above[k] = body.V(v[k], axis) >= y;
    if (above[0] == above[1] && above[1] == above[2]) continue;
    int ends[2], m = 0;
    for (int k = 0; k < 3; ++k)
      if (above[k] != above[(k + 1) % 3] && m < 2) ends[m++] = crossing(v[k], v[(k + 1) % 3]);
    if (m == 2) segments.emplace_back(ends[0], ends[1]);
  }
  UnionFind uf(static_cast<int>(points.size()));
  for (const auto& [a, b] : segments) uf.unite(a, b);
  std::unordered_map<int, int> loop_of;
  std::vector<CutLoop> loops;
  std::vector<int> counts;
  auto loop_index = [&](int p) {
    auto [it, added] = loop_of.emplace(uf.find(p), static_cast<int>(loops.size()));
    if (added) {
      CutLoop l;
      l.min = Vec3::Constant(1e300);
      l.max = Vec3::Constant(-1e300);
      loops.push_back(l);
      counts.push_back(0);
    }
    return it->second;
  };
  for (int p = 0; p < static_cast<int>(points.size()); ++p) {
    CutLoop& l = loops[loop_index(p)];
    l.centre += points[p];
    l.min = l.min.cwiseMin(points[p]);
    l.max = l.max.cwiseMax(points[p]);
    ++counts[loop_index(p)];
  }
  for (const auto& [a, b] : segments) loops[loop_index(a)].perimeter += (points[a] - points[b]).norm();
  std::vector<CutLoop> out;
  for (std::size_t i = 0; i < loops.size(); ++i) {
    loops[i].centre /= counts[i];
    if (loops[i].perimeter >= 0.03) out.push_back(loops[i]);
  }
  std::sort(out.begin(), out.end(), [](const CutLoop& a, const CutLoop& b) { return a.perimeter > b.perimeter; });
  return out;
}

Landmarks find_landmarks(const TriMesh& body) {
  Landmarks L;
  double ymin = 1e300, ymax = -1e300;
  for (int v = 0; v < body.num_vertices(); ++v) ymin = std::min(ymin, body.V(v, 1)), ymax = std::max(ymax, body.V(v, 1));
  const double H = ymax - ymin;
  L.height_m = H;
  // Proportions of an adult (fractions of the height) where the shape does not tell.
  L.armpit_y = ymin + 0.72 * H;
  L.shoulder_y = ymin + 0.82 * H;
  L.neck_y = ymin + 0.84 * H;
  L.waist_y = ymin + 0.61 * H;
  L.hip_y = ymin + 0.52 * H;
  L.crotch_y = ymin + 0.47 * H;
  const double step = 0.01;

  // Armpits: scanning down from 85 % of the height.
  bool armpits = false;
  for (double y = ymin + 0.85 * H; y > ymin + 0.55 * H; y -= step) {
    const auto loops = cut_loops(body, y);
    const CutLoop* t = trunk(loops, 0.0);
    if (t && beside(loops, *t, +1) && beside(loops, *t, -1)) {
      L.armpit_y = y;
      armpits = true;
      break;
    }
  }
  if (!armpits) L.warnings.push_back("no armpits found (arms not apart from the torso, e.g. a T-pose): proportions used");

  // Arms: centres of their loops over 25 cm below the armpits.
  for (int side : {+1, -1}) {
    ArmLandmarks& arm = side > 0 ? L.left : L.right;
    std::vector<Vec3> centres;
    double radius_sum = 0;
    if (armpits)
      for (double y = L.armpit_y - step; y > L.armpit_y - 0.25; y -= step) {
        const auto loops = cut_loops(body, y);
        const CutLoop* t = trunk(loops, 0.0);
        const CutLoop* a = t ? beside(loops, *t, side) : nullptr;
        if (!a) break;
        centres.push_back(a->centre);
        radius_sum += a->perimeter / (2 * std::numbers::pi);
      }
    if (centres.size() >= 5) {
      arm.found = true;
      arm.direction = fit_down_direction(centres);
      arm.axis_point = axis_point_at(centres, arm.direction, L.armpit_y);
      // A horizontal cut of a tilted cylinder is an ellipse with axes r and r / cos(tilt).
      const double c = std::max(0.2, -arm.direction.y());
      arm.radius_m = radius_sum / centres.size() * 2 / (1 + 1 / c);
    } else if (fit_held_out_arm(body, side, ymin, H, arm)) {
      if (!armpits) L.armpit_y = arm.axis_point.y() - arm.radius_m;
    } else {
      const double a = 40 * std::numbers::pi / 180;
      arm.direction = Vec3(side * std::sin(a), -std::cos(a), 0);
      arm.axis_point = Vec3(side * 0.11 * H, L.armpit_y, 0);
      arm.radius_m = 0.045 * H / 1.7;
      L.warnings.push_back(std::string(side > 0 ? "left" : "right") + " arm not found: proportions used");
    }
    // Top of the shoulder: the highest body point above the axis at the armpits.
    double top = L.armpit_y;
    Vec3 best = arm.axis_point;
    for (int v = 0; v < body.num_vertices(); ++v) {
      const Vec3 p = body.V.row(v);
      if (std::abs(p.x() - arm.axis_point.x()) < 0.02 && p.y() > top && p.y() < L.armpit_y + 0.25) top = p.y(), best = p;
    }
    arm.shoulder = Vec3(arm.axis_point.x(), top, arm.axis_point.z());
    (void)best;
  }
  L.shoulder_y = 0.5 * (L.left.shoulder.y() + L.right.shoulder.y());

  // Neck base: the trunk narrows below 40 % of the shoulders' width.
  {
    // The shoulders' width: between the arms' outer sides where they meet the trunk.
    const double w_ref = L.left.axis_point.x() - L.right.axis_point.x() + L.left.radius_m + L.right.radius_m;
    bool found = false;
    for (double y = L.armpit_y + 0.04; y < ymax - 0.1 && w_ref > 0; y += step) {
      const auto loops = cut_loops(body, y);
      const CutLoop* t = trunk(loops, 0.0);
      if (t && t->max.x() - t->min.x() < 0.4 * w_ref) {
        L.neck_y = y;
        L.neck_half_width = 0.5 * (t->max.x() - t->min.x());
        found = true;
        break;
      }
    }
    if (!found) {
      L.neck_half_width = 0.055 * H;
      L.warnings.push_back("no neck base found: proportions used");
    }
  }

  // Chest: the trunk 4 cm below the armpits.
  if (const auto loops = cut_loops(body, L.armpit_y - 0.04); const CutLoop* t = trunk(loops, 0.0)) {
    L.chest_centre = t->centre;
    L.chest_half_width = 0.5 * (t->max.x() - t->min.x());
  } else {
    L.chest_centre = Vec3(0, L.armpit_y - 0.04, 0);
    L.chest_half_width = 0.1 * H;
  }

  // Crotch: the highest cut with two leg loops near the middle.
  bool crotch = false;
  for (double y = ymin + 0.6 * H; y > ymin + 0.3 * H; y -= step) {
    int left = 0, right = 0;
    for (const CutLoop& l : cut_loops(body, y)) {
      if (std::abs(l.centre.x()) > 0.2 * H / 1.7 || (l.min.x() < 0 && l.max.x() > 0)) continue;
      (l.centre.x() > 0 ? left : right)++;
    }
    if (left >= 1 && right >= 1) {
      L.crotch_y = y;
      crotch = true;
      break;
    }
  }
  if (!crotch) L.warnings.push_back("no crotch found: proportions used");

  // Waist: narrowest trunk between 15 cm above the crotch and 5 cm below the armpits; hips:
  // widest trunk between the crotch and the waist.
  double narrow = 1e300, wide = 0;
  for (double y = L.crotch_y + 0.15; y < L.armpit_y - 0.05; y += step)
    if (const auto loops = cut_loops(body, y); const CutLoop* t = trunk(loops, 0.0))
      if (t->max.x() - t->min.x() < narrow) narrow = t->max.x() - t->min.x(), L.waist_y = y;
  for (double y = L.crotch_y + step; y < L.waist_y; y += step)
    if (const auto loops = cut_loops(body, y); const CutLoop* t = trunk(loops, 0.0))
      if (t->max.x() - t->min.x() > wide) wide = t->max.x() - t->min.x(), L.hip_y = y;
  L.hip_half_width = wide > 0 ? wide / 2 : 0.11 * H;

  // Legs: the thighs' loops (the longest loop on each side near the middle) over 35 cm below
  // the crotch.
  for (int side : {+1, -1}) {
    ArmLandmarks& leg = side > 0 ? L.left_leg : L.right_leg;
    std::vector<Vec3> centres;
    double radius_sum = 0;
    if (crotch)
      for (double y = L.crotch_y - 0.03; y > L.crotch_y - 0.35; y -= step) {
        const CutLoop* best = nullptr;
        const auto loops = cut_loops(body, y);
        for (const CutLoop& l : loops)
          if (l.centre.x() * side > 0 && std::abs(l.centre.x()) < 0.2 * H / 1.7 && (!best || l.perimeter > best->perimeter))
            best = &l;
        if (!best) break;
        centres.push_back(best->centre);
        radius_sum += best->perimeter / (2 * std::numbers::pi);
      }
    if (centres.size() >= 5) {
      leg.found = true;
      leg.direction = fit_down_direction(centres);
      leg.axis_point = axis_point_at(centres, leg.direction, L.crotch_y);
      leg.radius_m = radius_sum / centres.size();
    } else {
      leg.direction = Vec3(0, -1, 0);
      leg.axis_point = Vec3(side * 0.055 * H, L.crotch_y, 0);
      leg.radius_m = 0.045 * H / 1.7;
      L.warnings.push_back(std::string(side > 0 ? "left" : "right") + " leg not found: proportions used");
    }
    leg.shoulder = leg.axis_point;
  }
  return L;
}

}  // namespace tryon::avatars

namespace tryon::avatars {

std::vector<char> arm_vertices(const TriMesh& body, const Landmarks& landmarks) {
  std::vector<char> arm(static_cast<std::size_t>(body.V.rows()), 0);
  if (!landmarks.left.found || !landmarks.right.found) return arm;
  for (Eigen::Index i = 0; i < body.V.rows(); ++i) {
    const Vec3 p = body.V.row(i).transpose();
    for (const ArmLandmarks* a : {&landmarks.left, &landmarks.right}) {
      const Vec3 r = p - a->axis_point;
      const double t = r.dot(a->direction);
      if (t > 0 && (r - t * a->direction).norm() < 2.5 * a->radius_m) arm[static_cast<std::size_t>(i)] = 1;
    }
  }
  return arm;
}

}  // namespace tryon::avatars
