// Every input a fuzzer turned up (tests/fuzz/regressions/<target>/, one file each, named after
// what it broke) and the hostile corpus (tests/hostile/) go through the fuzz targets' bodies: each
// must be read or refused with InputError. Under scripts/sanitize.sh the same run is checked by
// AddressSanitizer and UndefinedBehaviorSanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/targets.hpp"
#include "test_data.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<fs::path> files_in(const fs::path& dir, const std::string& ext = "") {
  std::vector<fs::path> files;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && e.path().filename() != "README.md" && (ext.empty() || e.path().extension() == ext))
        files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// Runs `target` on each input; none may throw, and each must finish within `max_s` seconds.
template <class F>
int replay(const std::vector<fs::path>& inputs, F target, const std::string& prefix = "", double max_s = 10) {
  tryon::fuzz::quiet();
  for (const fs::path& p : inputs) {
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_NO_THROW(target(prefix + read_bytes(p))) << p;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), max_s) << p;
  }
  return static_cast<int>(inputs.size());
}

const fs::path kRegressions = tryon::test::source_dir() / "tests" / "fuzz" / "regressions";
const fs::path kHostile = tryon::test::source_dir() / "tests" / "hostile";

}  // namespace

TEST(FuzzRegressions, GarmentCodeFindingsAndHostilePatternsAreReadOrRefused) {
  const int findings = replay(files_in(kRegressions / "garmentcode"), tryon::fuzz::garmentcode);
  EXPECT_GT(findings + replay(files_in(kHostile / "patterns", ".json"), tryon::fuzz::garmentcode), 30);
}

TEST(FuzzRegressions, BodyObjFindingsAndHostileBodiesAreReadOrRefused) {
  int replayed = replay(files_in(kRegressions / "body_obj"), tryon::fuzz::body_obj);
  // Each hostile body in every mode: Y up and Z up, unit detected, given in metres, given in cm.
  for (const char* mode : {"\x00", "\x01", "\x02", "\x06"})
    replayed += replay(files_in(kHostile / "bodies", ".obj"), tryon::fuzz::body_obj, std::string(mode, 1));
  EXPECT_GT(replayed, 60);
}

TEST(FuzzRegressions, DxfFindingsAndHostileDxfAreReadOrRefused) {
  const int findings = replay(files_in(kRegressions / "dxf"), tryon::fuzz::dxf);
  EXPECT_GE(findings + replay(files_in(kHostile / "patterns", ".dxf"), tryon::fuzz::dxf), 10);
}
