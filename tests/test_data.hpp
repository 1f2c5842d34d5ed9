#pragma once
// Paths to the shared third-party data (../shared/data relative to the repository root) and
// to the bundled assets. Tests that need shared data skip with a clear message without it.
#include <filesystem>
#include <string>
#include <gtest/gtest.h>

namespace tryon::test {

inline std::filesystem::path source_dir() { return TRYON_SOURCE_DIR; }
inline std::filesystem::path shared_data() { return source_dir() / ".." / "shared" / "data"; }
inline std::filesystem::path assets() { return source_dir() / "assets"; }
inline std::filesystem::path shared_data_path(const std::string& rel) { return shared_data() / rel; }

}  // namespace tryon::test

/// Skips the current test unless the shared data folder (or a file in it) exists.
#define TRYON_REQUIRE_SHARED(relpath)                                                  \
  do {                                                                                 \
    if (!std::filesystem::exists(::tryon::test::shared_data() / (relpath)))            \
      GTEST_SKIP() << "shared data not found: " << (::tryon::test::shared_data() / (relpath)) \
                   << " (checkout ../shared next to the repository to run this test)"; \
  } while (0)
