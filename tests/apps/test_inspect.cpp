// End-to-end tests of the `tryon` command line: exit codes, messages, JSON, output files.
#include <gtest/gtest.h>

#include <cstdio>
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
  const fs::path d = fs::temp_directory_path() / ("tryon_apps_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const fs::path kShirt = tryon::test::assets() / "patterns/shirt_mean_specification.json";
const fs::path kBody = tryon::test::assets() / "bodies/mean_all.obj";

}  // namespace

TEST(Inspect, SampleShirtOnSampleBodyAsJson) {
  const fs::path dir = temp_dir("sample");
  const CommandResult r = run("inspect " + q(kShirt) + " --avatar " + q(kBody) + " -o " + q(dir / "placed.obj") +
                    " --preview " + q(dir / "placed.png") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json doc = json::parse(r.out);
  for (const char* key : {"panels", "stitches", "vertices", "triangles", "min_angle_deg", "warnings", "errors"})
    EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_EQ(doc["panels"], 8);
  EXPECT_EQ(doc["stitches"], 18);
  EXPECT_GE(doc["min_angle_deg"].get<double>(), 20.0);
  EXPECT_TRUE(doc["errors"].empty());
  EXPECT_NEAR(doc["avatar"]["height_m"].get<double>(), 1.72, 0.01);
  // The OBJ holds every vertex, triangle and seam pair the JSON reports.
  std::ifstream obj(dir / "placed.obj");
  int v = 0, f = 0, l = 0;
  for (std::string line; std::getline(obj, line);) {
    v += line.rfind("v ", 0) == 0;
    f += line.rfind("f ", 0) == 0;
    l += line.rfind("l ", 0) == 0;
  }
  EXPECT_EQ(v, doc["vertices"].get<int>());
  EXPECT_EQ(f, doc["triangles"].get<int>());
  EXPECT_EQ(l, doc["seam_pairs"].get<int>());
  EXPECT_GT(fs::file_size(dir / "placed.png"), 1000u);
  fs::remove_all(dir);
}

TEST(Inspect, BadInputExitsWithTwoAndLeavesNoOutput) {
  const fs::path dir = temp_dir("bad");
  std::ofstream(dir / "empty.json").close();
  std::ofstream(dir / "truncated.json") << "{\"pattern\": {\"panels\": {\"a\": {\"vertices\": [[0,";
  std::ofstream(dir / "garbage.obj", std::ios::binary) << std::string("\x7f" "ELF\x02\x01\x01\0garbage", 16);
  struct Case {
    std::string args, fragment;
  };
  const std::vector<Case> cases{
      {"inspect " + q(dir / "missing.json"), "does not exist"},
      {"inspect " + q(dir), "is a directory"},
      {"inspect " + q(dir / "empty.json"), "not valid JSON"},
      {"inspect " + q(dir / "truncated.json"), "not valid JSON"},
      {"inspect " + q(kShirt) + " --avatar " + q(dir / "garbage.obj"), "garbage.obj"},
      {"inspect " + q(kShirt) + " --avatar " + q(dir / "missing.obj"), "does not exist"},
      {"inspect " + q(kShirt) + " --resolution-cm 0", "resolution-cm"},
      {"inspect " + q(kShirt) + " --resolution-cm abc", "resolution-cm"},
      {"inspect", "pattern"},
      {"frobnicate", "frobnicate"},
  };
  for (const Case& c : cases) {
    const CommandResult r = run(c.args + " -o " + q(dir / "out.obj"));
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.fragment), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(dir / "out.obj")) << c.args;
  }
  // With --json the errors are in the document too.
  const CommandResult r = run("inspect " + q(dir / "truncated.json") + " --json");
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(json::parse(r.out)["errors"].empty());
  fs::remove_all(dir);
}

TEST(Inspect, EverySharedPatternOnGarmentCodeAndMakeHumanBodies) {
  TRYON_REQUIRE_SHARED("patterns/garmentcode/specs");
  const fs::path data = tryon::test::shared_data();
  std::vector<fs::path> patterns;
  for (const char* folder : {"patterns/garmentcode/specs", "patterns/garmentcode_gpg/templates"})
    for (const auto& e : fs::recursive_directory_iterator(data / folder))
      if (e.path().extension() == ".json") patterns.push_back(e.path());
  ASSERT_EQ(patterns.size(), 21u);
  for (const char* body : {"avatars/garmentcode/mean_all.obj", "avatars/makehuman/derived/makehuman_female.obj"})
    for (const fs::path& p : patterns) {
      const CommandResult r = run("inspect " + q(p) + " --avatar " + q(data / body) + " --json --resolution-cm 1.5");
      ASSERT_EQ(r.code, 0) << p << " on " << body << "\n" << r.err;
      const json doc = json::parse(r.out);
      EXPECT_GE(doc["min_angle_deg"].get<double>(), 20.0) << p;
      EXPECT_TRUE(doc["errors"].empty());
    }
}

