#pragma once
// Small hand-made scenes for the outputs tests: a closed box "body" and a rectangular cloth grid
// with its flat rest coordinates.
#include <unistd.h>
#include <filesystem>
#include <string>

#include "core/trimesh.hpp"

namespace tryon::test {

/// Closed axis-aligned box centred at `centre` with half extents `h`, outward-facing triangles.
inline TriMesh box_body(const Vec3& centre, const Vec3& h) {
  TriMesh m;
  m.V.resize(8, 3);
  for (int i = 0; i < 8; ++i)
    m.V.row(i) = (centre + Vec3((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z()))
                     .transpose();
  // Two triangles per face (corner bits), then each oriented away from the centre.
  const int quads[6][4] = {{0, 2, 6, 4}, {1, 3, 7, 5}, {0, 1, 5, 4},
                           {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 5, 7, 6}};
  m.F.resize(12, 3);
  for (int q = 0; q < 6; ++q) {
    m.F.row(2 * q) << quads[q][0], quads[q][1], quads[q][2];
    m.F.row(2 * q + 1) << quads[q][0], quads[q][2], quads[q][3];
  }
  for (int f = 0; f < 12; ++f) {
    const Vec3 a = m.V.row(m.F(f, 0)), b = m.V.row(m.F(f, 1)), c = m.V.row(m.F(f, 2));
    if ((b - a).cross(c - a).dot((a + b + c) / 3 - centre) < 0) std::swap(m.F(f, 1), m.F(f, 2));
  }
  return m;
}

/// A cloth grid of nx × ny vertices. Rest (2D) coordinates span [0, wx] × [0, wy]; the 3D
/// positions are the rest point (u, v) mapped to origin + u·ex + v·ey. UV is set to the rest.
inline TriMesh cloth_grid(int nx, int ny, double wx, double wy, const Vec3& origin, const Vec3& ex,
                          const Vec3& ey) {
  TriMesh m;
  m.V.resize(nx * ny, 3);
  m.UV.resize(nx * ny, 2);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const double u = wx * i / (nx - 1), v = wy * j / (ny - 1);
      m.UV.row(j * nx + i) << u, v;
      m.V.row(j * nx + i) = (origin + u * ex + v * ey).transpose();
    }
  m.F.resize(2 * (nx - 1) * (ny - 1), 3);
  int f = 0;
  for (int j = 0; j + 1 < ny; ++j)
    for (int i = 0; i + 1 < nx; ++i) {
      const int a = j * nx + i, b = a + 1, c = a + nx, d = c + 1;
      m.F.row(f++) << a, b, d;
      m.F.row(f++) << a, d, c;
    }
  return m;
}

/// A fresh empty folder under the system temp directory, named after the test and the process.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tryon_outputs_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace tryon::test
