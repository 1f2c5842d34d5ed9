#include "avatars/orientation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "avatars/landmarks.hpp"

namespace tryon::avatars {
namespace {

// A body is clearly longest along its height when no other extent comes within this factor
// (the A-pose GarmentCode bodies: 1.32; the shared CesiumMan: 1.32; a T-pose: 0.97).
constexpr double kClearlyLongest = 1.15;
// Shoulders span the wider horizontal axis by at least this factor (A-pose bodies: 4.4,
// arms down about 1.5).
constexpr double kClearlyWider = 1.2;

// Loops of the cut across `axis` at fraction `f` of the way from the low end to the high
// end, leaving out loops under 5 % of the longest (mesh noise, a stray finger tip).
int loops_at(const TriMesh& body, int axis, double lo, double hi, double f) {
  const auto loops = cut_loops(body, axis, lo + f * (hi - lo));
  if (loops.empty()) return 0;
  int n = 0;
  for (const CutLoop& l : loops) n += l.perimeter >= 0.05 * loops.front().perimeter;
  return n;
}

// +1 when the low end of `axis` is the feet (two loops there, one at the other end), −1 when
// the high end is, 0 when the cuts do not tell.
int feet_end(const TriMesh& body, int axis, double lo, double hi) {
  const int low = loops_at(body, axis, lo, hi, 0.03), high = loops_at(body, axis, lo, hi, 0.97);
  if (low == 2 && high == 1) return +1;
  if (high == 2 && low == 1) return -1;
  return 0;
}

const char* axis_letter(int axis) { return axis == 0 ? "x" : axis == 1 ? "y" : "z"; }

}  // namespace

std::string SignedAxis::name() const { return std::string(sign > 0 ? "+" : "-") + axis_letter(axis); }

Vec3 SignedAxis::vector() const {
  Vec3 d = Vec3::Zero();
  d[axis] = sign;
  return d;
}

SignedAxis nearest_axis(const Vec3& d) {
  int axis = 0;
  d.cwiseAbs().maxCoeff(&axis);
  return {axis, d[axis] >= 0 ? 1 : -1};
}

BodyFrameGuess guess_up(const TriMesh& body, std::optional<int> given_axis) {
  BodyFrameGuess g;
  const Bounds3 b = bounds(body.V);
  const Vec3 e = b.extent();
  char buf[200];
  int axis = given_axis.value_or(1);
  if (given_axis) {
    g.up_how = std::string("given (") + axis_letter(axis) + ")";
  } else {
    std::array<int, 3> order{0, 1, 2};
    std::sort(order.begin(), order.end(), [&](int a, int c) { return e[a] > e[c]; });
    if (e[order[0]] > kClearlyLongest * e[order[1]]) {
      axis = order[0];
      std::snprintf(buf, sizeof buf, "longest along %s (%.2f times its next extent)", axis_letter(axis),
                    e[order[0]] / e[order[1]]);
      g.up_how = buf;
      g.up_detected = true;
    } else {
      // About as wide as tall: the axis whose ends are legs and a head.
      int found = -1, candidates = 0;
      for (int k = 0; k < 2; ++k)
        if (feet_end(body, order[k], b.min[order[k]], b.max[order[k]]) != 0) found = order[k], ++candidates;
      if (candidates == 1) {
        axis = found;
        g.up_how = std::string("two legs at one end of ") + axis_letter(axis) + ", a head at the other";
        g.up_detected = true;
      } else {
        g.up_how = "as wide as tall and no legs told apart: +y assumed";
      }
    }
  }
  g.up = {axis, 1};
  if (g.up_detected || given_axis) {
    const int feet = feet_end(body, axis, b.min[axis], b.max[axis]);
    if (feet != 0) {
      g.up.sign = feet;
      g.up_how += feet > 0 ? "; feet at its low end" : "; feet at its high end";
    } else {
      g.up_how += "; feet not told from head: pointing +";
    }
  }
  return g;
}

void guess_facing(const TriMesh& body, BodyFrameGuess& g) {
  const Bounds3 b = bounds(body.V);
  const Vec3 e = b.extent();
  const double H = e.y();
  if (!(H > 0)) return;
  const int side = e.x() >= e.z() ? 0 : 2;  // the shoulders' axis
  const int front = 2 - side;
  g.facing = {front, 1};
  char buf[200];
  if (std::max(e.x(), e.z()) < kClearlyWider * std::min(e.x(), e.z())) {
    std::snprintf(buf, sizeof buf, "as deep as wide (%.2f by %.2f across): as in the file", e.x(), e.z());
    g.facing = {2, 1};
    g.facing_how = buf;
    return;
  }
  // Soles (lowest 3 %) against ankles (6-10 %): the toes reach ahead of the ankles.
  double sole = 0, ankle = 0;
  int ns = 0, na = 0;
  for (int v = 0; v < body.num_vertices(); ++v) {
    const double h = (body.V(v, 1) - b.min.y()) / H;
    if (h < 0.03) sole += body.V(v, front), ++ns;
    else if (h > 0.06 && h < 0.10) ankle += body.V(v, front), ++na;
  }
  const double ahead = ns > 0 && na > 0 ? sole / ns - ankle / na : 0;
  if (std::abs(ahead) < 0.005 * H) {
    std::snprintf(buf, sizeof buf, "feet not found or pointing neither way: facing assumed away from the back");
    g.facing_how = buf;
    return;
  }
  g.facing.sign = ahead > 0 ? 1 : -1;
  g.facing_detected = true;
  std::snprintf(buf, sizeof buf, "across the shoulders, towards the toes (%.0f %% of the height ahead of the ankles)",
                100 * std::abs(ahead) / H);
  g.facing_how = buf;
}

Mat3 rotation_up_to_y(const SignedAxis& up) {
  Mat3 R = Mat3::Zero();
  // Rows: new x, y, z in terms of the file's axes. New y = up; the others follow right-handed.
  const int a = up.axis, s = up.sign;
  if (a == 1) {
    R << 1, 0, 0, 0, s, 0, 0, 0, s;  // -y up: a half turn about x
  } else if (a == 2) {
    R << 1, 0, 0, 0, 0, s, 0, -s, 0;  // (x, y, z) -> (x, s z, -s y)
  } else {
    R << 0, -s, 0, s, 0, 0, 0, 0, 1;  // (x, y, z) -> (-s y, s x, z)
  }
  return R;
}

Mat3 rotation_facing_to_z(const SignedAxis& facing) {
  Mat3 R = Mat3::Identity();
  if (facing.axis == 2 && facing.sign < 0) R << -1, 0, 0, 0, 1, 0, 0, 0, -1;
  if (facing.axis == 0) R << 0, 0, -facing.sign, 0, 1, 0, facing.sign, 0, 0;  // ±x -> +z
  return R;
}

}  // namespace tryon::avatars
