// A body moved by morph targets (read_morph_animation, load_motion): a triangle whose weights
// are checked by hand, and a body motion written by tryon's own GLB writer read back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "avatars/morph_motion.hpp"
#include "avatars/motion.hpp"
#include "core/error.hpp"
#include "core/mesh_io.hpp"
#include "gltf_builder.hpp"
#include "outputs/glb.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::avatars;
namespace fs = std::filesystem;
using json = nlohmann::json;
using tryon::test::Gltf;
using tryon::test::morph_scene;

namespace {

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / ("tryon_morph_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// The message of the InputError `read` throws ("" when it throws none).
template <typename Read>
std::string refusal(Read read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Where the morphing triangle's vertex v is with weights (a, b), its node at `node`.
Vec3 morphed(int v, double a, double b, const Vec3& node) {
  const Vec3 base(v == 1 ? 1 : 0, v == 2 ? 1 : 0, 0);
  return base + a * Vec3(0, 0, 1) + b * Vec3(1, 0, 0) + node;
}

// The bundled body, frame k moved 3 cm a frame along x and 1 cm up, and its arms (|x| > 0.25 m
// in the file) 2 cm a frame forward: a motion in the design's frame as load_motion makes one.
BodyMotion bundled_body_moving(int frames) {
  const TriMesh body = read_mesh(test::assets() / "bodies/mean_all.obj");
  RawMotion raw;
  raw.first = body;
  raw.fps = 10;
  raw.source = "moving";
  for (int k = 0; k < frames; ++k) {
    Points3 V = body.V;
    V.col(0).array() += 0.03 * k;
    V.col(1).array() += 0.01 * k;
    for (Eigen::Index v = 0; v < V.rows(); ++v)
      if (std::abs(body.V(v, 0)) > 0.25) V(v, 2) += 0.02 * k;
    raw.frames.push_back(V);
  }
  return normalise_motion(raw, "moving");
}

// The motion written as `tryon animate --with-body` writes it: a garment (here a triangle standing
// still, its one panel named "body" as the body's node is) and the body, a morph target a frame on
// each (outputs/glb.hpp).
void write_tryon_glb(const fs::path& path, const BodyMotion& m, bool with_body) {
  const TriMesh garment{(Points3(3, 3) << 0, 1, 0.3, 0.1, 1, 0.3, 0, 1.1, 0.3).finished(),
                        (Triangles(1, 3) << 0, 1, 2).finished(), {}};
  const outputs::GlbPanels panels{{0}, {"body"}, {}, Segments(0, 2), {}};
  outputs::GlbMotion motion;
  motion.frames.assign(m.frames.size(), garment.V);
  motion.fps = m.fps;
  if (with_body) motion.body_frames = m.frames;
  outputs::GlbOptions o;
  o.body = with_body ? &m.body.mesh : nullptr;
  o.panels = &panels;
  o.motion = &motion;
  outputs::write_glb(path, garment, Points2(0, 2), {}, o);
}

double max_distance(const Points3& a, const Points3& b) { return (a - b).rowwise().norm().maxCoeff(); }

}  // namespace

TEST(MorphMotion, TriangleFollowsItsWeightsAndItsNode) {
  const fs::path path = temp_dir() / "wave.gltf";
  morph_scene().write_gltf(path);
  ASSERT_TRUE(has_morph_targets(path));
  const RawMotion raw = read_morph_animation(path, 2);
  ASSERT_EQ(raw.frames.size(), 5u);  // 0, 0.5, 1, 1.5, 2 s
  ASSERT_EQ(raw.first.V.rows(), 6);  // both meshes, merged
  EXPECT_EQ(raw.first.F.rows(), 2);
  const double a[] = {0, 0.5, 1, 0.5, 0}, b[] = {0, 0, 0, 0.5, 1};
  for (int k = 0; k < 5; ++k)
    for (int v = 0; v < 3; ++v) {
      EXPECT_LT((raw.frames[k].row(v).transpose() - morphed(v, a[k], b[k], {0, 0, 5})).norm(), 1e-6) << k << " " << v;
      EXPECT_LT((raw.frames[k].row(3 + v).transpose() - morphed(v, 0, 0, {0, 0, -5})).norm(), 1e-6) << k << " " << v;
    }
  // Spelled out: at 1.5 s the triangle's corner (1, 0, 0) is half way up and half way right.
  EXPECT_LT((raw.frames[3].row(1) - Eigen::RowVector3d(1.5, 0, 5.5)).norm(), 1e-6);
  ASSERT_EQ(raw.rest.rows(), 6);  // every weight 0, on the nodes
  for (int v = 0; v < 3; ++v) EXPECT_LT((raw.rest.row(v).transpose() - morphed(v, 0, 0, {0, 0, 5})).norm(), 1e-6);
  // 2 s at 2.4 fps: round(4.8) + 1 = 6 frames, the last (at 2.08 s) held at the end.
  const RawMotion held = read_morph_animation(path, 2.4);
  ASSERT_EQ(held.frames.size(), 6u);
  EXPECT_LT((held.frames.back().row(0).transpose() - morphed(0, 0, 1, {0, 0, 5})).norm(), 1e-6);
}

TEST(MorphMotion, PlaysTheAnimationAskedFor) {
  const fs::path path = temp_dir() / "two_animations.glb";
  morph_scene().write_glb(path);
  const RawMotion rise = read_morph_animation(path, 4, 1);
  ASSERT_EQ(rise.frames.size(), 5u);  // 1 s at 4 fps
  for (int k = 0; k < 5; ++k)
    EXPECT_LT((rise.frames[k].row(2).transpose() - morphed(2, 0, 1, {0, 0.5 * k, 5})).norm(), 1e-6) << k;
  const std::string message = refusal([&] { read_morph_animation(path, 4, 2); });
  EXPECT_NE(message.find("no animation 2 (it has 2, numbered from 0: 0 'wave', 1 'rise')"), std::string::npos)
      << message;
}

// A body motion written by tryon's GLB writer (the garment beside the body) reads back as the
// body alone, its frames as written (float positions), and load_motion gives back the motion.
TEST(MorphMotion, ReadsBackTheBodyTryonWrote) {
  const BodyMotion written = bundled_body_moving(5);
  const fs::path path = temp_dir() / "garment.glb";
  write_tryon_glb(path, written, true);
  const RawMotion raw = read_morph_animation(path, written.fps);
  ASSERT_EQ(raw.frames.size(), written.frames.size());
  ASSERT_EQ(raw.first.V.rows(), written.body.mesh.V.rows());  // the body only, not the garment
  EXPECT_EQ(raw.first.F, written.body.mesh.F);
  for (std::size_t k = 0; k < raw.frames.size(); ++k)
    EXPECT_LT(max_distance(raw.frames[k], written.frames[k]), 1e-6) << "frame " << k;
  EXPECT_LT(max_distance(raw.rest, written.body.mesh.V), 1e-6);  // the base: frame 0 as written
  MotionOptions o;
  o.fps = written.fps;
  const BodyMotion back = load_motion(path, o);
  ASSERT_EQ(back.frames.size(), written.frames.size());
  EXPECT_NEAR(back.body.height_m, written.body.height_m, 1e-6);
  for (std::size_t k = 0; k < back.frames.size(); ++k)
    EXPECT_LT(max_distance(back.frames[k], written.frames[k]), 1e-6) << "frame " << k;
  EXPECT_NEAR((back.frames[4] - back.frames[0]).col(0).mean(), 0.12, 1e-6);  // 3 cm a frame along x
  o.animation = 1;
  const std::string message = refusal([&] { load_motion(path, o); });
  EXPECT_NE(message.find("no animation 1 (it has 1, numbered from 0: 0 'motion')"), std::string::npos) << message;
}

TEST(MorphMotion, RefusesWhatIsNotABodyMovedByItsTargets) {
  const fs::path dir = temp_dir();
  struct Case {
    std::string name, message;
  };
  std::vector<Case> cases;
  write_tryon_glb(dir / "garment_only.glb", bundled_body_moving(2), false);
  cases.push_back({"garment_only.glb", "written by tryon without the body"});
  Gltf short_target = morph_scene();  // target 1 has 2 positions for 3 vertices
  short_target.doc["meshes"][0]["primitives"][0]["targets"][1]["POSITION"] =
      short_target.accessor(std::vector<float>{1, 0, 0, 1, 0, 0}, "VEC3", 3, true);
  short_target.write_glb(dir / "short_target.glb");
  cases.push_back({"short_target.glb", "morph target 1 has 2 positions for 3 vertices"});
  morph_scene({0, 0, std::numeric_limits<float>::quiet_NaN(), 0, 0, 1}).write_gltf(dir / "nan.gltf");
  cases.push_back({"nan.gltf", "key 1 has a non-finite weight"});
  Gltf still = morph_scene();
  still.doc.erase("animations");
  still.write_glb(dir / "no_animation.glb");
  cases.push_back({"no_animation.glb", "has morph targets but no animation of their weights"});
  Gltf rigid = morph_scene();  // animation "rise" without its weights channel
  rigid.doc["animations"] = {rigid.doc["animations"][1]};
  rigid.doc["animations"][0]["channels"].erase(0);
  rigid.write_glb(dir / "rigid.glb");
  cases.push_back({"rigid.glb", "animation 'rise' weighs no morph target of the body"});
  Gltf cubic = morph_scene();  // in-tangent, value, out-tangent a key and target
  cubic.doc["animations"][0]["samplers"][0]["interpolation"] = "CUBICSPLINE";
  cubic.doc["animations"][0]["samplers"][0]["output"] =
      cubic.accessor(std::vector<float>{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0}, "SCALAR", 1);
  cubic.write_gltf(dir / "cubic.gltf");
  cases.push_back({"cubic.gltf", "have 4 values a key for 2 targets, as Assimp reads a CUBICSPLINE sampler"});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string message = refusal([&] { load_motion(dir / c.name); });
    EXPECT_NE(message.find(c.message), std::string::npos) << message;
  }
}
