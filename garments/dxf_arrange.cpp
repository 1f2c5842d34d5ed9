#include "garments/dxf_arrange.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace tryon::garments::dxf {
namespace {

constexpr double kDeg = 180 / std::numbers::pi;

bool inside(const std::vector<Vec2>& poly, const Vec2& q) {
  bool in = false;
  for (std::size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    const Vec2 &a = poly[i], &b = poly[j];
    if ((a.y() > q.y()) != (b.y() > q.y()) && q.x() < (b.x() - a.x()) * (q.y() - a.y()) / (b.y() - a.y()) + a.x())
      in = !in;
  }
  return in;
}

// Moves the panel along z so that its plane is `clearance` in front of (facing > 0) or
// behind every body point inside its outline seen along z. With no body point there, the
// panel goes `fallback_z` (+/- clearance).
void clear_body(Panel& panel, const std::vector<Vec2>& outline, const TriMesh& body, int facing, double clearance,
                double fallback_z) {
  panel.translation.z() = 0;
  std::vector<Vec2> xy;
  for (const Vec2& p : outline) xy.push_back(place_point(panel, p).head<2>());
  double extreme = facing > 0 ? -1e300 : 1e300;
  for (int v = 0; v < body.num_vertices(); ++v) {
    const Vec3 p = body.V.row(v);
    if (!inside(xy, p.head<2>())) continue;
    extreme = facing > 0 ? std::max(extreme, p.z()) : std::min(extreme, p.z());
  }
  if (std::abs(extreme) > 1e299) extreme = fallback_z;
  panel.translation.z() = extreme + facing * clearance;
}

const std::vector<Vec2>& outline_of(const CutPattern& cut, const std::string& name) {
  static const std::vector<Vec2> none;
  const int i = cut.find(name);
  return i < 0 ? none : cut.pieces[i].outline;
}

Vec2 key_point(const CutPiece& c, const std::string& label, bool second) {
  const auto& r = c.ranges.at(label);
  return c.outline[c.key_index(second ? r.second : r.first)];
}

}  // namespace

avatars::Landmarks proportional_landmarks(double H) {
  avatars::Landmarks L;
  L.height_m = H;
  L.armpit_y = 0.745 * H;
  L.shoulder_y = 0.81 * H;
  L.neck_y = 0.845 * H;
  L.waist_y = 0.645 * H;
  L.hip_y = 0.5 * H;
  L.crotch_y = 0.45 * H;
  L.chest_centre = Vec3(0, L.armpit_y - 0.04, 0);
  L.chest_half_width = 0.1 * H;
  L.hip_half_width = 0.105 * H;
  for (int side : {+1, -1}) {
    avatars::ArmLandmarks& leg = side > 0 ? L.left_leg : L.right_leg;
    leg.direction = Vec3(0, -1, 0);
    leg.axis_point = leg.shoulder = Vec3(side * 0.055 * H, L.crotch_y, 0);
    leg.radius_m = 0.045 * H;
    avatars::ArmLandmarks& a = side > 0 ? L.left : L.right;
    const double angle = 48 / kDeg;
    a.direction = Vec3(side * std::sin(angle), -std::cos(angle), 0);
    a.axis_point = Vec3(side * 0.135 * H, L.armpit_y, 0);
    a.shoulder = Vec3(a.axis_point.x(), 0.81 * H, 0);
    a.radius_m = 0.024 * H;
  }
  return L;
}

