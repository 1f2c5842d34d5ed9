#pragma once
// Small deterministic meshes for the collision tests.
#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "collision/proximity.hpp"
#include "core/trimesh.hpp"

namespace tryon::test {

/// n random triangles of size ~`size` inside the unit cube.
inline TriMesh random_soup(int n, double size, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(0, 1), S(-size, size);
  TriMesh m;
  m.V.resize(3 * n, 3);
  m.F.resize(n, 3);
  for (int i = 0; i < n; ++i) {
    const Vec3 c(U(rng), U(rng), U(rng));
    for (int k = 0; k < 3; ++k) {
      m.V.row(3 * i + k) = (c + Vec3(S(rng), S(rng), S(rng))).transpose();
      m.F(i, k) = 3 * i + k;
    }
  }
  return m;
}

/// (n+1)×(n+1) grid of side `side` in the xz plane at height y, with noise of amplitude `noise`
/// along y, alternating diagonals.
inline TriMesh grid(int n, double side, double y, double noise, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-noise, noise);
  TriMesh m;
  m.V.resize((n + 1) * (n + 1), 3);
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j)
      m.V.row(i * (n + 1) + j) << side * j / n - side / 2, y + (noise > 0 ? U(rng) : 0.0), side * i / n - side / 2;
  m.F.resize(2 * n * n, 3);
  int f = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const int a = i * (n + 1) + j, b = a + 1, c = a + n + 1, d = c + 1;
      if ((i + j) % 2 == 0) {
        m.F.row(f++) << a, c, b;
        m.F.row(f++) << b, c, d;
      } else {
        m.F.row(f++) << a, c, d;
        m.F.row(f++) << a, d, b;
      }
    }
  return m;
}

/// A grid folded over itself: z-folded into a few layers that cross (self intersections).
inline TriMesh crumpled(int n, unsigned seed) {
  TriMesh m = grid(n, 1.0, 0.0, 0.0, seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-0.02, 0.02);
  for (int i = 0; i < m.V.rows(); ++i) {
    const double x = m.V(i, 0), z = m.V(i, 2);
    m.V(i, 1) = 0.15 * std::sin(9 * x) * std::cos(7 * z) + U(rng);
    m.V(i, 0) = 0.3 * std::sin(3 * x + 2 * z);  // folds the sheet through itself
  }
  return m;
}

/// UV sphere with `rings` × `segments`.
inline TriMesh uv_sphere(int rings, int segments, double r, const Vec3& c) {
  TriMesh m;
  const int nv = (rings - 1) * segments + 2;
  m.V.resize(nv, 3);
  m.V.row(0) = (c + Vec3(0, r, 0)).transpose();
  for (int i = 1; i < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      const double th = M_PI * i / rings, ph = 2 * M_PI * j / segments;
      m.V.row(1 + (i - 1) * segments + j) =
          (c + r * Vec3(std::sin(th) * std::cos(ph), std::cos(th), std::sin(th) * std::sin(ph))).transpose();
    }
  m.V.row(nv - 1) = (c - Vec3(0, r, 0)).transpose();
  std::vector<Eigen::Vector3i> f;
  for (int j = 0; j < segments; ++j) f.push_back({0, 1 + (j + 1) % segments, 1 + j});
  for (int i = 1; i < rings - 1; ++i)
    for (int j = 0; j < segments; ++j) {
      const int a = 1 + (i - 1) * segments + j, b = 1 + (i - 1) * segments + (j + 1) % segments;
      const int cc = a + segments, d = b + segments;
      f.push_back({a, b, d});
      f.push_back({a, d, cc});
    }
  for (int j = 0; j < segments; ++j)
    f.push_back({nv - 1, 1 + (rings - 2) * segments + j, 1 + (rings - 2) * segments + (j + 1) % segments});
  m.F.resize(static_cast<int>(f.size()), 3);
  for (int i = 0; i < static_cast<int>(f.size()); ++i) m.F.row(i) = f[i].transpose();
  return m;
}

/// A closed cube of half-size h centred at the origin, outward-facing triangles.
inline TriMesh cube(double h) {
  TriMesh m;
  m.V.resize(8, 3);
  for (int i = 0; i < 8; ++i) m.V.row(i) << (i & 1 ? h : -h), (i & 2 ? h : -h), (i & 4 ? h : -h);
  m.F.resize(12, 3);
  m.F << 0, 2, 1, 1, 2, 3,  // z = −h
      4, 5, 6, 5, 7, 6,     // z = +h
      0, 1, 4, 1, 5, 4,     // y = −h
      2, 6, 3, 3, 6, 7,     // y = +h
      0, 4, 2, 2, 4, 6,     // x = −h
      1, 3, 5, 3, 7, 5;     // x = +h
  return m;
}

/// Every impact of a continuous query as (kind, element, element, time of impact), kind 0
/// vertex–face, 1 face–vertex, 2 edge–edge, in the query's order: two results compare whole.
inline std::vector<std::tuple<int, int, int, double>> impacts(const collision::ContinuousResult& r) {
  std::vector<std::tuple<int, int, int, double>> out;
  for (const auto& h : r.vertex_face) out.emplace_back(0, h.vertex, h.triangle, h.impact.toi);
  for (const auto& h : r.face_vertex) out.emplace_back(1, h.vertex, h.triangle, h.impact.toi);
  for (const auto& h : r.edge_edge) out.emplace_back(2, h.edge_a, h.edge_b, h.impact.toi);
  return out;
}

/// A flat region (z = 0, normals +z) moving in one step: a spike (x in [0, 0.2], y in [0, 1])
/// joined through a base and a column on the left to a triangle (q, p, r) whose corner p
/// (vertex 14) slides along y = 0.5 from the left of the spike to its right, through the spike's
/// plane (z +0.05 to -0.05), and through its triangle 0. At the start and at the end the
/// projected contour is simple (at the end the triangle passes over the spike's tip).
struct SlidingCorner {
  TriMesh m0, m1;
  static constexpr int corner = 14, spike_triangle = 0;
};
inline SlidingCorner sliding_corner() {
  SlidingCorner s;
  s.m0.V.resize(15, 3);
  s.m0.V << 0, 0, 0, 0.2, 0, 0, 0.2, 1, 0, 0, 1, 0,            // spike 0-3
      0.2, -0.2, 0, 0, -0.2, 0, -1.2, -0.2, 0,                  // base 4-6
      -1, 0, 0, -1, 2, 0, -1, 3, 0, -1.2, 2, 0, -1.2, 3, 0,     // column 7-11
      -0.5, 2, 0, -0.5, 3, 0,                                   // q, r
      -0.3, 0.5, 0.05;                                          // p
  s.m0.F.resize(13, 3);
  s.m0.F << 0, 1, 2, 0, 2, 3, 5, 4, 1, 5, 1, 0, 6, 5, 0, 6, 0, 7, 6, 7, 8, 6, 8, 10, 10, 8, 9, 10, 9, 11, 8, 12, 13,
      8, 13, 9, 12, 14, 13;
  s.m1 = s.m0;
  s.m1.V.row(SlidingCorner::corner) << 0.6, 0.5, -0.05;
  return s;
}

}  // namespace tryon::test
