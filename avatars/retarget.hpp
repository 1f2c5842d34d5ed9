#pragma once
// A BVH clip retargeted onto a rig by matching bone directions. The clip's rest pose is a
// T-pose and MakeHuman's an A-pose, so local rotations are not copied: a mapped rig bone turns
// as its BVH joint turns from the clip's rest, after a fixed rotation (`align`) that brings
// its rest direction onto the BVH bone's rest direction:
//   R_b(t) = G_J(t) · G_J(rest)⁻¹ · align_b
// (G_J: the joint's world rotation). Unmapped bones follow their parent rigidly; the root
// moves as the clip's root moves from frame 0, scaled by the ratio of the hip heights.
// Both are taken to be Y up, facing +Z (the BVH convention, and MakeHuman's).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "avatars/bvh.hpp"
#include "avatars/rig.hpp"

namespace tryon::avatars {

/// {BVH joint: rig bone}.
using JointMap = std::map<std::string, std::string>;

/// The built-in map from the CMU skeleton (cgspeed / MotionBuilder names: Hips, LeftUpLeg,
/// LeftArm, ...) to MakeHuman's default skeleton (root, upperleg01.L, upperarm01.L, ...).
JointMap cmu_joint_map();

/// A JSON object {"bvh joint": "rig bone", ...}. Throws InputError for anything else.
JointMap read_joint_map(const std::filesystem::path& path);

/// How each rig bone follows a clip.
struct Retargeting {
  std::vector<int> joint;          ///< per rig bone: the BVH joint it follows, or -1 (its parent, rigidly)
  std::vector<Mat3> align;         ///< per rig bone: its rest direction onto the BVH bone's rest direction
  std::vector<Mat3> rest_inverse;  ///< per rig bone: G_J(rest)⁻¹ of its joint (identity when unmapped)
  double scale = 1;                ///< rig units per clip unit (rig hip height / clip hip height)
  int clip_root = 0;               ///< the clip joint whose displacement moves the body
};

/// Plans the retargeting of `clip` onto `rig` (whose body at rest is `body_V`, for its height).
/// Entries naming a joint the clip lacks are skipped. Throws InputError for a map that does not
/// name the clip's root joint, names a bone the rig lacks, or maps two joints to one bone.
Retargeting plan_retarget(const BvhClip& clip, const Rig& rig, const JointMap& map, ConstRef<Points3> body_V);

/// The rig posed by the clip's pose `g`, its root moved by `root_displacement` (rig units).
RigPose retarget_pose(const Retargeting& plan, const Rig& rig, const BvhGlobalPose& g,
                      const Vec3& root_displacement);

/// At most this many frames are played from a clip.
inline constexpr int max_playback_frames = 100000;

/// The rig's poses over the clip at `fps`: floor(duration·fps) + 1 frames, the clip sampled at
/// k/fps (bvh_pose_at). Throws InputError for fps outside (0, 1000] or more than
/// max_playback_frames frames.
std::vector<RigPose> retarget_clip(const BvhClip& clip, const Rig& rig, const Retargeting& plan, double fps);

}  // namespace tryon::avatars
