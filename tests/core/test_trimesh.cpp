#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/trimesh.hpp"

using namespace tryon;

namespace {
// Unit cube as 12 triangles, outward winding, with every corner duplicated once.
TriMesh split_cube() {
  TriMesh m;
  m.V.resize(16, 3);
  for (int i = 0; i < 8; ++i) m.V.row(i) << (i & 1), ((i >> 1) & 1), ((i >> 2) & 1);
  m.V.bottomRows(8) = m.V.topRows(8).array() + 1e-9;  // near-duplicates
  m.F.resize(12, 3);
  m.F << 0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6,
      1, 3, 5, 3, 7, 5;
  // Use the duplicates in half the faces, as a file split at UV seams would.
  for (int f = 6; f < 12; ++f) m.F.row(f).array() += 8;
  return m;
}
}  // namespace

TEST(TriMesh, WeldMergesDuplicatesAndClosesTheCube) {
  TriMesh m = split_cube();
  EXPECT_GT(edge_topology(m.F).boundary_edges, 0);
  EXPECT_EQ(weld_vertices(m, 1e-6), 8);
  EXPECT_EQ(m.num_vertices(), 8);
  EXPECT_EQ(m.num_triangles(), 12);
  const EdgeTopology t = edge_topology(m.F);
  EXPECT_EQ(t.edges, 18);
  EXPECT_EQ(t.boundary_edges, 0);
  EXPECT_EQ(t.non_manifold_edges, 0);
  EXPECT_NEAR(surface_area(m.V, m.F), 6.0, 1e-6);
}

TEST(TriMesh, WeldKeepsVerticesFartherThanTolerance) {
  TriMesh m = split_cube();
  EXPECT_EQ(weld_vertices(m, 1e-12), 0);
  EXPECT_EQ(m.num_vertices(), 16);
}

TEST(TriMesh, WeldWithToleranceHandlesFarCoordinates) {
  // Cells beyond long long's range (1e300 / 1e-3) and far cells whose hash products overflow a
  // signed 64-bit integer (UBSan found the latter): far points stay apart, duplicates merge.
  TriMesh m;
  m.V.resize(6, 3);
  m.V << 1e300, 0, 0,  -1e300, 0, 0,  0, 1e300, 0,  1e300, 0, 0,  1e9, 1e9, 1e9,  1e9, 1e9, 1e9 + 1;
  m.F.resize(2, 3);
  m.F << 0, 1, 2, 3, 4, 5;
  EXPECT_EQ(weld_vertices(m, 1e-3), 1);
  EXPECT_EQ(m.num_vertices(), 5);
  ASSERT_EQ(m.num_triangles(), 2);
  EXPECT_EQ(m.F(1, 0), m.F(0, 0));  // the second 1e300 point became the first
}

TEST(TriMesh, ExactWeldMergesOnlyIdenticalPositions) {
  TriMesh m = split_cube();
  EXPECT_EQ(weld_vertices(m, 0.0), 0);  // near-duplicates stay apart
  m = split_cube();
  m.V.bottomRows(8) = m.V.topRows(8);
  // Reverse the vertex order so that duplicates come before their twins.
  m.V = m.V.colwise().reverse().eval();
  m.F = (15 - m.F.array()).matrix();
  EXPECT_EQ(weld_vertices(m, 0.0), 8);
  EXPECT_EQ(edge_topology(m.F).boundary_edges, 0);
  EXPECT_NEAR(surface_area(m.V, m.F), 6.0, 1e-12);
}

TEST(TriMesh, NonManifoldEdgeCounted) {
  Triangles F(3, 3);
  F << 0, 1, 2, 1, 0, 3, 0, 1, 4;
  const EdgeTopology t = edge_topology(F);
  EXPECT_EQ(t.non_manifold_edges, 1);
  EXPECT_EQ(t.boundary_edges, 6);
}

TEST(TriMesh, CheckMeshRejectsBadIndexAndNaN) {
  TriMesh m = split_cube();
  m.F(3, 1) = 99;
  EXPECT_THROW(check_mesh(m, "cube"), InputError);
  m = split_cube();
  m.V(2, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(check_mesh(m, "cube"), InputError);
  EXPECT_NO_THROW(check_mesh(split_cube(), "cube"));
}

TEST(TriMesh, BoundsAndNormals) {
  TriMesh m = split_cube();
  weld_vertices(m, 1e-6);
  const Bounds3 b = bounds(m.V);
  EXPECT_TRUE(b.min.isApprox(Vec3(0, 0, 0)));
  EXPECT_TRUE(b.max.isApprox(Vec3(1, 1, 1)));
  const Points3 N = triangle_normals(m.V, m.F);
  const Vec3 centre(0.5, 0.5, 0.5);
  for (int f = 0; f < m.num_triangles(); ++f) {
    const Vec3 c = (m.V.row(m.F(f, 0)) + m.V.row(m.F(f, 1)) + m.V.row(m.F(f, 2))).transpose() / 3;
    EXPECT_GT(N.row(f).dot((c - centre).transpose()), 0) << "face " << f << " points inward";
  }
}
