#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <fstream>
#include <iostream>
#include <numbers>
#include <sstream>

#include "avatars/bvh.hpp"
#include "avatars/retarget.hpp"
#include "avatars/rig.hpp"
#include "core/error.hpp"
#include "core/mesh_io.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::avatars;

namespace {

// A root with six channels and one child with three, listed in a different order; frame 1
// moves the root by (10, 0, 0), turns it 90° about Z, and turns the child 90° about X then Z.
const char* const two_joints = R"(HIERARCHY
ROOT Hips
{
  OFFSET 1 2 3
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Knee
  {
    OFFSET 0 -4 0
    CHANNELS 3 Xrotation Zrotation Yrotation
    End Site
    {
      OFFSET 5 0 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.5
0 0 0 0 0 0 0 0 0
10 0 0 90 0 0 90 90 0
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

// The message of the InputError that parsing `text` throws ("" if none).
std::string refusal(const std::string& text) {
  try {
    parse_bvh(text, "clip.bvh");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Bvh, ParsesAHandWrittenClip) {
  const BvhClip clip = parse_bvh(two_joints, "two");
  ASSERT_EQ(clip.joints.size(), 2u);
  EXPECT_EQ(clip.joints[1].parent, 0);
  EXPECT_EQ(clip.channel_count, 9);
  EXPECT_EQ(clip.joints[1].first_channel, 6);
  EXPECT_EQ(clip.frames(), 2);
  EXPECT_DOUBLE_EQ(clip.frame_time, 0.5);
  ASSERT_TRUE(clip.joints[1].end_site.has_value());
  EXPECT_EQ(*clip.joints[1].end_site, Vec3(5, 0, 0));
}

TEST(Bvh, ForwardKinematicsComposesChannelsInListedOrder) {
  const BvhClip clip = parse_bvh(two_joints, "two");
  const BvhGlobalPose rest = forward_kinematics(clip, bvh_frame_pose(clip, 0));
  EXPECT_LT((rest.position[0] - Vec3(1, 2, 3)).norm(), 1e-12);
  EXPECT_LT((rest.position[1] - Vec3(1, -2, 3)).norm(), 1e-12);
  // Frame 1 by hand: root at (1,2,3)+(10,0,0); Rz(90) takes (0,-4,0) to (4,0,0), so the knee is
  // at (15,2,3). The knee's R = Rz(90)·Rx(90)·Rz(90): Rz(90)(5,0,0) = (0,5,0), Rx(90)(0,5,0) =
  // (0,0,5), Rz(90)(0,0,5) = (0,0,5): the End Site is at (15,2,8). (The reverse order,
  // Rz·Rz·Rx, would put it at (10,2,3).)
  const BvhGlobalPose g = forward_kinematics(clip, bvh_frame_pose(clip, 1));
  EXPECT_LT((g.position[0] - Vec3(11, 2, 3)).norm(), 1e-12);
  EXPECT_LT((g.position[1] - Vec3(15, 2, 3)).norm(), 1e-12);
  const Vec3 end = g.position[1] + g.rotation[1] * *clip.joints[1].end_site;
  EXPECT_LT((end - Vec3(15, 2, 8)).norm(), 1e-12);
  // Halfway between the frames: the root halfway along, turned 45°.
  const BvhGlobalPose half = forward_kinematics(clip, bvh_pose_at(clip, 0.25));
  EXPECT_LT((half.position[0] - Vec3(6, 2, 3)).norm(), 1e-12);
  const Vec3 knee_dir = (half.position[1] - half.position[0]) / 4;
  EXPECT_LT((knee_dir - Vec3(std::sqrt(0.5), -std::sqrt(0.5), 0)).norm(), 1e-12);
}

TEST(Bvh, RefusesHostileClipsNamingTheLine) {
  const std::string ok = two_joints;
  struct Case {
    std::string text, expect;
  };
  std::string many_joints = "HIERARCHY\nROOT r\n{\n";
  for (int k = 0; k < max_bvh_joints; ++k)
    many_joints += "JOINT j" + std::to_string(k) + "\n{\nOFFSET 0 0 0\n}\n";
  many_joints += "}\nMOTION\nFrames: 1\nFrame Time: 1\n0\n";
  const std::vector<Case> cases = {
      {replaced(ok, "    OFFSET 0 -4 0", "    ROTATE 0 -4 0"), "line 8: unknown keyword 'ROTATE'"},
      {replaced(ok, "CHANNELS 3 Xrotation Zrotation Yrotation", "CHANNELS 3 Xrotation Zrotation"),
       "line 9: CHANNELS 3 lists 2"},
      {replaced(ok, "CHANNELS 3 Xrotation", "CHANNELS 3 Wrotation"), "line 9: unknown channel"},
      {replaced(ok, "10 0 0 90 0 0 90 90 0", "10 0 0 90 0 0 90 90"), "line 20: 8 values in a row"},
      {replaced(ok, "10 0 0 90 0 0 90 90 0", "10 0 0 90 0 0 90 90 0 1"), "line 20: 10 values in a row"},
      {replaced(ok, "10 0 0 90 0 0 90 90 0", "10 0 0 nan 0 0 90 90 0"),
       "line 20: 'nan' is not a finite number"},
      {replaced(ok, "10 0 0 90 0 0 90 90 0", "10 0 0 inf 0 0 90 90 0"),
       "line 20: 'inf' is not a finite number"},
      {replaced(ok, "10 0 0 90 0 0 90 90 0", "10 0 0 1e999 0 0 90 90 0"), "line 20"},
      {replaced(ok, "10 0 0 90 0 0 90 90 0", "10 0 0 9O 0 0 90 90 0"), "line 20: '9O' is not a number"},
      {replaced(ok, "Frames: 2", "Frames: 0"), "line 17: no frames"},
      {replaced(ok, "Frames: 2", "Frames: 3"), "'Frames: 3' but 2 rows"},
      {replaced(ok, "Frames: 2", "Frames: 1"), "line 20: more rows than 'Frames: 1'"},
      {replaced(ok, "OFFSET 1 2 3", "OFFSET 1 2 3e"), "line 4: '3e' is not a number"},
      {ok.substr(0, ok.find("MOTION")), "no MOTION section"},
      {ok.substr(0, ok.find("  JOINT Knee")), "the file ends where '}' was expected"},
      {replaced(ok, "JOINT Knee", "JOINT Hips"), "line 6: a second joint named 'Hips'"},
      {many_joints, "line " + std::to_string(4 + 4 * (max_bvh_joints - 1)) + ": more than 1000 joints"},
  };
  for (const Case& c : cases) {
    const std::string message = refusal(c.text);
    EXPECT_NE(message.find(c.expect), std::string::npos)
        << "expected '" << c.expect << "', got '" << message << "'";
    EXPECT_NE(message.find("clip.bvh"), std::string::npos) << message;
  }
}

TEST(Bvh, ReadsTheCmuClip) {
  TRYON_REQUIRE_SHARED("avatars/motion_cmu/01_01.bvh");
  const BvhClip clip = read_bvh(test::shared_data_path("avatars/motion_cmu/01_01.bvh"));
  EXPECT_EQ(clip.frames(), 2752);               // "Frames: 2752"
  EXPECT_DOUBLE_EQ(clip.frame_time, .0083333);  // "Frame Time: .0083333"
  EXPECT_EQ(clip.joints.size(), 31u);
  EXPECT_EQ(clip.channel_count, 6 + 30 * 3);
  EXPECT_EQ(clip.joints[0].name, "Hips");
  EXPECT_GE(clip.joint("LeftUpLeg"), 0);
  EXPECT_GE(clip.joint("RightForeArm"), 0);
}

namespace {

const std::string female = "avatars/makehuman/derived/makehuman_female.obj";
const std::string base = "avatars/makehuman/raw/base.obj";
const std::string rig_dir = "avatars/makehuman/rig";
const std::string cmu = "avatars/motion_cmu/01_01.bvh";

#define REQUIRE_MAKEHUMAN()                            \
  do {                                                 \
    TRYON_REQUIRE_SHARED(female);                      \
    TRYON_REQUIRE_SHARED(base);                        \
    TRYON_REQUIRE_SHARED(rig_dir + "/default.mhskel"); \
    TRYON_REQUIRE_SHARED(cmu);                         \
  } while (0)

const TriMesh& female_body() {
  static const TriMesh m = read_mesh(test::shared_data_path(female));
  return m;
}
const TriMesh& base_mesh() {
  static const TriMesh m = read_mesh(test::shared_data_path(base));
  return m;
}
const Rig& female_rig() {
  static const Rig rig = [] {
    const auto [skel, mhw] = makehuman_rig_files(test::shared_data_path(rig_dir));
    return read_makehuman_rig(skel, mhw, base_mesh().V, female_body().V);
  }();
  return rig;
}
const BvhClip& cmu_clip() {
  static const BvhClip clip = read_bvh(test::shared_data_path(cmu));
  return clip;
}
BvhRetarget cmu_options() {
  BvhRetarget o;
  o.rig = test::shared_data_path(rig_dir);
  o.base_mesh = test::shared_data_path(base);
  o.fps = 30;
  return o;
}
const RawMotion& female_cmu_motion() {
  static const RawMotion m =
      read_bvh_motion(test::shared_data_path(female), test::shared_data_path(cmu), cmu_options());
  return m;
}

// Whether p is inside the closed mesh: the parity of a ray's crossings (Möller–Trumbore).
bool inside(const TriMesh& m, const Vec3& p) {
  const Vec3 dir = Vec3(1, 0.0123, 0.0377).normalized();
  int crossings = 0;
  for (int f = 0; f < m.num_triangles(); ++f) {
    const Vec3 a = m.V.row(m.F(f, 0)), b = m.V.row(m.F(f, 1)), c = m.V.row(m.F(f, 2));
    const Vec3 e1 = b - a, e2 = c - a, h = dir.cross(e2);
    const double det = e1.dot(h);
    if (std::abs(det) < 1e-15) continue;
    const Vec3 s = p - a;
    const double u = s.dot(h) / det;
    const Vec3 q = s.cross(e1);
    const double v = dir.dot(q) / det;
    if (u < 0 || v < 0 || u + v > 1) continue;
    if (e2.dot(q) / det > 0) ++crossings;
  }
  return crossings % 2 == 1;
}

Vec3 head_of(const Rig& rig, const RigPose& pose, const std::string& bone) {
  const int b = rig.bone(bone);
  EXPECT_GE(b, 0) << bone;
  return pose.head[b];
}

double mean_edge_length(ConstRef<Points3> V, ConstRef<Segments> E) {
  double total = 0;
  for (Eigen::Index e = 0; e < E.rows(); ++e) total += (V.row(E(e, 0)) - V.row(E(e, 1))).norm();
  return total / static_cast<double>(E.rows());
}

}  // namespace

TEST(Rig, AnchoredPointsFollowAnAffineMapExactly) {
  REQUIRE_MAKEHUMAN();
  const Points3& V = base_mesh().V;
  const Mat3 A = 0.1 * Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix() *
                 Vec3(1.0, 1.2, 0.9).asDiagonal();
  const Vec3 t(0.3, -2, 5);
  const Points3 W = (V * A.transpose()).rowwise() + t.transpose();
  for (const Vec3& p : {Vec3(0.5, 9.5, 0.2), Vec3(1.1, 5.0, 0.1), Vec3(-3.0, 13.0, -0.4)}) {
    const PointAnchor a = anchor_point(V, 13380, p);
    EXPECT_GE(a.vertices.size(), 8u);
    double sum = 0;
    for (double w : a.weights) sum += w;
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_LT((place(a, V) - p).norm(), 1e-9);
    EXPECT_LT((place(a, W) - (A * p + t)).norm(), 1e-9);
  }
}

TEST(Rig, MakeHumanJointsLieInsideTheFemaleBody) {
  REQUIRE_MAKEHUMAN();
  const Rig& rig = female_rig();
  const TriMesh& body = female_body();
  EXPECT_EQ(rig.bones.size(), 163u);
  EXPECT_EQ(rig.bones[0].name, "root");
  const Bounds3 box = bounds(body.V);
  const double height = box.extent().y();
  for (std::size_t i = 0; i < rig.bones.size(); ++i) {
    const RigBone& b = rig.bones[i];
    EXPECT_TRUE((b.head.array() >= box.min.array()).all() && (b.head.array() <= box.max.array()).all())
        << b.name;
    EXPECT_LT(b.parent, static_cast<int>(i)) << b.name;  // parents first
  }
  for (const char* name :
       {"root", "spine03", "spine01", "neck01", "head", "pelvis.L", "upperleg01.L", "upperleg01.R",
        "lowerleg01.L", "foot.R", "clavicle.L", "upperarm01.L", "upperarm01.R", "lowerarm01.R", "wrist.L"}) {
    EXPECT_TRUE(inside(body, rig.bones[rig.bone(name)].head))
        << name << " at " << rig.bones[rig.bone(name)].head.transpose();
  }
  const Vec3 hip_l = rig.bones[rig.bone("upperleg01.L")].head,
             hip_r = rig.bones[rig.bone("upperleg01.R")].head;
  EXPECT_GT(hip_l.x(), 0.03);  // MakeHuman's .L side is the body's left, +X when facing +Z
  EXPECT_LT(hip_r.x(), -0.03);
  EXPECT_NEAR(hip_l.y() / height, 0.5, 0.08);
  EXPECT_NEAR(hip_l.y(), hip_r.y(), 1e-3);
  const Vec3 shoulder_l = rig.bones[rig.bone("upperarm01.L")].head;
  EXPECT_NEAR(shoulder_l.y() / height, 0.81, 0.05);
  EXPECT_GT(shoulder_l.x(), hip_l.x());
}

TEST(Rig, WeightsAreNormalisedOverTheBodyVertices) {
  REQUIRE_MAKEHUMAN();
  const Rig& rig = female_rig();
  const SkinWeights& s = rig.weights;
  ASSERT_EQ(s.start.size(), static_cast<std::size_t>(female_body().V.rows()) + 1);
  for (std::size_t v = 0; v + 1 < s.start.size(); ++v) {
    double sum = 0;
    for (int k = s.start[v]; k < s.start[v + 1]; ++k) {
      ASSERT_GE(s.bone[k], 0);
      ASSERT_LT(s.bone[k], static_cast<int>(rig.bones.size()));
      sum += s.weight[k];
    }
    ASSERT_NEAR(sum, 1.0, 1e-12) << "vertex " << v;
  }
  // The rest pose skins the body onto itself.
  EXPECT_LT((skin(rig, female_body().V, rest_pose(rig)) - female_body().V).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(Retarget, TheClipsRestPoseIsATPoseOnTheRig) {
  REQUIRE_MAKEHUMAN();
  const Rig& rig = female_rig();
  const BvhClip& clip = cmu_clip();
  const Retargeting plan = plan_retarget(clip, rig, cmu_joint_map(), female_body().V);
  const BvhGlobalPose rest = forward_kinematics(clip, bvh_rest_pose(clip));
  const RigPose pose = retarget_pose(plan, rig, rest, Vec3::Zero());
  // Each mapped limb segment points along the clip's rest bone: the A-pose arm is raised level.
  for (const auto& [from, to, jf, jt] :
       {std::tuple{"upperarm01.L", "lowerarm01.L", "LeftArm", "LeftForeArm"},
        std::tuple{"lowerarm01.R", "wrist.R", "RightForeArm", "RightHand"},
        std::tuple{"upperleg01.L", "lowerleg01.L", "LeftUpLeg", "LeftLeg"}}) {
    const Vec3 rig_dir = (head_of(rig, pose, to) - head_of(rig, pose, from)).normalized();
    const Vec3 clip_dir = (rest.position[clip.joint(jt)] - rest.position[clip.joint(jf)]).normalized();
    EXPECT_GT(rig_dir.dot(clip_dir), 1 - 1e-12) << from;
  }
  EXPECT_NEAR(head_of(rig, pose, "wrist.L").y(), head_of(rig, pose, "upperarm01.L").y(), 0.03);
}

TEST(Retarget, RefusesAMapMatchingNothingOrNamingUnknownBones) {
  REQUIRE_MAKEHUMAN();
  TRYON_REQUIRE_SHARED(rig_dir + "/walk1.bvh");
  const BvhClip old = read_bvh(test::shared_data_path(rig_dir + "/walk1.bvh"));
  try {
    plan_retarget(old, female_rig(), cmu_joint_map(), female_body().V);
    ADD_FAILURE() << "the CMU map on MakeHuman's older skeleton was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("root joint 'Root'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(plan_retarget(cmu_clip(), female_rig(), {{"Hips", "pelvis"}}, female_body().V), InputError);
  EXPECT_THROW(
      plan_retarget(cmu_clip(), female_rig(), {{"Hips", "root"}, {"LowerBack", "root"}}, female_body().V),
      InputError);
}

TEST(Retarget, ReadsAJointMapFile) {
  REQUIRE_MAKEHUMAN();
  const auto dir = std::filesystem::temp_directory_path() / ("tryon_bvh_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  const JointMap m = read_joint_map(write("map.json", R"({"Hips": "root", "LeftArm": "upperarm01.L"})"));
  EXPECT_EQ(m, (JointMap{{"Hips", "root"}, {"LeftArm", "upperarm01.L"}}));
  EXPECT_THROW(read_joint_map(write("list.json", R"(["Hips", "root"])")), InputError);
  EXPECT_THROW(read_joint_map(write("number.json", R"({"Hips": 3})")), InputError);
  EXPECT_THROW(read_joint_map(write("broken.json", R"({"Hips": )")), InputError);
  EXPECT_THROW(makehuman_rig_files(dir), InputError);  // no default.mhskel there
  // A map of the root alone: the body turns and moves as a whole, every bone rigidly.
  const Retargeting plan = plan_retarget(cmu_clip(), female_rig(), m, female_body().V);
  EXPECT_EQ(plan.joint[0], 0);
  EXPECT_EQ(plan.joint[female_rig().bone("lowerleg01.L")], -1);
  std::filesystem::remove_all(dir);
}

TEST(BvhMotion, TheCmuClipOnTheFemaleBody) {
  REQUIRE_MAKEHUMAN();
  const RawMotion& m = female_cmu_motion();
  const BvhClip& clip = cmu_clip();
  EXPECT_EQ(m.frames.size(), static_cast<std::size_t>(std::floor(clip.duration_s() * 30)) + 1);
  EXPECT_EQ(m.frames.size(), 688u);
  EXPECT_DOUBLE_EQ(m.fps, 30);
  ASSERT_EQ(m.first.V.rows(), female_body().V.rows());
  EXPECT_EQ(m.first.F, female_body().F);
  const double rest_height = bounds(m.first.V).extent().y();
  EXPECT_NEAR(bounds(m.frames[0]).extent().y() / rest_height, 1.0, 0.10);
  double moved = 0;
  for (const Points3& V : m.frames) moved = std::max(moved, (V - m.frames[0]).rowwise().norm().maxCoeff());
  EXPECT_GT(moved, 0.10);
  std::cout << "[ measured ] largest vertex displacement over the clip: " << moved << " m\n";
}

TEST(BvhMotion, TheSkinKeepsItsScale) {
  REQUIRE_MAKEHUMAN();
  const RawMotion& m = female_cmu_motion();
  const Segments E = unique_edges(m.first.F);
  const double rest = mean_edge_length(m.first.V, E);
  double worst = 0;
  for (const Points3& V : m.frames) worst = std::max(worst, std::abs(mean_edge_length(V, E) / rest - 1));
  EXPECT_LT(worst, 0.05);
  std::cout << "[ measured ] mean edge length within " << 100 * worst << " % of rest on every frame\n";
}

TEST(BvhMotion, LimbsKeepTheirLength) {
  REQUIRE_MAKEHUMAN();
  const Rig& rig = female_rig();
  const Retargeting plan = plan_retarget(cmu_clip(), rig, cmu_joint_map(), female_body().V);
  const auto poses = retarget_clip(cmu_clip(), rig, plan, 30);
  const RigPose rest = rest_pose(rig);
  const double shin = (head_of(rig, rest, "foot.L") - head_of(rig, rest, "lowerleg01.L")).norm();
  const double forearm = (head_of(rig, rest, "wrist.R") - head_of(rig, rest, "lowerarm01.R")).norm();
  for (std::size_t k = 0; k < poses.size(); ++k) {
    const RigPose& p = poses[k];
    ASSERT_NEAR((head_of(rig, p, "foot.L") - head_of(rig, p, "lowerleg01.L")).norm(), shin, 1e-9)
        << "frame " << k;
    ASSERT_NEAR((head_of(rig, p, "wrist.R") - head_of(rig, p, "lowerarm01.R")).norm(), forearm, 1e-9)
        << "frame " << k;
  }
}

// 01_01's frame 0 is a T-pose; then the right arm hangs and the left stays out, level (the hand
// at most 0.04 units above the shoulder) for 0.3 s, then both hang and swing. The rig's arm
// segments point where the clip's do at every frame; its hands are never above the shoulders
// by more than 5 cm, and below them wherever the clip's hands are clearly below (by 15 % of the
// arm's length; the rig's arm proportions differ, so a nearly level arm may tip either way).
TEST(BvhMotion, ArmsFollowTheClipDownBesideTheBody) {
  REQUIRE_MAKEHUMAN();
  const Rig& rig = female_rig();
  const BvhClip& clip = cmu_clip();
  const Retargeting plan = plan_retarget(clip, rig, cmu_joint_map(), female_body().V);
  const auto poses = retarget_clip(clip, rig, plan, 30);
  const double clip_arm = clip.joints[clip.joint("LeftForeArm")].offset.norm() +
                          clip.joints[clip.joint("LeftHand")].offset.norm();
  std::size_t down = 0;
  for (std::size_t k = 0; k < poses.size(); ++k) {
    const BvhGlobalPose g = forward_kinematics(clip, bvh_pose_at(clip, static_cast<double>(k) / 30));
    for (const auto& [side, s] : {std::pair{"Left", "L"}, std::pair{"Right", "R"}}) {
      const std::string b = side, r = s;
      const Vec3 shoulder = g.position[clip.joint(b + "Arm")], elbow = g.position[clip.joint(b + "ForeArm")],
                 hand = g.position[clip.joint(b + "Hand")];
      const RigPose& p = poses[k];
      const Vec3 rs = head_of(rig, p, "upperarm01." + r), re = head_of(rig, p, "lowerarm01." + r),
                 rh = head_of(rig, p, "wrist." + r);
      ASSERT_GT((re - rs).normalized().dot((elbow - shoulder).normalized()), 1 - 1e-9) << "frame " << k;
      ASSERT_GT((rh - re).normalized().dot((hand - elbow).normalized()), 1 - 1e-9) << "frame " << k;
      ASSERT_LT(hand.y(), shoulder.y() + 0.05) << "clip frame " << k << " " << b;
      ASSERT_LT(rh.y(), rs.y() + 0.05) << "frame " << k << " side " << r;
      if (hand.y() < shoulder.y() - 0.15 * clip_arm) {
        ++down;
        ASSERT_LT(rh.y(), rs.y() - 0.02) << "frame " << k << " side " << r;
      }
    }
  }
  EXPECT_GT(down, 2 * poses.size() * 95 / 100);
  std::cout << "[ measured ] hands below the shoulders by 15 % of the arm on " << down << " of "
            << 2 * poses.size() << " arm-frames\n";
}

// 01_01 is "forward jumps, turn around" (CMU subject 1, trial 1): the actor crouches before each
// jump (the hips drop from 17.9 to 14.5 units). Where the clip stands (hips within 3 % of frame
// 0's height) the body is a person's height; crouched, it is lower, never implausibly so.
TEST(BvhMotion, NormalisedTheBodyStaysAPersonsHeight) {
  REQUIRE_MAKEHUMAN();
  const BodyMotion m = normalise_motion(female_cmu_motion(), "01_01");
  const BvhClip& clip = cmu_clip();
  ASSERT_EQ(m.frames.size(), female_cmu_motion().frames.size());
  const double hips0 = forward_kinematics(clip, bvh_frame_pose(clip, 0)).position[0].y();
  double lo = 1e9, hi = 0, standing_lo = 1e9;
  int standing = 0;
  for (std::size_t k = 0; k < m.frames.size(); ++k) {
    const double h = bounds(m.frames[k]).extent().y();
    lo = std::min(lo, h);
    hi = std::max(hi, h);
    const double hips =
        forward_kinematics(clip, bvh_pose_at(clip, static_cast<double>(k) / 30)).position[0].y();
    if (std::abs(hips / hips0 - 1) > 0.03) continue;
    ++standing;
    standing_lo = std::min(standing_lo, h);
    EXPECT_GE(h, 1.4) << "frame " << k;
    EXPECT_LE(h, 1.8) << "frame " << k;
  }
  EXPECT_GT(standing, 300);
  EXPECT_GE(lo, 1.1);
  EXPECT_LE(hi, 1.8);
  std::cout << "[ measured ] normalised body height: " << lo << "–" << hi << " m over the clip, from "
            << standing_lo << " m on the " << standing << " standing frames\n";
}
