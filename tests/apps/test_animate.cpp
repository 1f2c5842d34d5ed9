// tryon animate and animate(): a garment draped on a motion's first frame follows the body.
// The motions are mesh sequences of the bundled body, written or built by the tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "avatars/motion.hpp"
#include "body_frames.hpp"
#include "core/mesh_io.hpp"
#include "garments/pattern_loader.hpp"
#include "gltf_builder.hpp"
#include "gltf_validator.hpp"
#include "run_tryon.hpp"
#include "test_data.hpp"
#include "tryon/animate.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using tryon::test::quoted;
using tryon::test::run_tryon;

namespace {

fs::path body_file() { return tryon::test::bundled_body(); }
fs::path shirt() { return tryon::test::assets() / "patterns/shirt_mean_specification.json"; }

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("tryon_animate_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

// The body at frame k of n: turned about +Y by up to 30° and moved 0.5 m along +X, eased in
// and out (speed 0 at both ends).
tryon::Points3 turned_and_moved(const tryon::Points3& V, int k, int n) {
  const double s = static_cast<double>(k) / (n - 1), e = s * s * (3 - 2 * s);
  const double a = 30.0 * M_PI / 180.0 * e;
  tryon::Mat3 R;
  R << std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a);
  tryon::Points3 out = V * R.transpose();
  out.col(0).array() += 0.5 * e;
  return out;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// The JSON chunk of a GLB [glTF 2.0, 4.4].
json glb_json(const fs::path& p) {
  const std::string bytes = tryon::test::read_file(p);
  std::uint32_t len = 0;
  std::memcpy(&len, bytes.data() + 12, 4);
  return json::parse(bytes.substr(20, len));
}

}  // namespace

// The shirt at 3 cm on the bundled body, which turns 30° and walks 0.5 m in one second: every
// frame clean by the motion's rule, and the garment goes with the body.
TEST(Animate, ShirtFollowsABodyThatTurnsAndWalksAway) {
  const tryon::TriMesh mesh = tryon::read_mesh(body_file());
  tryon::avatars::RawMotion raw;
  raw.first = mesh;
  raw.fps = 15;
  raw.source = "turn and walk";
  for (int k = 0; k < 16; ++k) raw.frames.push_back(turned_and_moved(mesh.V, k, 16));
  const tryon::avatars::BodyMotion motion = tryon::avatars::normalise_motion(raw, "mean_all");
  tryon::AnimateOptions o;
  o.drape.resolution_cm = 3;
  const tryon::AnimateResult r =
      tryon::animate(tryon::garments::load_pattern(shirt()).pattern, motion, o);
  ASSERT_TRUE(r.drape.clean) << r.drape.report["failures"].dump();
  ASSERT_EQ(r.frames.size(), 16u);
  EXPECT_TRUE(r.clean) << r.report["failures"].dump() << "\nworst: " << r.report["worst_frame"].dump();
  for (const auto& f : r.quality) {
    EXPECT_EQ(f.quality.body_intersections, 0) << "frame " << f.frame;
    EXPECT_EQ(f.quality.vertices_inside_body, 0) << "frame " << f.frame;
    EXPECT_LT(f.quality.seam_gap_max_m, 1e-3) << "frame " << f.frame;
  }
  // The garment's centre moved as the body's did (the body's own centre: 0.5 m along x, and
  // turned; its centre of mass may lie off the axis it turns about).
  const tryon::Vec3 body_moved =
      (motion.frames.back().colwise().mean() - motion.frames.front().colwise().mean()).transpose();
  const tryon::Vec3 garment_moved = (r.frames.back().colwise().mean() - r.frames.front().colwise().mean()).transpose();
  EXPECT_NEAR(body_moved.x(), 0.5, 0.05);
  EXPECT_LT((garment_moved - body_moved).norm(), 0.03) << garment_moved.transpose() << " vs " << body_moved.transpose();
  EXPECT_EQ(r.report["motion"]["frames_clean"], 16);
  // Steps follow the body's speed frame by frame: it sets off and stops slowly (at least the
  // drape's substeps), and is fastest halfway.
  const int steps_max = r.report["motion"]["steps_per_frame"];
  EXPECT_GT(steps_max, o.drape.substeps);
  const auto fastest = std::max_element(r.quality.begin(), r.quality.end(),
                                        [](const auto& a, const auto& b) { return a.steps < b.steps; });
  EXPECT_EQ(fastest->steps, steps_max);
  EXPECT_NEAR(fastest->frame, 8, 1);
  EXPECT_LT(r.quality[1].steps, steps_max);
  EXPECT_LT(r.quality.back().steps, steps_max);
  for (std::size_t k = 1; k < r.quality.size(); ++k) EXPECT_GE(r.quality[k].steps, o.drape.substeps) << k;
}

// The command line: a motion of three frames (the body standing still), the GLB with a morph
// target per frame on every garment mesh and on the body, valid; a picture every second frame.
TEST(Animate, WritesTheMotionAsMorphTargetsWithTheBodyAndPreviews) {
  const fs::path frames = temp_dir("frames"), out = temp_dir("out");
  tryon::test::write_body_frames(frames, 3, [](const tryon::Points3& V, int, int) { return V; });
  const auto r = run_tryon("animate " + quoted(shirt()) + " --avatar " + quoted(frames) + " -o " + quoted(out) +
                           " --resolution-cm 3 --with-body --preview --preview-every 2 --threads 2 --quiet");
  ASSERT_EQ(r.code, 0) << r.err << (fs::exists(out / "report.json") ? read_json(out / "report.json")["failures"].dump() : "");
  for (const char* f : {"garment.glb", "report.json", "preview_0000.png", "preview_0002.png"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  EXPECT_FALSE(fs::exists(out / "preview_0001.png"));
  const json report = read_json(out / "report.json");
  EXPECT_EQ(report["status"], "ok");
  EXPECT_EQ(report["frames"].size(), 3u);
  EXPECT_EQ(report["motion"]["frames_written"], 3);
  const json doc = glb_json(out / "garment.glb");
  ASSERT_EQ(doc["animations"].size(), 1u);
  std::set<std::string> animated;
  for (const json& ch : doc["animations"][0]["channels"]) animated.insert(doc["nodes"][ch["target"]["node"].get<int>()]["name"]);
  EXPECT_TRUE(animated.count("body"));
  EXPECT_TRUE(animated.count("seams"));
  for (const json& mesh : doc["meshes"]) EXPECT_EQ(mesh["primitives"][0]["targets"].size(), 3u) << mesh["name"];
  TRYON_EXPECT_VALID_GLTF(out / "garment.glb");
  fs::remove_all(frames);
  fs::remove_all(out);
}

// Bad motions are refused before anything is draped or written, with the problem named.
TEST(Animate, BadMotionsAreRefusedWithNothingWritten) {
  const fs::path frames = temp_dir("bad"), out = temp_dir("bad_out");
  tryon::test::write_body_frames(frames, 2, [](const tryon::Points3& V, int, int) { return V; });
  struct Case {
    std::string args, message;
  };
  const fs::path odd = frames / "frame_009.obj";  // a frame of another mesh
  std::ofstream(odd) << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\nf 1 4 2\nf 2 4 3\n";
  tryon::test::morph_scene({0, 0, std::nanf(""), 0, 0, 1}).write_glb(frames / "nan_weight.glb");
  tryon::test::morph_scene().write_glb(frames / "two_animations.glb");
  const std::vector<Case> cases = {
      {"--avatar " + quoted(frames), "the frames of a motion share one mesh"},
      {"--avatar " + quoted(frames / "nan_weight.glb"), "non-finite weight"},
      {"--avatar " + quoted(frames / "two_animations.glb") + " --animation 2",
       "no animation 2 (it has 2, numbered from 0: 0 'wave', 1 'rise')"},
      {"--avatar " + quoted(frames) + " --animation 1", "a sequence of meshes, one motion"},
      {"--avatar " + quoted(frames) + " --frames 1:5", "not within the motion"},
      {"--avatar " + quoted(frames) + " --frames x:1", "not a frame number"},
      {"--avatar " + quoted(frames / "missing"), "does not exist"},
      {"--avatar " + quoted(frames) + " --fps 0", "fps"},
  };
  for (std::size_t k = 0; k < cases.size(); ++k) {
    SCOPED_TRACE(cases[k].args);
    if (k == 1) fs::remove(odd);
    const auto r = run_tryon("animate " + quoted(shirt()) + " " + cases[k].args + " -o " + quoted(out) + " --quiet");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(cases[k].message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  fs::remove_all(frames);
}

// A CMU clip (01_01, forward jumps) on the MakeHuman body through its rig: the shirt at 3 cm is
// draped on the rest pose, blended over half a second into the clip's frame 30 and follows it
// for half a second, clean on every frame.
TEST(Animate, ShirtFollowsACmuClipOnAMakehumanBody) {
  TRYON_REQUIRE_SHARED("avatars/motion_cmu/01_01.bvh");
  TRYON_REQUIRE_SHARED("avatars/makehuman/rig/default.mhskel");
  const fs::path mh = tryon::test::shared_data() / "avatars/makehuman", out = temp_dir("cmu");
  const auto r = run_tryon("animate " + quoted(shirt()) + " --avatar " + quoted(mh / "derived/makehuman_female.obj") +
                           " --motion " + quoted(tryon::test::shared_data() / "avatars/motion_cmu/01_01.bvh") +
                           " --rig " + quoted(mh / "rig") + " --base-mesh " + quoted(mh / "raw/base.obj") +
                           " --frames 30:45 --blend-in 15 -o " + quoted(out) + " --resolution-cm 3 --threads 2 --quiet");
  ASSERT_TRUE(fs::exists(out / "report.json")) << r.err;
  const json report = read_json(out / "report.json");
  EXPECT_EQ(r.code, 0) << report["failures"].dump() << "\nworst: " << report["worst_frame"].dump();
  EXPECT_EQ(report["motion"]["frames"], 31);  // 15 blending in, then frames 30 to 45
  EXPECT_EQ(report["motion"]["frames_clean"], 31);
  fs::remove_all(out);
}
