#pragma once
// BVH motion capture clips (Biovision Hierarchy; Meredith & Maddock 2001, "Motion capture file
// formats explained"): a joint hierarchy with rest offsets and channels, and one row of channel
// values a frame. Read, sampled at any time, posed by forward kinematics, and played on a
// MakeHuman body (avatars/rig.hpp, avatars/retarget.hpp).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "avatars/motion.hpp"
#include "core/types.hpp"

namespace tryon::avatars {

enum class BvhChannel { x_position, y_position, z_position, x_rotation, y_rotation, z_rotation };

struct BvhJoint {
  std::string name;
  int parent = -1;                   ///< index in BvhClip::joints, -1 for the root
  Vec3 offset = Vec3::Zero();        ///< rest position relative to the parent, in the parent's frame
  std::vector<BvhChannel> channels;  ///< in the file's order
  int first_channel = 0;             ///< column of channels[0] in BvhClip::values
  std::vector<int> children;
  std::optional<Vec3> end_site;  ///< offset of the End Site, when the joint has one
};

/// A clip as read: joints in file order (a parent before its children), values frames×channels
/// (positions in the file's unit, rotations in degrees).
struct BvhClip {
  std::string source;
  std::vector<BvhJoint> joints;
  int channel_count = 0;
  double frame_time = 0;  ///< seconds
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> values;
  int frames() const { return static_cast<int>(values.rows()); }
  double duration_s() const { return (frames() - 1) * frame_time; }
  int joint(const std::string& name) const;  ///< index, or -1
};

/// At most this many joints in a clip.
inline constexpr int max_bvh_joints = 1000;

/// Parses BVH text. Throws InputError naming `source` and the line for an unknown keyword, a
/// channel count that does not match its names, a row with too few or too many values, a
/// non-finite or malformed number, no frames, a frame count other than the header's, two joints
/// of one name, or more than max_bvh_joints joints.
BvhClip parse_bvh(std::string_view text, const std::string& source);
BvhClip read_bvh(const std::filesystem::path& path);

/// Each joint's transform relative to its parent: translation (offset plus position channels)
/// and rotation.
struct BvhLocalPose {
  std::vector<Eigen::Quaterniond> rotation;
  std::vector<Vec3> translation;
};

/// Each joint's transform in the clip's world: rotation and position.
struct BvhGlobalPose {
  std::vector<Mat3> rotation;
  std::vector<Vec3> position;
};

/// The rest pose: offsets only, every channel zero.
BvhLocalPose bvh_rest_pose(const BvhClip& clip);
/// Frame `frame`'s pose: rotation channels compose in the listed order, R = R_c1·R_c2·R_c3
/// (intrinsic), angles in degrees; position channels add to the offset.
BvhLocalPose bvh_frame_pose(const BvhClip& clip, int frame);
/// The pose at time t (s): translations linear and rotations slerped between the two nearest
/// frames, held at the ends.
BvhLocalPose bvh_pose_at(const BvhClip& clip, double t);
/// Forward kinematics: R_j = R_parent·R_local, p_j = p_parent + R_parent·t_local.
BvhGlobalPose forward_kinematics(const BvhClip& clip, const BvhLocalPose& pose);

/// How a BVH clip is played on a body (read_bvh_motion).
struct BvhRetarget {
  /// a .mhskel (its .mhw beside it, same stem or default_weights.mhw) or a folder holding
  /// default.mhskel + default_weights.mhw
  std::filesystem::path rig;
  std::filesystem::path base_mesh;  ///< the rig's base.obj (the mesh the .mhskel's vertex indices refer to)
  /// JSON {bvh joint: rig bone}; empty: the built-in CMU map (cmu_joint_map)
  std::filesystem::path joint_map;
  double fps = 30;  ///< resampled from the clip's Frame Time (linear / slerp between frames)
};

/// The clip `bvh` played on the body in `body_file` (whose vertex i is the rig base mesh's
/// vertex i): the rig carried to the body, the clip retargeted onto it (retarget.hpp) and the
/// body skinned at every frame, in the body file's units, axes and vertex order.
/// Throws InputError for unreadable or malformed files, a map that does not name the clip's root
/// joint, or a body with more vertices than the base mesh.
RawMotion read_bvh_motion(const std::filesystem::path& body_file, const std::filesystem::path& bvh,
                          const BvhRetarget& options);

}  // namespace tryon::avatars
