// `tryon view`: the fit viewer in a real browser (headless Chromium driven by playwright-core,
// web/test_viewer.mjs) on the bundled shirt's drape as one self-contained page and on a batch's
// output served by `tryon view --port 0`; bad folders refused. Screenshots are kept in
// BUILD/viewer_screens. Skips with a message when node, the npm packages or Chromium are missing.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

#include "body_frames.hpp"
#include "core/trimesh.hpp"
#include "gltf_validator.hpp"
#include "outputs/glb.hpp"
#include "outputs/scenes.hpp"
#include "run_tryon.hpp"
#include "test_data.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using tryon::test::fresh_dir;
using tryon::test::quoted;
using tryon::test::run_shell;
using tryon::test::run_tryon;
using tryon::Points3;
using tryon::TriMesh;

namespace {

fs::path screens(const std::string& name) { return fs::path(TRYON_BINARY_DIR) / "viewer_screens" / name; }

// Why the browser test cannot run here, or empty when it can.
std::string browser_missing() {
  const fs::path web = tryon::test::source_dir() / "web";
  if (!fs::exists(web / "node_modules" / "playwright-core")) return "web/node_modules not installed (npm ci --prefix web)";
  if (!fs::exists("/usr/bin/chromium")) return "Debian's chromium is not installed";
  if (run_shell("node --version >/dev/null 2>&1").status != 0) return "node is not installed";
  if (run_shell("node -e \"process.exit(+process.versions.node.split('.')[0] >= 20 ? 0 : 1)\"").status != 0)
    return "playwright-core needs node 20 or later";
  return {};
}

json browse(const std::string& url, const fs::path& shots) {
  const std::string cmd = "node " + quoted(tryon::test::source_dir() / "web" / "test_viewer.mjs") + " " + quoted(fs::path(url)) + " " +
                          quoted(shots) + " 2>&1";
  const auto r = run_shell(cmd);
  json out = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(out.is_discarded()) << r.out;
  return out.is_discarded() ? json::object() : out;
}

// `tryon view GLB_DIR --html` into DIR/page.html, opened in the browser: it loaded without a
// console error and shows one job (screenshots in BUILD/viewer_screens/SHOTS). The job, or an
// empty object when any of this failed.
json one_page(const fs::path& glb_dir, const fs::path& dir, const std::string& shots) {
  const auto view = run_tryon("view " + quoted(glb_dir) + " --html " + quoted(dir / "page.html"));
  EXPECT_EQ(view.code, 0) << view.err;
  if (view.code != 0) return json::object();
  const json out = browse("file://" + (dir / "page.html").string(), screens(shots));
  EXPECT_TRUE(out.value("loaded", false)) << out.dump(1);
  EXPECT_TRUE(out.value("errors", json::array()).empty()) << out.dump(1);
  const bool one = out.contains("shots") && out["shots"].size() == 1;
  EXPECT_TRUE(one) << out.dump(1);
  return one ? out["shots"][0] : json::object();
}

// What every loaded job must show: no console error, the vertex count, every fit map drawn on
// a picture that is not blank (garment and body cover part of it in many colours), the value under
// the cursor named for at least one map.
void expect_job_shown(const json& job, int vertices, const std::vector<std::string>& maps) {
  EXPECT_EQ(job["vertices"], vertices) << job.dump(1);
  std::vector<std::string> shown;
  bool probed = false;
  for (const json& shot : job["shots"]) {
    shown.push_back(shot["map"]);
    EXPECT_GT(shot["covered"].get<double>(), 0.05) << shot.dump();
    EXPECT_GT(shot["colours"].get<int>(), 20) << shot.dump();
    EXPECT_TRUE(fs::exists(shot["file"].get<std::string>()));
    probed |= shot["probe"].get<std::string>().find("panel ") != std::string::npos;
    const std::string legend = shot["legend"];
    if (shot["map"] == "strain") {
      EXPECT_NE(legend.find("STRAIN"), std::string::npos) << legend;
    }
    if (shot["map"] == "panels") {
      EXPECT_NE(legend.find(job["panels"][0].get<std::string>()), std::string::npos) << legend;
    }
  }
  EXPECT_EQ(shown, maps);
  EXPECT_TRUE(probed) << job.dump(1);
  EXPECT_NE(job["report"].get<std::string>().find("status"), std::string::npos);
}

}  // namespace

