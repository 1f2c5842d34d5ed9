#pragma once
// Small hand-made scenes for the outputs tests: a closed box "body", a rectangular cloth grid
// with its flat rest coordinates, and two such grids as the panels of a garment.
#include <unistd.h>
#include <filesystem>
#include <string>

#include "core/trimesh.hpp"
#include "outputs/glb.hpp"

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

// Two panels side by side, each with its own vertices, sewn along the edge where they meet
// (x = 0.3): the vertices of the first panel's right column to the second's left column.
struct TwoPanels {
  TriMesh cloth;
  outputs::GlbPanels panels;
  static constexpr int kNx = 4, kNy = 5;
  TwoPanels() {
    const TriMesh a = cloth_grid(kNx, kNy, 0.3, 0.4, Vec3(-0.3, 0.8, 0.2), Vec3::UnitX(), Vec3::UnitY());
    TriMesh b = cloth_grid(kNx, kNy, 0.3, 0.4, Vec3(0.0, 0.8, 0.2), Vec3::UnitX(), Vec3::UnitY());
    const int n = a.num_vertices();
    cloth.V.resize(2 * n, 3);
    cloth.V << a.V, b.V;
    cloth.UV.resize(2 * n, 2);
    b.UV.col(0).array() += 0.5;  // the second panel's own frame, apart from the first's
    cloth.UV << a.UV, b.UV;
    cloth.F.resize(2 * a.num_triangles(), 3);
    cloth.F << a.F, (b.F.array() + n).matrix();
    panels.names = {"left", "right"};
    panels.labels = {"body", "body"};
    for (int f = 0; f < cloth.num_triangles(); ++f) panels.panel_of_triangle.push_back(f < a.num_triangles() ? 0 : 1);
    panels.seam_pairs.resize(kNy, 2);
    for (int j = 0; j < kNy; ++j) panels.seam_pairs.row(j) << j * kNx + kNx - 1, n + j * kNx;
    panels.stitch_of_pair.assign(kNy, 0);
  }
};


/// A fresh empty folder under the system temp directory, named after the test and the process.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tryon_outputs_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace tryon::test
