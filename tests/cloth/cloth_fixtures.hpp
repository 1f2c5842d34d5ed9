#pragma once
// Hand-built garments for the cloth tests: flat grid panels, two panels joined by a seam, and
// a gathered seam whose two edges have different 2D lengths.
#include <string>

#include "garments/garment_mesh.hpp"

namespace tryon::cloth::test {

/// Appends a flat nx×ny grid panel of rest size width×height (m). Rest coordinates are
/// (i·dx, j·dy); the 3D placement is origin + rest.x·ex + rest.y·ey. Triangles alternate their
/// diagonals and wind counter-clockwise in 2D. Returns the index of the panel's first vertex;
/// vertex (i, j) is first + j·nx + i.
inline int add_grid_panel(garments::GarmentMesh& g, const std::string& name, int nx, int ny,
                          double width, double height, const Vec3& origin,
                          const Vec3& ex = Vec3::UnitX(), const Vec3& ey = Vec3::UnitY()) {
  const int first = g.num_vertices();
  const int panel = static_cast<int>(g.panel_names.size());
  g.panel_names.push_back(name);
  const int nv = nx * ny;
  g.V.conservativeResize(first + nv, 3);
  g.rest.conservativeResize(first + nv, 2);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const double rx = width * i / (nx - 1), ry = height * j / (ny - 1);
      const int v = first + j * nx + i;
      g.rest.row(v) = Vec2(rx, ry).transpose();
      g.V.row(v) = (origin + rx * ex + ry * ey).transpose();
      g.panel_of_vertex.push_back(panel);
    }
  const int f0 = g.num_triangles();
  g.F.conservativeResize(f0 + 2 * (nx - 1) * (ny - 1), 3);
  int f = f0;
  for (int j = 0; j + 1 < ny; ++j)
    for (int i = 0; i + 1 < nx; ++i) {
      const int a = first + j * nx + i, b = a + 1, c = a + nx, d = c + 1;
      if ((i + j) % 2 == 0) {
        g.F.row(f++) << a, b, d;
        g.F.row(f++) << a, d, c;
      } else {
        g.F.row(f++) << a, b, c;
        g.F.row(f++) << b, d, c;
      }
      g.panel_of_triangle.push_back(panel);
      g.panel_of_triangle.push_back(panel);
    }
  return first;
}

/// One square panel hanging in the x-y plane, top edge at y = top; labels "top" (whole top
/// row), "top_left", "top_right" (the two top corners).
inline garments::GarmentMesh hanging_square(int n, double size, double top = 1.0) {
  garments::GarmentMesh g;
  // Rest y grows downwards in 3D: ey = −Y keeps triangles counter-clockwise seen from −Z.
  const int first = add_grid_panel(g, "square", n, n, size, size, Vec3(0, top, 0), Vec3::UnitX(),
                                   -Vec3::UnitY());
  for (int i = 0; i < n; ++i) g.labelled_vertices["top"].push_back(first + i);
  g.labelled_vertices["top_left"] = {first};
  g.labelled_vertices["top_right"] = {first + n - 1};
  return g;
}

/// Two panels side by side in the x-y plane (hanging, top at y = top), the right edge of the
/// left panel stitched to the left edge of the right panel. The right panel's rest height is
/// `right_height` (a gathered seam when it differs from `height`); both have ny rows, so the
/// seam pairs are row by row. The 3D gap between the two panels is `gap`.
inline garments::GarmentMesh two_panels(int nx, int ny, double width, double height,
                                        double right_height, double gap, double top = 1.0) {
  garments::GarmentMesh g;
  const int a = add_grid_panel(g, "left", nx, ny, width, height, Vec3(0, top, 0), Vec3::UnitX(),
                               -Vec3::UnitY());
  const int b = add_grid_panel(g, "right", nx, ny, width, right_height, Vec3(width + gap, top, 0),
                               Vec3::UnitX(), -Vec3::UnitY());
  g.seam_pairs.resize(ny, 2);
  for (int j = 0; j < ny; ++j) {
    g.seam_pairs(j, 0) = a + j * nx + (nx - 1);
    g.seam_pairs(j, 1) = b + j * nx;
    g.stitch_of_pair.push_back(0);
  }
  g.num_stitches = 1;
  for (int i = 0; i < nx; ++i) {
    g.labelled_vertices["top"].push_back(a + i);
    g.labelled_vertices["top"].push_back(b + i);
  }
  return g;
}

}  // namespace tryon::cloth::test
