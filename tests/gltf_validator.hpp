#pragma once
// The Khronos glTF validator (npm gltf-validator, installed in web/ by scripts/setup.sh) on a
// GLB the tests wrote: TRYON_EXPECT_VALID_GLTF(path) expects 0 errors and 0 warnings, and skips
// the rest of the test with a message when node or the validator is not installed.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include <gtest/gtest.h>

#include "shell.hpp"
#include "test_data.hpp"

namespace tryon::test {

struct GltfValidation {
  bool ran = false;
  std::string why_not;  ///< when it did not run
  nlohmann::json result;  ///< validate_gltf.mjs's line: errors, warnings, infos, hints, messages
};

inline GltfValidation validate_gltf(const std::filesystem::path& file) {
  GltfValidation v;
  const std::filesystem::path script = source_dir() / "web" / "validate_gltf.mjs";
  if (!std::filesystem::exists(source_dir() / "web" / "node_modules" / "gltf-validator")) {
    v.why_not = "the glTF validator is not installed (npm ci --prefix web; scripts/setup.sh does it)";
    return v;
  }
  const ShellResult r = run_shell("node '" + script.string() + "' '" + file.string() + "' 2>&1");
  if (!r.started) {
    v.why_not = "cannot run node";
    return v;
  }
  v.result = nlohmann::json::parse(r.out, nullptr, false);
  if (v.result.is_discarded() || !v.result.is_object()) {
    v.why_not = "node did not run the validator (status " + std::to_string(r.status) + "): " + r.out;
    return v;
  }
  v.ran = true;
  return v;
}

}  // namespace tryon::test

#define TRYON_EXPECT_VALID_GLTF(path)                                                              \
  do {                                                                                             \
    const ::tryon::test::GltfValidation v_ = ::tryon::test::validate_gltf(path);                   \
    if (!v_.ran) GTEST_SKIP() << "glTF validator not run on " << (path) << ": " << v_.why_not;     \
    EXPECT_EQ(v_.result.value("errors", -1), 0) << v_.result.dump(1);                              \
    EXPECT_EQ(v_.result.value("warnings", -1), 0) << v_.result.dump(1);                            \
  } while (0)
