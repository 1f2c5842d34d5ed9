#include <gtest/gtest.h>

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <unistd.h>
#include <assimp/Exporter.hpp>
#include <assimp/Importer.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "avatars/motion.hpp"
#include "avatars/skinning.hpp"
#include "core/error.hpp"
#include "core/mesh_io.hpp"
#include "gltf_builder.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::avatars;
namespace fs = std::filesystem;
using json = nlohmann::json;
using tryon::test::Gltf;

namespace {

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / ("tryon_skinning_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// The bar: columns x = 0, 0.5, 1, 1.5, 2 of two vertices (y = 0, 0.1), vertex 2c + r, z = 0.
constexpr int bar_columns = 5;
Vec3 bar_vertex(int v) {
  return {0.5 * (v / 2), 0.1 * (v % 2), 0.0};
}

// The static triangle, on a node moved by (0, 0, 5).
const Vec3 static_offset(0, 0, 5);
Vec3 static_vertex(int v) {
  return {v == 1 ? 1.0 : 0.0, v == 2 ? 1.0 : 0.0, 0.0};
}

// Two meshes: the bar, skinned to bone 0 (at the origin; columns x < 1) and bone 1 (its child at
// x = 1; columns x > 1), the column at x = 1 weighted 50/50; and a static triangle on its own node.
Gltf two_bone_scene() {
  Gltf g;
  std::vector<float> pos, weights, tri_pos;
  std::vector<std::uint16_t> idx, joints, tri_idx{0, 1, 2};
  for (int v = 0; v < 2 * bar_columns; ++v) {
    for (int k = 0; k < 3; ++k) pos.push_back(static_cast<float>(bar_vertex(v)[k]));
    const int c = v / 2;
    joints.insert(joints.end(), {0, 1, 0, 0});
    const float w1 = c < 2 ? 0.0f : c == 2 ? 0.5f : 1.0f;
    weights.insert(weights.end(), {1 - w1, w1, 0, 0});
  }
  for (int c = 0; c + 1 < bar_columns; ++c) {
    const auto a = static_cast<std::uint16_t>(2 * c);
    idx.insert(idx.end(), {a, static_cast<std::uint16_t>(a + 2), static_cast<std::uint16_t>(a + 3), a,
                           static_cast<std::uint16_t>(a + 3), static_cast<std::uint16_t>(a + 1)});
  }
  for (int v = 0; v < 3; ++v)
    for (int k = 0; k < 3; ++k) tri_pos.push_back(static_cast<float>(static_vertex(v)[k]));
  // Inverse bind matrices (column-major): bone 0 at the origin, bone 1 at x = 1.
  const std::vector<float> ibm{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0,  0, 0, 1,
                               1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1};
  const int p = g.accessor(pos, "VEC3", 3, true), i = g.accessor(idx, "SCALAR", 1);
  const int j = g.accessor(joints, "VEC4", 4), w = g.accessor(weights, "VEC4", 4);
  const int tp = g.accessor(tri_pos, "VEC3", 3, true), ti = g.accessor(tri_idx, "SCALAR", 1);
  const int m = g.accessor(ibm, "MAT4", 16);
  json skinned_attributes = {{"POSITION", p}, {"JOINTS_0", j}, {"WEIGHTS_0", w}};
  json static_attributes = {{"POSITION", tp}};
  g.doc["meshes"] = json::array();
  g.doc["meshes"].push_back(
      {{"primitives", json::array({json{{"attributes", skinned_attributes}, {"indices", i}}})}});
  g.doc["meshes"].push_back(
      {{"primitives", json::array({json{{"attributes", static_attributes}, {"indices", ti}}})}});
  g.doc["skins"] = {{{"joints", {0, 1}}, {"inverseBindMatrices", m}, {"skeleton", 0}}};
  g.doc["nodes"] = {{{"name", "bone0"}, {"children", {1}}},
                    {{"name", "bone1"}, {"translation", {1, 0, 0}}},
                    {{"name", "bar"}, {"mesh", 0}, {"skin", 0}},
                    {{"name", "static"}, {"mesh", 1}, {"translation", {0, 0, 5}}}};
  g.doc["scenes"] = {{{"nodes", {0, 2, 3}}}};
  g.doc["scene"] = 0;
  return g;
}

// Over 1 s: bone 1 turns 90° about z (0 → 90°), bone 0 moves from the origin to z = 2.
void add_animation(Gltf& g) {
  const float s = static_cast<float>(std::sqrt(0.5));
  const int t = g.accessor(std::vector<float>{0, 1}, "SCALAR", 1, true);
  const int r = g.accessor(std::vector<float>{0, 0, 0, 1, 0, 0, s, s}, "VEC4", 4);
  const int z = g.accessor(std::vector<float>{0, 0, 0, 0, 0, 2}, "VEC3", 3);
  g.doc["animations"] = {{{"name", "bend"},
                          {"samplers",
                           {{{"input", t}, {"output", r}, {"interpolation", "LINEAR"}},
                            {{"input", t}, {"output", z}, {"interpolation", "LINEAR"}}}},
                          {"channels",
                           {{{"sampler", 0}, {"target", {{"node", 1}, {"path", "rotation"}}}},
                            {{"sampler", 1}, {"target", {{"node", 0}, {"path", "translation"}}}}}}}};
}

// Where the bar's vertex v is at time t (s), from the rig's definition: bone 0 = T(0, 0, 2t),
// bone 1 = bone 0 · T(1, 0, 0) · Rz(90° t); vertex' = Σ w · bone · bind⁻¹ · vertex.
Vec3 expected_bar(int v, double t) {
  const Vec3 p = bar_vertex(v);
  const double a = M_PI / 2 * t;
  const Vec3 lift(0, 0, 2 * t);
  const Vec3 by0 = p + lift;
  const Vec3 q = p - Vec3(1, 0, 0);
  const Vec3 by1 =
      Vec3(1 + std::cos(a) * q.x() - std::sin(a) * q.y(), std::sin(a) * q.x() + std::cos(a) * q.y(), 0) +
      lift;
  const int c = v / 2;
  const double w1 = c < 2 ? 0.0 : c == 2 ? 0.5 : 1.0;
  return (1 - w1) * by0 + w1 * by1;
}

fs::path cesium(const std::string& ext) {
  return test::shared_data_path("avatars/rigged_cesiumman/CesiumMan." + ext);
}

}  // namespace

TEST(Skinning, TwoBoneBarBendsAtTheJoint) {
  Gltf g = two_bone_scene();
  add_animation(g);
  const fs::path path = temp_dir() / "two_bone.gltf";
  g.write_gltf(path);
  ASSERT_TRUE(has_animation(path));
  const RawMotion raw = read_skinned_animation(path, 10);
  ASSERT_EQ(raw.frames.size(), 11u);  // round(1 s · 10 fps) + 1
  EXPECT_EQ(raw.fps, 10);
  EXPECT_EQ(raw.source, path.string());
  const int bar = 2 * bar_columns;
  ASSERT_EQ(raw.first.V.rows(), bar + 3);
  EXPECT_EQ(raw.first.F.rows(), 2 * (bar_columns - 1) + 1);
  EXPECT_EQ(raw.first.V, raw.frames[0]);
  for (int k = 0; k <= 10; ++k) {
    const double t = k / 10.0;
    for (int v = 0; v < bar; ++v)
      EXPECT_LT((raw.frames[k].row(v).transpose() - expected_bar(v, t)).norm(), 1e-6)
          << "frame " << k << " vertex " << v;
    for (int v = 0; v < 3; ++v)  // no bone: the node's transform
      EXPECT_LT((raw.frames[k].row(bar + v).transpose() - (static_vertex(v) + static_offset)).norm(), 1e-6);
  }
  // Spelled out: at t = 1 the tip (2, 0.1) is turned 90° about the joint (1, 0) and lifted by 2;
  // the joint's column, half on each bone, sits halfway between.
  EXPECT_LT((raw.frames[10].row(9).transpose() - Vec3(0.9, 1.0, 2.0)).norm(), 1e-6);
  EXPECT_LT((raw.frames[10].row(5).transpose() - Vec3(0.95, 0.05, 2.0)).norm(), 1e-6);
  EXPECT_LT((raw.frames[0].row(9).transpose() - Vec3(2.0, 0.1, 0.0)).norm(), 1e-6);
}

TEST(Skinning, FrameCountIsTheDurationAtTheRateInclusive) {
  Gltf g = two_bone_scene();
  add_animation(g);
  const fs::path path = temp_dir() / "two_bone_rates.gltf";
  g.write_gltf(path);
  EXPECT_EQ(read_skinned_animation(path, 30).frames.size(), 31u);
  EXPECT_EQ(read_skinned_animation(path, 1).frames.size(), 2u);
  // 1 s at 4.4 fps: round(4.4) + 1 = 5 frames, 1/4.4 s apart (the last at 0.909 s); at 4.6 fps
  // 6 frames, the last (at 1.087 s) held at the end of the animation.
  const RawMotion raw = read_skinned_animation(path, 4.4);
  ASSERT_EQ(raw.frames.size(), 5u);
  for (int v = 0; v < 2 * bar_columns; ++v)
    EXPECT_LT((raw.frames.back().row(v).transpose() - expected_bar(v, 4 / 4.4)).norm(), 1e-6);
  const RawMotion held = read_skinned_animation(path, 4.6);
  ASSERT_EQ(held.frames.size(), 6u);
  EXPECT_LT((held.frames.back().row(9).transpose() - expected_bar(9, 1.0)).norm(), 1e-6);
}

TEST(Skinning, BindPoseIsTheRestMesh) {
  Gltf g = two_bone_scene();
  const fs::path path = temp_dir() / "two_bone_static.gltf";
  g.write_gltf(path);
  const TriMesh bind = read_skinned_bind_pose(path);
  const TriMesh mesh = read_mesh(path);
  ASSERT_EQ(bind.V.rows(), mesh.V.rows());
  EXPECT_LT((bind.V - mesh.V).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(Skinning, RefusesWhatIsNotAnAnimatedRig) {
  const fs::path dir = temp_dir();
  Gltf g = two_bone_scene();
  g.write_glb(dir / "static.glb");
  EXPECT_FALSE(has_animation(dir / "static.glb"));
  EXPECT_FALSE(has_animation(dir / "missing.glb"));
  try {
    read_skinned_animation(dir / "static.glb", 30);
    FAIL() << "a file without an animation was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no animation"), std::string::npos) << e.what();
  }
  add_animation(g);
  g.doc["nodes"][2].erase("skin");
  g.write_gltf(dir / "unskinned.gltf");
  try {
    read_skinned_animation(dir / "unskinned.gltf", 30);
    FAIL() << "a file without a skinned mesh was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no skinned mesh"), std::string::npos) << e.what();
  }
  std::ofstream(dir / "garbage.glb") << "not a model";
  EXPECT_THROW(read_skinned_animation(dir / "garbage.glb", 30), InputError);
  g.write_gltf(dir / "rates.gltf");
  EXPECT_THROW(read_skinned_animation(dir / "rates.gltf", 0), InputError);
  EXPECT_THROW(read_skinned_animation(dir / "rates.gltf", 30, 1), InputError);
}

