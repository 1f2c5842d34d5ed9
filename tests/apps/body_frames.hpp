#pragma once
// A motion for the tests: frames of the bundled body written as OBJ files (frame_000.obj...),
// each made by a pose function of the body's vertices, the frame and the frame count.
#include <cstdio>
#include <filesystem>

#include "core/mesh_io.hpp"
#include "test_data.hpp"

namespace tryon::test {

inline std::filesystem::path bundled_body() { return assets() / "bodies/mean_all.obj"; }

template <class Pose>
void write_body_frames(const std::filesystem::path& dir, int n, Pose pose) {
  std::filesystem::create_directories(dir);
  const TriMesh body = read_mesh(bundled_body());
  for (int k = 0; k < n; ++k) {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%03d.obj", k);
    write_obj(dir / name, TriMesh{pose(body.V, k, n), body.F, {}});
  }
}

}  // namespace tryon::test
