#pragma once
// Body landmarks from the mesh's shape alone (no skeleton, no segmentation): the body is cut
// by horizontal planes every centimetre; each cut falls into closed loops (one per limb or
// trunk crossing the plane), found as connected components of the crossing segments. The
// armpits are the highest cut where both arms are loops of their own beside the torso; the
// arms' axes are lines fitted through their loops' centres below (arms held out, as in a
// T-pose, are cut by vertical planes beside the chest instead); the neck base is where the
// trunk's width falls below 40 % of the shoulders'; the crotch is the highest cut where the
// trunk splits into two legs. Works for A- and T-pose bodies standing upright in the
// design's frame (metres, +y up, facing +z, feet at y = 0).
#include <string>
#include <vector>

#include "core/trimesh.hpp"

namespace tryon::avatars {

struct ArmLandmarks {
  bool found = false;
  Vec3 shoulder = Vec3::Zero();   ///< top of the arm at the shoulder (on its surface)
  Vec3 axis_point = Vec3::Zero(); ///< a point on the arm's axis at the armpits' height
  Vec3 direction = Vec3::Zero();  ///< unit, from the shoulder towards the hand
  double radius_m = 0;            ///< mean radius of the upper arm's cuts
};

struct Landmarks {
  double height_m = 0;
  double armpit_y = 0;        ///< highest cut with both arms separate from the torso
  double shoulder_y = 0;      ///< top of the shoulders beside the neck
  double neck_y = 0;          ///< neck base
  double neck_half_width = 0; ///< half the trunk's width (x) at the neck base
  double waist_y = 0;         ///< narrowest trunk between armpits and hips
  double hip_y = 0;           ///< widest trunk between waist and crotch
  double crotch_y = 0;        ///< highest cut where the legs separate
  Vec3 chest_centre = Vec3::Zero();
  double chest_half_width = 0;   ///< torso only, at the chest
  double hip_half_width = 0;     ///< trunk at the hips
  ArmLandmarks left, right;      ///< left = +x (the body faces +z)
  /// Legs: axis through the thighs' cuts below the crotch; `shoulder` is unused (= axis_point).
  ArmLandmarks left_leg, right_leg;
  std::vector<std::string> warnings;
};

/// One closed loop of a horizontal cut: its centre (mean of its points), bounds and length.
struct CutLoop {
  Vec3 centre = Vec3::Zero();
  Vec3 min = Vec3::Zero(), max = Vec3::Zero();
  double perimeter = 0;
};

/// The loops of the body's cut by the plane y = `y`, largest perimeter first. Loops shorter
/// than 3 cm (mesh noise) are dropped.
std::vector<CutLoop> cut_loops(const TriMesh& body, double y);
/// The same for the plane {p : p[axis] = value} (axis 0 = x, 1 = y, 2 = z).
std::vector<CutLoop> cut_loops(const TriMesh& body, int axis, double value);

/// Per body vertex: 1 when it lies on an arm or hand below the armpit, i.e. beyond the arm's
/// axis point along its direction and within 2.5 arm radii of its axis (hands are wider than
/// the upper arm). All zeros when an arm was not found.
std::vector<char> arm_vertices(const TriMesh& body, const Landmarks& landmarks);

/// Finds the landmarks; what could not be found is named in `warnings` and estimated from
/// human proportions of the height instead.
Landmarks find_landmarks(const TriMesh& body);

}  // namespace tryon::avatars