TEST(Skinning, LoadMotionRefusesAFileWithoutAnimation) {
  const fs::path path = temp_dir() / "static_body.glb";
  two_bone_scene().write_glb(path);
  try {
    load_motion(path);
    FAIL() << "a static GLB was read as a motion";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("animation"), std::string::npos) << e.what();
  }
}

namespace {

// Per vertex of a file's single mesh, read as read_skinned_animation reads it: the bones that
// weigh it.
std::vector<std::vector<int>> bones_of(const fs::path& path) {
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(path.string(), aiProcess_Triangulate | aiProcess_SortByPType);
  EXPECT_TRUE(scene && scene->mNumMeshes == 1);
  if (!scene || scene->mNumMeshes != 1) return {};
  const aiMesh& mesh = *scene->mMeshes[0];
  std::vector<std::vector<int>> bones(mesh.mNumVertices);
  for (unsigned b = 0; b < mesh.mNumBones; ++b)
    for (unsigned w = 0; w < mesh.mBones[b]->mNumWeights; ++w)
      if (mesh.mBones[b]->mWeights[w].mWeight > 0)
        bones[mesh.mBones[b]->mWeights[w].mVertexId].push_back(static_cast<int>(b));
  return bones;
}

double height(const Points3& V) {
  return V.col(1).maxCoeff() - V.col(1).minCoeff();
}

// For each vertex of `a`, a vertex of `b` at its place (within 10 µm); empty when one has none.
std::vector<Eigen::Index> same_places(const Points3& a, const Points3& b) {
  std::vector<Eigen::Index> match(a.rows());
  for (Eigen::Index v = 0; v < a.rows(); ++v)
    if ((b.rowwise() - a.row(v)).rowwise().squaredNorm().minCoeff(&match[v]) > 1e-10) return {};
  return match;
}

}  // namespace

