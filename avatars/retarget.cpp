#include "avatars/retarget.hpp"

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/logger.hpp"
#include "core/mesh_io.hpp"

namespace tryon::avatars {

namespace fs = std::filesystem;

JointMap cmu_joint_map() {
  JointMap m = {{"Hips", "root"},   {"LowerBack", "spine05"}, {"Spine", "spine03"}, {"Spine1", "spine01"},
                {"Neck", "neck01"}, {"Neck1", "neck02"},      {"Head", "head"}};
  for (const auto& [bvh, mh] : {std::pair<std::string, std::string>{"Left", "L"}, {"Right", "R"}}) {
    const std::string s = "." + mh, h = bvh == "Left" ? "L" : "R";
    m[h + "HipJoint"] = "pelvis" + s;
    m[bvh + "UpLeg"] = "upperleg01" + s;
    m[bvh + "Leg"] = "lowerleg01" + s;
    m[bvh + "Foot"] = "foot" + s;
    m[bvh + "Shoulder"] = "clavicle" + s;
    m[bvh + "Arm"] = "upperarm01" + s;
    m[bvh + "ForeArm"] = "lowerarm01" + s;
    m[bvh + "Hand"] = "wrist" + s;
  }
  return m;
}

JointMap read_joint_map(const fs::path& path) {
  const std::string text = read_text_file(path, "joint map");
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    throw InputError("joint map '" + path.string() + "' is not a JSON object {\"bvh joint\": \"rig bone\"}");
  JointMap m;
  for (const auto& [k, v] : doc.items()) {
    if (!v.is_string())
      throw InputError("joint map '" + path.string() + "': '" + k +
                       "' maps to something that is not a bone name");
    m[k] = v.get<std::string>();
  }
  return m;
}

namespace {

// Per rig bone, the clip joint mapped onto it (-1: none).
std::vector<int> mapped_joints(const BvhClip& clip, const Rig& rig, const JointMap& map) {
  std::vector<int> joint(rig.bones.size(), -1);
  if (!map.count(clip.joints[0].name))
    throw InputError("joint map: it does not name the root joint '" + clip.joints[0].name +
                     "' of the clip '" + clip.source + "' (a map for another skeleton?)");
  for (const auto& [bvh, bone] : map) {
    const int b = rig.bone(bone);
    if (b < 0) throw InputError("joint map: the rig has no bone '" + bone + "' (mapped from '" + bvh + "')");
    const int j = clip.joint(bvh);
    if (j < 0) continue;
    if (joint[b] >= 0)
      throw InputError("joint map: '" + bvh + "' and '" + clip.joints[joint[b]].name +
                       "' both map to bone '" + bone + "'");
    joint[b] = j;
  }
  return joint;
}

// The rest directions (rig, clip) of bone b driven by joint j: towards the one mapped child
// joint when there is one, else along the joint's only child (or End Site) and the bone.
std::optional<std::pair<Vec3, Vec3>> rest_directions(const BvhClip& clip, const BvhGlobalPose& rest,
                                                     const Rig& rig, const std::vector<int>& joint_of, int b,
                                                     int j) {
  constexpr double tiny = 1e-9;
  const BvhJoint& J = clip.joints[j];
  std::vector<std::pair<int, int>> mapped;  // (child joint, its bone)
  for (int c : J.children)
    for (std::size_t cb = 0; cb < joint_of.size(); ++cb)
      if (joint_of[cb] == c) mapped.push_back({c, static_cast<int>(cb)});
  if (mapped.size() == 1) {
    const auto [c, cb] = mapped[0];
    const Vec3 d_rig = rig.bones[cb].head - rig.bones[b].head;
    const Vec3 d_clip = rest.rotation[j] * clip.joints[c].offset;
    if (d_rig.norm() > tiny && d_clip.norm() > tiny) return std::pair{d_rig, d_clip};
  }
  const std::size_t ends = J.children.size() + (J.end_site ? 1 : 0);
  if (ends != 1) return std::nullopt;
  const Vec3 offset = J.end_site ? *J.end_site : clip.joints[J.children[0]].offset;
  const Vec3 d_rig = rig.bones[b].tail - rig.bones[b].head;
  const Vec3 d_clip = rest.rotation[j] * offset;
  if (d_rig.norm() > tiny && d_clip.norm() > tiny) return std::pair{d_rig, d_clip};
  return std::nullopt;
}

// Rig units per clip unit: the rig's hip height over the body's lowest point, over the clip's
// root height over its lowest joint or End Site at rest.
double hip_scale(const BvhClip& clip, const BvhGlobalPose& rest, const Rig& rig, int clip_root,
                 ConstRef<Points3> body_V) {
  double clip_floor = rest.position[clip_root].y();
  for (std::size_t j = 0; j < clip.joints.size(); ++j) {
    clip_floor = std::min(clip_floor, rest.position[j].y());
    if (clip.joints[j].end_site)
      clip_floor = std::min(clip_floor, (rest.position[j] + rest.rotation[j] * *clip.joints[j].end_site).y());
  }
  const double clip_hips = rest.position[clip_root].y() - clip_floor;
  const double rig_hips = rig.bones[0].head.y() - body_V.col(1).minCoeff();
  if (!(clip_hips > 0) || !(rig_hips > 0))
    throw InputError("BVH '" + clip.source +
                     "': cannot scale the clip to the body (its root is not above its lowest joint at rest)");
  return rig_hips / clip_hips;
}

}  // namespace

Retargeting plan_retarget(const BvhClip& clip, const Rig& rig, const JointMap& map,
                          ConstRef<Points3> body_V) {
  Retargeting plan;
  plan.joint = mapped_joints(clip, rig, map);
  const BvhGlobalPose rest = forward_kinematics(clip, bvh_rest_pose(clip));
  const std::size_t n = rig.bones.size();
  plan.align.assign(n, Mat3::Identity());
  plan.rest_inverse.assign(n, Mat3::Identity());
  for (std::size_t b = 0; b < n; ++b) {
    const int parent = rig.bones[b].parent;
    const int j = plan.joint[b];
    plan.align[b] = parent >= 0 ? plan.align[parent] : Mat3::Identity();
    if (j < 0) continue;
    plan.rest_inverse[b] = rest.rotation[j].transpose();
    if (const auto d = rest_directions(clip, rest, rig, plan.joint, static_cast<int>(b), j))
      plan.align[b] = Eigen::Quaterniond::FromTwoVectors(d->first, d->second).toRotationMatrix();
  }
  plan.clip_root = 0;
  plan.scale = hip_scale(clip, rest, rig, plan.clip_root, body_V);
  return plan;
}

RigPose retarget_pose(const Retargeting& plan, const Rig& rig, const BvhGlobalPose& g,
                      const Vec3& root_displacement) {
  RigPose pose;
  const std::size_t n = rig.bones.size();
  pose.rotation.resize(n);
  pose.head.resize(n);
  for (std::size_t b = 0; b < n; ++b) {
    const RigBone& bone = rig.bones[b];
    const int p = bone.parent;
    const int j = plan.joint[b];
    if (j >= 0)
      pose.rotation[b] = g.rotation[j] * plan.rest_inverse[b] * plan.align[b];
    else
      pose.rotation[b] = p >= 0 ? pose.rotation[p] : Mat3::Identity();
    pose.head[b] = p < 0 ? Vec3(bone.head + root_displacement)
                         : Vec3(pose.head[p] + pose.rotation[p] * (bone.head - rig.bones[p].head));
  }
  return pose;
}

std::vector<RigPose> retarget_clip(const BvhClip& clip, const Rig& rig, const Retargeting& plan, double fps) {
  if (!(fps > 0 && fps <= 1000)) throw InputError("BVH playback: fps must be between 0 and 1000");
  const double span = std::floor(clip.duration_s() * fps + 1e-9);
  if (!(span < max_playback_frames))
    throw InputError("BVH '" + clip.source + "': " + std::to_string(clip.duration_s()) + " s at " +
                     std::to_string(fps) + " fps is more than " + std::to_string(max_playback_frames) +
                     " frames");
  const int frames = static_cast<int>(span) + 1;
  const Vec3 root0 = forward_kinematics(clip, bvh_frame_pose(clip, 0)).position[plan.clip_root];
  std::vector<RigPose> poses;
  poses.reserve(frames);
  for (int k = 0; k < frames; ++k) {
    const BvhGlobalPose g = forward_kinematics(clip, bvh_pose_at(clip, k / fps));
    poses.push_back(retarget_pose(plan, rig, g, plan.scale * (g.position[plan.clip_root] - root0)));
  }
  return poses;
}

RawMotion read_bvh_motion(const fs::path& body_file, const fs::path& bvh, const BvhRetarget& options) {
  const BvhClip clip = read_bvh(bvh);
  TriMesh body = read_mesh(body_file);
  const TriMesh base = read_mesh(options.base_mesh);
  const auto [mhskel, mhw] = makehuman_rig_files(options.rig);
  const Rig rig = read_makehuman_rig(mhskel, mhw, base.V, body.V);
  const JointMap map = options.joint_map.empty() ? cmu_joint_map() : read_joint_map(options.joint_map);
  const Retargeting plan = plan_retarget(clip, rig, map, body.V);
  const std::vector<RigPose> poses = retarget_clip(clip, rig, plan, options.fps);
  RawMotion raw;
  raw.fps = options.fps;
  raw.source = bvh.string() + " on " + body_file.string();
  raw.frames.reserve(poses.size());
  const auto t0 = std::chrono::steady_clock::now();
  for (const RigPose& pose : poses) raw.frames.push_back(skin(rig, body.V, pose));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  logger().info("BVH {}: {} frames at {} fps on {} ({:.2f} ms a frame to skin)", bvh.string(), poses.size(),
                options.fps, body_file.filename().string(), ms / static_cast<double>(poses.size()));
  raw.rest = body.V;
  raw.first = std::move(body);
  return raw;
}

}  // namespace tryon::avatars