TEST(View, TheShirtsDrapeAsOneSelfContainedPageLoadsInHeadlessChromium) {
  const std::string missing = browser_missing();
  if (!missing.empty()) GTEST_SKIP() << missing;
  const fs::path dir = fresh_dir("view_page");
  const auto drape = run_tryon("drape " + quoted(tryon::test::assets() / "patterns/shirt_mean_specification.json") +
                               " --avatar " + quoted(tryon::test::assets() / "bodies/mean_all.obj") + " -o " +
                               quoted(dir / "shirt") + " --resolution-cm 3 --format glb --with-body --quiet");
  ASSERT_TRUE(drape.code == 0 || drape.code == 1) << drape.err;
  TRYON_EXPECT_VALID_GLTF(dir / "shirt" / "garment.glb");
  const json job = one_page(dir / "shirt", dir, "shirt");
  ASSERT_FALSE(job.empty());
  std::ifstream in(dir / "shirt" / "report.json");
  const json report = json::parse(in);
  expect_job_shown(job, report["mesh"]["vertices"].get<int>(), {"strain", "distance", "panels"});
  EXPECT_EQ(job["panels"].size(), 8u);  // the shirt's panels, named
  fs::remove_all(dir);
}

TEST(View, ABatchsOutputIsServedOnLoopbackAndBrowsedJobByJob) {
  const std::string missing = browser_missing();
  if (!missing.empty()) GTEST_SKIP() << missing;
  const fs::path dir = fresh_dir("view_batch");
  const fs::path skirt = tryon::test::assets() / "patterns/skirt_2_panels.json";
  const fs::path body = tryon::test::assets() / "bodies/mean_all.obj";
  std::ofstream(dir / "jobs.jsonl")
      << "{\"name\": \"coarse\", \"pattern\": \"" << skirt.string() << "\", \"avatar\": \"" << body.string()
      << "\", \"options\": {\"resolution_cm\": 6, \"max_frames\": 20, \"format\": \"glb\"}}\n"
      << "{\"name\": \"finer\", \"pattern\": \"" << skirt.string() << "\", \"avatar\": \"" << body.string()
      << "\", \"options\": {\"resolution_cm\": 4, \"max_frames\": 20, \"format\": \"glb\"}}\n";
  const auto batch = run_tryon("batch " + quoted(dir / "jobs.jsonl") + " -o " + quoted(dir / "out") + " --quiet");
  ASSERT_TRUE(batch.code == 0 || batch.code == 1) << batch.err;
  std::vector<int> vertices;
  for (const char* job : {"coarse", "finer"}) {
    TRYON_EXPECT_VALID_GLTF(dir / "out" / job / "garment.glb");
    std::ifstream in(dir / "out" / job / "report.json");
    vertices.push_back(json::parse(in)["mesh"]["vertices"].get<int>());
  }
  EXPECT_LT(vertices[0], vertices[1]);

  // The server, on a free port of 127.0.0.1; its first line names the address.
  const fs::path log = dir / "server.log";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string cmd = std::string("exec ") + TRYON_BIN + " view " + quoted(dir / "out") + " --port 0 > " + quoted(log) + " 2>&1";
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string url;
  for (int i = 0; i < 200 && url.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(log);
    std::string line;
    std::getline(in, line);
    const std::size_t at = line.find("http://127.0.0.1:");
    if (at != std::string::npos && line.find('/', at + 17) != std::string::npos)
      url = line.substr(at, line.find('/', at + 17) + 1 - at);
  }
  json out;
  if (!url.empty()) {
    // Only OUTDIR is served: paths out of it (sent as they are, not normalised by curl) are
    // refused, a file in it is served.
    auto status_of = [&](const std::string& path) {
      const auto r = run_shell("curl -s --path-as-is -o /dev/null -w '%{http_code}' '" + url + path + "' 2>/dev/null");
      return r.status == 0 ? r.out : std::string("no curl");
    };
    if (status_of("files/coarse/report.json") == "200") {
      for (const char* escape : {"files/../jobs.jsonl", "files/coarse/../../jobs.jsonl", "files/%2e%2e/jobs.jsonl"})
        EXPECT_EQ(status_of(escape), "404") << escape;
    }
    out = browse(url, screens("batch"));
  }
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_FALSE(url.empty()) << "the server did not say where it listens";
  EXPECT_TRUE(out.value("loaded", false)) << out.dump(1);
  EXPECT_TRUE(out["errors"].empty()) << out["errors"].dump(1);
  EXPECT_EQ(out["jobs"], json::array({"coarse", "finer"}));
  ASSERT_EQ(out["shots"].size(), 2u) << out.dump(1);
  for (int j = 0; j < 2; ++j) expect_job_shown(out["shots"][j], vertices[j], {"strain", "distance", "panels"});
  fs::remove_all(dir);
}