TEST(Skinning, CesiumManWalks) {
  TRYON_REQUIRE_SHARED("avatars/rigged_cesiumman/CesiumMan.glb");
  const auto start = std::chrono::steady_clock::now();
  const RawMotion raw = read_skinned_animation(cesium("glb"), 30);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(raw.frames.size(), 61u);  // 2 s at 30 fps, both ends
  ASSERT_EQ(raw.first.V.rows(), 2612);
  EXPECT_EQ(raw.first.F.rows(), 4672);
  for (const Points3& V : raw.frames) {
    ASSERT_EQ(V.rows(), raw.first.V.rows());
    ASSERT_TRUE(V.allFinite());
  }
  // The body moves: half a step in, the feet and hands have swung by far more than 5 cm.
  const Eigen::VectorXd moved = (raw.frames[15] - raw.frames[0]).rowwise().norm();
  EXPECT_GT(moved.maxCoeff(), 0.05);
  int feet_moved = 0;  // vertices in the lowest 10 cm
  for (Eigen::Index v = 0; v < moved.size(); ++v)
    if (raw.frames[0](v, 1) < raw.frames[0].col(1).minCoeff() + 0.1 && moved[v] > 0.05) ++feet_moved;
  EXPECT_GT(feet_moved, 10);
  std::cout << "CesiumMan.glb: " << raw.frames.size() << " frames of " << raw.first.V.rows()
            << " vertices read and skinned in " << ms << " ms; frame 15 is up to " << moved.maxCoeff()
            << " m from frame 0 (" << feet_moved << " foot vertices > 5 cm)\n";
  // A walk cycle: it ends as it starts.
  EXPECT_LT((raw.frames.back() - raw.frames.front()).cwiseAbs().maxCoeff(), 1e-4);
  const BodyMotion m = normalise_motion(raw, "cesium");
  EXPECT_GT(m.body.height_m, 1.4);
  EXPECT_LT(m.body.height_m, 1.6);
}