// DXF patterns: every shared file inspects; the tank lists its pieces, sizes and notches in
// cm and proposes seams that, saved with --write-seams and edited, are read back with --seams.
TEST(Inspect, DxfPiecesSizesSeamProposalAndSeamFiles) {
  TRYON_REQUIRE_SHARED("patterns/dxf/WM_SLIM_TANK.DXF");
  const fs::path data = tryon::test::shared_data() / "patterns/dxf";
  for (const auto& e : fs::directory_iterator(data)) {
    if (e.path().extension() == ".md") continue;
    const CommandResult r = run("inspect " + q(e.path()) + " --json --resolution-cm 3");
    EXPECT_EQ(r.code, 0) << e.path() << "\n" << r.err;
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["format"], "dxf");
    EXPECT_FALSE(doc["dxf"]["sizes"].empty()) << e.path();
  }
  const fs::path dir = temp_dir("dxf");
  const CommandResult r = run("inspect " + q(data / "WM_SLIM_TANK.DXF") + " --avatar " + q(kBody) + " --json --write-seams " +
                              q(dir / "tank.seams.json") + " --preview " + q(dir / "placed.png"));
  ASSERT_EQ(r.code, 0) << r.err;
  const json doc = json::parse(r.out);
  const json& d = doc["dxf"];
  EXPECT_EQ(d["units"], "ENGLISH");
  EXPECT_EQ(d["size"], "36");
  EXPECT_EQ(d["sizes"].size(), 14u);
  ASSERT_EQ(d["pieces"].size(), 2u);
  for (const json& p : d["pieces"]) {
    EXPECT_NEAR(p["width_cm"].get<double>(), 62.7, 0.5);  // along the grain, before unfolding
    EXPECT_FALSE(p["notches"].empty());
    EXPECT_TRUE(p["fold_line"].get<bool>());
  }
  EXPECT_EQ(d["seams_source"], "proposed");
  EXPECT_EQ(d["seams"]["seams"].size(), 4u);
  EXPECT_EQ(doc["stitches"], 4);
  EXPECT_TRUE(fs::exists(dir / "placed.png"));
  // The saved proposal, with one seam removed, is what the next run sews.
  json seams = json::parse(std::ifstream(dir / "tank.seams.json"));
  EXPECT_EQ(seams, d["seams"]);
  seams["seams"].erase(seams["seams"].begin());
  std::ofstream(dir / "edited.json") << seams.dump();
  const CommandResult r2 = run("inspect " + q(data / "WM_SLIM_TANK.DXF") + " --json --seams " + q(dir / "edited.json"));
  ASSERT_EQ(r2.code, 0) << r2.err;
  EXPECT_EQ(json::parse(r2.out)["stitches"], 3);
  // A bad seam file, an unknown size and hostile DXF are bad input (exit 2), named.
  std::ofstream(dir / "bad.json") << R"({"seams": [{"a": {"panel": "NOPE", "from": "c0", "to": "c1"}, "b": {}}]})";
  std::ofstream(dir / "hostile.dxf") << "0\nSECTION\n2\nBLOCKS\n0\nBLOCK\n2\nX_M\n0\nPOINT\n8\n1\n10\nnan\n";
  const std::vector<std::pair<std::string, std::string>> bad{
      {"--seams " + q(dir / "bad.json"), "NOPE"},
      {"--size XXL", "no size 'XXL'"},
  };
  for (const auto& [args, fragment] : bad) {
    const CommandResult b = run("inspect " + q(data / "WM_SLIM_TANK.DXF") + " " + args);
    EXPECT_EQ(b.code, 2) << args;
    EXPECT_NE(b.err.find(fragment), std::string::npos) << b.err;
  }
  const CommandResult h = run("inspect " + q(dir / "hostile.dxf"));
  EXPECT_EQ(h.code, 2);
  EXPECT_NE(h.err.find("hostile.dxf"), std::string::npos) << h.err;
  fs::remove_all(dir);
}