void arrange(Pattern& pattern, const CutPattern& cut, const avatars::Landmarks& L, const TriMesh& body,
             std::vector<std::string>& notes, const ArrangeOptions& options) {
  const double clear = options.clearance_m;
  const double depth = 0.13;  // half depth of the torso when there is no body mesh
  // Pieces without a rule go in a row in front of the body, centred on it.
  double row_width = 0;
  for (const Panel& panel : pattern.panels)
    if (const int ci = cut.find(panel.name); ci >= 0 && sleeve_side(cut.pieces[ci]) == 0 &&
                                             cut.pieces[ci].role != Role::front && cut.pieces[ci].role != Role::back) {
      double w = 0;
      for (const Vec2& p : cut.pieces[ci].outline) w = std::max(w, std::abs(p.x()));
      row_width += 2 * w + 0.05;
    }
  double row_x = -0.5 * row_width;
  for (Panel& panel : pattern.panels) {
    const int ci = cut.find(panel.name);
    if (ci < 0) continue;
    const CutPiece& c = cut.pieces[ci];
    const std::vector<Vec2>& outline = outline_of(cut, panel.name);
    double top = -1e300, width = 0;
    for (const Vec2& p : outline) top = std::max(top, p.y()), width = std::max(width, std::abs(p.x()));
    panel.rotation_deg = Vec3::Zero();
    panel.translation = Vec3::Zero();
    if (c.role == Role::front || c.role == Role::back) {
      const int facing = c.role == Role::front ? +1 : -1;
      if (facing < 0) panel.rotation_deg = Vec3(0, 180, 0);
      // A top hangs from its shoulder-neck points at the neck base; a skirt from the waist.
      double anchor_y = top, target_y = L.waist_y + 0.03;
      if (c.ranges.count("shoulder_r")) anchor_y = key_point(c, "shoulder_r", true).y(), target_y = L.neck_y - 0.005;
      panel.translation = Vec3(L.chest_centre.x(), target_y - anchor_y, 0);
      clear_body(panel, outline, body, facing, clear, facing * depth);
    } else if (const int side = sleeve_side(c); side != 0 && (c.role == Role::leg_front || c.role == Role::leg_back)) {
      // Leg halves: the side seam (cut line) up the outside of the hip and thigh, its top at
      // the waist; the right leg's halves 1.5 cm farther out so the two legs' halves, which
      // overlap at the crotch, do not start in one plane.
      const avatars::ArmLandmarks& leg = side > 0 ? L.left_leg : L.right_leg;
      const int facing = c.role == Role::leg_front ? +1 : -1;
      Vec2 t = key_point(c, "side", false), b = key_point(c, "side", true);
      if (t.y() < b.y()) std::swap(t, b);
      Vec2 u = (t - b).normalized();
      if (facing < 0) u.x() = -u.x();
      const Vec2 w = Vec2(-leg.direction.x(), -leg.direction.y()).normalized();
      const double theta = std::atan2(w.y(), w.x()) - std::atan2(u.y(), u.x());
      panel.rotation_deg = Vec3(0, facing < 0 ? 180 : 0, theta * kDeg);
      const Vec2 target(side * (L.hip_half_width + clear), L.waist_y + 0.02);
      panel.translation.head<2>() = target - place_point(panel, t).head<2>();
      clear_body(panel, outline, body, facing, clear + (side < 0 ? 0.015 : 0.0), leg.axis_point.z() + facing * 0.12);
    } else if (const int side = sleeve_side(c); side != 0) {
      const avatars::ArmLandmarks& arm = side > 0 ? L.left : L.right;
      const int facing = c.role == Role::sleeve_front ? +1 : -1;
      // The overarm line runs along the arm's top, its upper end above the armpits' axis point.
      Vec2 t = key_point(c, "overarm", false), b = key_point(c, "overarm", true);
      if (t.y() < b.y()) std::swap(t, b);
      Vec2 u = (t - b).normalized();
      if (facing < 0) u.x() = -u.x();  // the back half is turned round first (x → −x)
      const Vec2 w = Vec2(-arm.direction.x(), -arm.direction.y()).normalized();
      const double theta = std::atan2(w.y(), w.x()) - std::atan2(u.y(), u.x());
      panel.rotation_deg = Vec3(0, facing < 0 ? 180 : 0, theta * kDeg);
      Vec2 up(-w.y(), w.x());  // perpendicular to the arm in the xy plane, pointing up
      if (up.y() < 0) up = -up;
      const Vec2 target = arm.axis_point.head<2>() + up * (arm.radius_m + clear);
      const Vec3 placed_t = place_point(panel, t);
      panel.translation.head<2>() = target - placed_t.head<2>();
      clear_body(panel, outline, body, facing, clear, arm.axis_point.z() + facing * (arm.radius_m + clear));
    } else {
      // No rule: a row in front of the chest, for inspection.
      panel.translation = Vec3(row_x + width, L.armpit_y - top, 0);
      row_x += 2 * width + 0.05;
      clear_body(panel, outline, body, +1, clear + 0.1, depth);
      notes.push_back("panel '" + panel.name + "' (" + to_string(c.role) + "): no arrangement rule; put in a row in front of the body");
    }
  }
}

}  // namespace tryon::garments::dxf