TEST(Skinning, CesiumManBindPoseIsReadMesh) {
  TRYON_REQUIRE_SHARED("avatars/rigged_cesiumman/CesiumMan.glb");
  for (const std::string ext : {"glb", "dae"}) {
    const TriMesh bind = read_skinned_bind_pose(cesium(ext));
    const TriMesh mesh = read_mesh(cesium(ext));
    ASSERT_EQ(bind.V.rows(), mesh.V.rows()) << ext;
    EXPECT_EQ(bind.F, mesh.F) << ext;
    EXPECT_LT((bind.V - mesh.V).cwiseAbs().maxCoeff(), 1e-5) << ext;
  }
}

TEST(Skinning, CesiumManRigidPartsKeepTheirShape) {
  TRYON_REQUIRE_SHARED("avatars/rigged_cesiumman/CesiumMan.glb");
  const RawMotion raw = read_skinned_animation(cesium("glb"), 30);
  const std::vector<std::vector<int>> bones = bones_of(cesium("glb"));
  ASSERT_EQ(bones.size(), static_cast<std::size_t>(raw.first.V.rows()));
  std::vector<int> bone;  // the one bone that carries the vertex whole, or -1
  for (const auto& b : bones) bone.push_back(b.size() == 1 ? b[0] : -1);
  int rigid = 0;
  double worst = 0;
  for (Eigen::Index f = 0; f < raw.first.F.rows(); ++f) {
    const int a = raw.first.F(f, 0), b = raw.first.F(f, 1), c = raw.first.F(f, 2);
    if (bone[a] < 0 || bone[a] != bone[b] || bone[a] != bone[c]) continue;
    ++rigid;
    for (const auto& [i, j] : {std::pair{a, b}, std::pair{b, c}, std::pair{c, a}}) {
      const double rest = (raw.frames[0].row(i) - raw.frames[0].row(j)).norm();
      for (const Points3& V : raw.frames)
        worst = std::max(worst, std::abs((V.row(i) - V.row(j)).norm() - rest) / rest);
    }
  }
  // The file's scale keys are 1 only to within 1.0e-6 (single precision): a part on a chain of
  // such joints is scaled by a few 1e-6 at most, and by nothing else.
  EXPECT_GT(rigid, 100);
  EXPECT_LT(worst, 3e-6);
}

