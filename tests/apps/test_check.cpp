// `tryon check` on single cloth meshes: a verdict line, motion judged only with --previous, exit
// codes.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_tryon.hpp"
#include "test_data.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using tryon::test::CommandResult;

CommandResult run(const std::string& args) { return tryon::test::run_tryon(args); }

std::string q(const fs::path& p) { return tryon::test::quoted(p); }

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("tryon_check_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const fs::path kBody = tryon::test::assets() / "bodies/mean_all.obj";

/// A 0.8 × 0.8 m square of cloth in 16 × 16 squares, centred on `centre`, horizontal (normal y)
/// or upright facing z, written as an OBJ in the body's frame.
using P3 = std::array<double, 3>;
void write_square(const fs::path& path, const P3& centre, bool horizontal) {
  std::ofstream o(path);
  constexpr int n = 16;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j) {
      const double u = 0.8 * i / n - 0.4, v = 0.8 * j / n - 0.4;
      o << "v " << centre[0] + u << ' ' << centre[1] + (horizontal ? 0 : v) << ' ' << centre[2] + (horizontal ? v : 0)
        << '\n';
    }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const int a = i * (n + 1) + j + 1, b = a + 1, c = a + n + 1, d = c + 1;
      o << "f " << a << ' ' << c << ' ' << b << "\nf " << b << ' ' << c << ' ' << d << '\n';
    }
}

/// The body's bounding box in its frame (feet at y = 0), from `tryon inspect --json`.
struct Box {
  P3 min, max;
  P3 centre() const { return {(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2}; }
};
Box body_box() {
  const CommandResult r =
      run("inspect " + q(tryon::test::source_dir() / "tests/hostile/patterns/valid_two_squares.json") + " --avatar " +
          q(kBody) + " --json");
  EXPECT_EQ(r.code, 0) << r.err;
  const json a = json::parse(r.out)["avatar"];
  Box b;
  for (int k = 0; k < 3; ++k) b.min[k] = a["bbox_min"][k].get<double>(), b.max[k] = a["bbox_max"][k].get<double>();
  return b;
}

}  // namespace

TEST(Check, OneMeshAloneIsJudgedWithoutMotionAndSaysSo) {
  const fs::path dir = temp_dir("alone");
  const Box box = body_box();
  const P3 centre = box.centre();
  // Upright, half a metre in front of the body: touches nothing.
  write_square(dir / "apart.obj", {centre[0], 1.0, box.max[2] + 0.5}, false);
  const CommandResult r = run("check " + q(dir / "apart.obj") + " --avatar " + q(kBody));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json doc = json::parse(r.out);
  EXPECT_TRUE(doc["clean"].get<bool>());
  EXPECT_EQ(doc["verdict"], "clean");
  EXPECT_EQ(doc["motion"], "not judged (no --previous)");
  EXPECT_TRUE(doc["failures"].empty());
  EXPECT_TRUE(doc["quality"]["moving_fraction"].is_null());
  EXPECT_NE(r.err.find("check: apart.obj on mean_all.obj: clean (motion not judged: no --previous)"), std::string::npos)
      << r.err;
  fs::remove_all(dir);
}

TEST(Check, MotionIsJudgedWithPrevious) {
  const fs::path dir = temp_dir("previous");
  const Box box = body_box();
  const P3 centre = box.centre();
  write_square(dir / "now.obj", {centre[0], 1.0, box.max[2] + 0.5}, false);
  write_square(dir / "moved.obj", {centre[0], 1.01, box.max[2] + 0.5}, false);  // 1 cm in 1/60 s

  CommandResult r = run("check " + q(dir / "now.obj") + " --avatar " + q(kBody) + " --previous " + q(dir / "now.obj"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["motion"], "static");
  EXPECT_EQ(doc["quality"]["moving_fraction"].get<double>(), 0.0);
  EXPECT_NE(r.err.find("check: now.obj on mean_all.obj: clean (at rest)"), std::string::npos) << r.err;

  r = run("check " + q(dir / "now.obj") + " --avatar " + q(kBody) + " --previous " + q(dir / "moved.obj"));
  ASSERT_EQ(r.code, 1) << r.out << r.err;
  doc = json::parse(r.out);
  EXPECT_FALSE(doc["clean"].get<bool>());
  EXPECT_EQ(doc["verdict"], "not clean");
  EXPECT_EQ(doc["motion"], "moving");
  EXPECT_EQ(doc["failures"], json::array({"not_static"}));
  EXPECT_NE(r.err.find("NOT clean: still moving (100.0 % of vertices moved over 0.3 mm)"), std::string::npos)
      << r.err;
  fs::remove_all(dir);
}

TEST(Check, ClothThroughTheBodyIsNotCleanAndTheLineSaysWhy) {
  const fs::path dir = temp_dir("through");
  const Box box = body_box();
  const P3 centre = box.centre();
  // Horizontal, across the chest: through the body.
  write_square(dir / "through.obj", {centre[0], 1.2, centre[2]}, true);
  const CommandResult r = run("check " + q(dir / "through.obj") + " --avatar " + q(kBody));
  ASSERT_EQ(r.code, 1) << r.out << r.err;
  const json doc = json::parse(r.out);
  EXPECT_FALSE(doc["clean"].get<bool>());
  EXPECT_EQ(doc["motion"], "not judged (no --previous)");
  EXPECT_GT(doc["quality"]["body_intersections"].get<int>(), 0);
  ASSERT_FALSE(doc["failures"].empty());
  EXPECT_EQ(doc["failures"][0], "body_intersection");
  for (const auto& f : doc["failures"]) EXPECT_NE(f, "not_static");
  EXPECT_NE(r.err.find("check: through.obj on mean_all.obj: NOT clean: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cloth edges through the body"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(motion not judged: no --previous)"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

TEST(Check, BadInputIsExitTwo) {
  const fs::path dir = temp_dir("bad");
  CommandResult r = run("check " + q(dir / "missing.obj") + " --avatar " + q(kBody));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("missing.obj"), std::string::npos) << r.err;
  write_square(dir / "a.obj", {0, 1, 1}, false);
  std::ofstream(dir / "other.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  r = run("check " + q(dir / "a.obj") + " --avatar " + q(kBody) + " --previous " + q(dir / "other.obj"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("other.obj"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

TEST(Check, HelpSaysMotionNeedsPrevious) {
  const CommandResult r = run("check --help");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("--previous TEXT"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("without it, motion is not judged"), std::string::npos) << r.out;
}