// A GLB with a motion (morph targets and their animation, outputs::GlbMotion) plays in the page:
// the picture changes while nothing else happens.
TEST(View, AGarmentsMotionPlays) {
  const std::string missing = browser_missing();
  if (!missing.empty()) GTEST_SKIP() << missing;
  const fs::path dir = fresh_dir("view_motion");
  // Two 30 × 40 cm panels sewn down the middle (tests/outputs/scenes.hpp), swinging 10 cm back
  // and forth.
  const tryon::test::TwoPanels t;
  const TriMesh& cloth = t.cloth;
  tryon::outputs::GlbMotion motion;
  for (int k = 0; k < 60; ++k) {
    Points3 frame = cloth.V;
    frame.col(2).array() += 0.1 * std::sin(2 * M_PI * k / 30.0) * (frame.col(1).array() - 0.8);
    frame.col(0).array() += 0.1 * std::sin(2 * M_PI * k / 30.0);
    motion.frames.push_back(frame);
  }
  tryon::outputs::GlbOptions o;
  o.panels = &t.panels;
  o.motion = &motion;
  fs::create_directories(dir / "swing");
  tryon::outputs::write_glb(dir / "swing" / "garment.glb", cloth, cloth.UV, {}, o);
  TRYON_EXPECT_VALID_GLTF(dir / "swing" / "garment.glb");
  const json job = one_page(dir / "swing", dir, "motion");
  ASSERT_FALSE(job.empty());
  EXPECT_EQ(job["animations"], 1);
  EXPECT_EQ(job.value("moving", false), true) << job.dump(1);
  EXPECT_EQ(job["vertices"], cloth.num_vertices());
  fs::remove_all(dir);
}

// The GLB of `tryon animate` (the shirt following the bundled body as it moves 2 cm a frame for
// 10 frames, the body's motion in it too) plays in the page with the body.
TEST(View, AGarmentFollowingAMovingBodyPlaysWithIt) {
  const std::string missing = browser_missing();
  if (!missing.empty()) GTEST_SKIP() << missing;
  const fs::path dir = fresh_dir("view_animate");
  tryon::test::write_body_frames(dir / "frames", 10, [](const Points3& V, int k, int) {
    Points3 out = V;
    out.col(0).array() += 0.02 * k;
    return out;
  });
  const auto r = run_tryon("animate " + quoted(tryon::test::assets() / "patterns/shirt_mean_specification.json") +
                           " --avatar " + quoted(dir / "frames") + " -o " + quoted(dir / "walk") +
                           " --resolution-cm 3 --with-body --threads 2 --quiet");
  ASSERT_TRUE(fs::exists(dir / "walk" / "garment.glb")) << r.err;
  const json job = one_page(dir / "walk", dir, "animate");
  ASSERT_FALSE(job.empty());
  EXPECT_EQ(job["animations"], 1);
  EXPECT_EQ(job.value("moving", false), true) << job.dump(1);
  std::ifstream in(dir / "walk" / "report.json");
  const json report = json::parse(in);
  EXPECT_EQ(job["vertices"], report["drape"]["mesh"]["vertices"]);
  fs::remove_all(dir);
}

TEST(View, FoldersWithoutAGlbAreRefused) {
  const fs::path dir = fresh_dir("view_bad");
  auto r = run_tryon("view " + quoted(dir / "no_such_folder") + " --html " + quoted(dir / "p.html"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no such folder"), std::string::npos) << r.err;
  std::ofstream(dir / "garment.obj") << "v 0 0 0\n";
  r = run_tryon("view " + quoted(dir) + " --html " + quoted(dir / "p.html"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--format glb"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "p.html"));
  r = run_tryon("view " + quoted(dir) + " --port 70000");
  EXPECT_EQ(r.code, 2) << r.err;
  fs::remove_all(dir);
}