// The DAE is Z up (COLLADA <up_axis>Z_UP</up_axis>); Assimp's COLLADA reader turns it Y up with
// a rotation on its root node, and the GLB (exported from the DAE by Assimp) carries that same
// root node: read through Assimp, both are in the same axes. The DAE's vertices are not shared
// between triangles (three a triangle), so each GLB vertex is matched to a DAE vertex at the
// same bind-pose position and followed through every frame.
// They differ where the DAE weighs a vertex by more than 4 bones (1071 of its 14016 vertices,
// up to 8 bones): glTF's JOINTS_0/WEIGHTS_0 hold 4, and the export kept 4 without renormalising
// them (their sum is down to 0.74 in the GLB). Those vertices move by up to about 2 cm
// differently; the vertices the GLB holds all the weights of move alike.
TEST(Skinning, CesiumManGlbAndDaeMoveAlike) {
  TRYON_REQUIRE_SHARED("avatars/rigged_cesiumman/CesiumMan.dae");
  TRYON_REQUIRE_SHARED("avatars/rigged_cesiumman/CesiumMan.glb");
  const RawMotion glb = read_skinned_animation(cesium("glb"), 30);
  const RawMotion dae = read_skinned_animation(cesium("dae"), 30);
  ASSERT_EQ(glb.frames.size(), dae.frames.size());
  EXPECT_EQ(dae.first.V.rows(), 3 * dae.first.F.rows());
  const std::vector<std::vector<int>> dae_bones = bones_of(cesium("dae"));
  const Points3 glb_bind = read_skinned_bind_pose(cesium("glb")).V;
  const std::vector<Eigen::Index> match = same_places(glb_bind, read_skinned_bind_pose(cesium("dae")).V);
  ASSERT_EQ(match.size(), static_cast<std::size_t>(glb_bind.rows())) << "a GLB vertex has no DAE vertex at its place";
  double worst_whole = 0, worst_cut = 0;
  int cut = 0;
  for (Eigen::Index v = 0; v < glb_bind.rows(); ++v) {
    const bool whole = dae_bones[match[v]].size() <= 4;
    cut += whole ? 0 : 1;
    for (std::size_t k = 0; k < glb.frames.size(); ++k) {
      const double d = (glb.frames[k].row(v) - dae.frames[k].row(match[v])).norm();
      (whole ? worst_whole : worst_cut) = std::max(whole ? worst_whole : worst_cut, d);
    }
  }
  for (std::size_t k = 0; k < glb.frames.size(); ++k)
    EXPECT_NEAR(height(glb.frames[k]), height(dae.frames[k]), 1e-3) << "frame " << k;
  EXPECT_GT(cut, 0);
  EXPECT_LT(worst_whole, 1e-5);
  EXPECT_LT(worst_cut, 0.03);
  std::cout << "GLB vs DAE: " << cut << " of " << glb_bind.rows()
            << " GLB vertices lost weights; apart by at most " << worst_whole << " m (all weights kept), "
            << worst_cut << " m (weights lost)\n";
}

TEST(Motion, LoadsCesiumManAsASkinnedAnimation) {
  TRYON_REQUIRE_SHARED("avatars/rigged_cesiumman/CesiumMan.glb");
  const BodyMotion m = load_motion(cesium("glb"));
  EXPECT_EQ(m.frames.size(), 61u);
  EXPECT_EQ(m.fps, 30);
  EXPECT_NEAR(m.duration_s(), 2.0, 1e-12);
  EXPECT_EQ(m.frames[0], m.body.mesh.V);
  EXPECT_GT(m.body.height_m, 1.4);
  EXPECT_LT(m.body.height_m, 1.6);
  MotionOptions o;
  o.fps = 10;
  o.first = 5;
  o.last = 15;
  const BodyMotion part = load_motion(cesium("glb"), o);
  EXPECT_EQ(part.frames.size(), 11u);
  EXPECT_EQ(part.fps, 10);
}

// FBX through Assimp: CesiumMan's GLB written as FBX by Assimp's own exporter. Assimp 5.2's
// FBX exporter is worked around where it loses the motion: its binary FBX is not read back by
// its importer ("block offset is out of range"), so the FBX is ASCII ("fbxa"); it writes a key's
// time in ticks as seconds (a glTF's keys, in ms, land 1000 times too late, past the animation's
// end, and the importer keeps the first only), so the keys are given in seconds; and it leaves
// out the transform of the scene's root node (the GLB's Z-up-to-Y-up turn), put back here.
// The frames are compared at the file's keys (24 a second): between them, the Euler angles it
// writes wrap at ±180° on a few joints, and FBX, which interpolates each angle, turns those
// joints a whole turn between two keys (Assimp's importer adds a key half way).
// The FBX's vertices are not shared between triangles; each GLB vertex is followed at the FBX
// vertex at its bind-pose place.
TEST(Skinning, CesiumManAsFbxMovesAsTheGlb) {
  TRYON_REQUIRE_SHARED("avatars/rigged_cesiumman/CesiumMan.glb");
  const fs::path fbx = temp_dir() / "CesiumMan.fbx";
  Eigen::Matrix4d root;
  {
    Assimp::Importer importer;
    ASSERT_TRUE(importer.ReadFile(cesium("glb").string(), 0)) << importer.GetErrorString();
    const std::unique_ptr<aiScene> scene(importer.GetOrphanedScene());
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) root(r, c) = scene->mRootNode->mTransformation[r][c];
    aiAnimation& anim = *scene->mAnimations[0];
    for (unsigned c = 0; c < anim.mNumChannels; ++c) {
      aiNodeAnim& ch = *anim.mChannels[c];
      for (unsigned k = 0; k < ch.mNumPositionKeys; ++k) ch.mPositionKeys[k].mTime /= anim.mTicksPerSecond;
      for (unsigned k = 0; k < ch.mNumRotationKeys; ++k) ch.mRotationKeys[k].mTime /= anim.mTicksPerSecond;
      for (unsigned k = 0; k < ch.mNumScalingKeys; ++k) ch.mScalingKeys[k].mTime /= anim.mTicksPerSecond;
    }
    anim.mDuration /= anim.mTicksPerSecond;
    anim.mTicksPerSecond = 1;
    Assimp::Exporter exporter;
    ASSERT_EQ(exporter.Export(scene.get(), "fbxa", fbx.string()), aiReturn_SUCCESS) << exporter.GetErrorString();
  }
  ASSERT_FALSE(root.isIdentity());
  const auto rooted = [&root](const Points3& V) -> Points3 {
    return (V * root.topLeftCorner<3, 3>().transpose()).rowwise() + root.topRightCorner<3, 1>().transpose();
  };
  const RawMotion glb = read_skinned_animation(cesium("glb"), 24);
  const RawMotion from_fbx = read_skinned_animation(fbx, 24);
  ASSERT_EQ(glb.frames.size(), 49u);
  ASSERT_EQ(from_fbx.frames.size(), glb.frames.size());
  EXPECT_EQ(from_fbx.first.F.rows(), glb.first.F.rows());
  const std::vector<Eigen::Index> match = same_places(read_skinned_bind_pose(cesium("glb")).V, rooted(from_fbx.rest));
  ASSERT_EQ(match.size(), static_cast<std::size_t>(glb.first.V.rows())) << "a GLB vertex has no FBX vertex at its place";
  double worst = 0;
  for (std::size_t k = 0; k < glb.frames.size(); ++k) {
    const Points3 V = rooted(from_fbx.frames[k]);
    for (Eigen::Index v = 0; v < glb.first.V.rows(); ++v)
      worst = std::max(worst, (glb.frames[k].row(v) - V.row(match[v])).norm());
  }
  std::cout << "CesiumMan as FBX: " << from_fbx.first.V.rows() << " vertices, " << from_fbx.frames.size()
            << " frames; at most " << worst << " m from the GLB's\n";
  EXPECT_LT(worst, 5e-4);  // the angles are written in degrees to 6 digits
}

// The animation asked for: a file of one animation refuses another, naming the one it has; a
// sequence of meshes is one motion.
TEST(Motion, RefusesAnAnimationTheFileDoesNotHave) {
  const fs::path dir = temp_dir();
  Gltf g = two_bone_scene();
  add_animation(g);
  g.write_gltf(dir / "bend.gltf");
  MotionOptions o;
  o.animation = 1;
  try {
    read_skinned_animation(dir / "bend.gltf", 30, 1);
    FAIL() << "animation 1 of a file of one was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no animation 1 (it has 1, numbered from 0: 0 'bend')"), std::string::npos)
        << e.what();
  }
  write_obj(dir / "frame_0.obj", read_mesh(test::assets() / "bodies/mean_all.obj"));
  std::ofstream(dir / "frames.txt") << "frame_0.obj\n";
  try {
    load_motion(dir / "frames.txt", o);
    FAIL() << "animation 1 of a mesh sequence was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a sequence of meshes, one motion"), std::string::npos) << e.what();
  }
}
