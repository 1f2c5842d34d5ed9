#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "collision/geometry.hpp"
#include "collision/untangle.hpp"
#include "core/parallel.hpp"
#include "test_meshes.hpp"

using namespace tryon;
using namespace tryon::collision;

namespace {

// One mesh of two sheets: a flat square (y = 0, side 16 cm) and a dome (side 10 cm) whose cap
// pokes 1 cm up through it; the two sheets cross along a circle of radius ~2.2 cm. The grids
// are offset so that no vertex lies on the other sheet.
TriMesh dome_through_sheet() {
  TriMesh sheet = test::grid(16, 0.16, 0.0, 0.0, 1);
  TriMesh dome = test::grid(10, 0.10, 0.0, 0.0, 2);
  for (Eigen::Index i = 0; i < dome.V.rows(); ++i) {
    const double x = dome.V(i, 0) + 0.0037, z = dome.V(i, 2) + 0.0021;
    dome.V.row(i) << x, 0.01 - 20 * (x * x + z * z), z;
  }
  TriMesh m;
  m.V.resize(sheet.V.rows() + dome.V.rows(), 3);
  m.V << sheet.V, dome.V;
  m.F.resize(sheet.F.rows() + dome.F.rows(), 3);
  m.F << sheet.F, (dome.F.array() + static_cast<int>(sheet.V.rows())).matrix();
  return m;
}

// Brute force: the length of the intersection contour, summed over every pair of triangles
// that share no vertex. Two crossing triangles meet in a segment whose ends are where an edge
// of one passes through the other (general position: exactly two such points).
double contour_length(const TriMesh& m) {
  double length = 0;
  auto crossings = [&](int f, int g, std::vector<Vec3>& out) {
    const Vec3 a = m.V.row(m.F(g, 0)), b = m.V.row(m.F(g, 1)), c = m.V.row(m.F(g, 2));
    const Vec3 n = (b - a).cross(c - a);
    for (int k = 0; k < 3; ++k) {
      const Vec3 p = m.V.row(m.F(f, k)), q = m.V.row(m.F(f, (k + 1) % 3));
      if (!segment_triangle_intersect(p, q, a, b, c)) continue;
      const double dp = n.dot(p - a), dq = n.dot(q - a);
      out.push_back(p + dp / (dp - dq) * (q - p));
    }
  };
  for (Eigen::Index f = 0; f < m.F.rows(); ++f)
    for (Eigen::Index g = f + 1; g < m.F.rows(); ++g) {
      bool shared = false;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) shared |= m.F(f, i) == m.F(g, j);
      if (shared) continue;
      std::vector<Vec3> ends;
      crossings(static_cast<int>(f), static_cast<int>(g), ends);
      crossings(static_cast<int>(g), static_cast<int>(f), ends);
      if (ends.size() == 2) length += (ends[0] - ends[1]).norm();
    }
  return length;
}

std::vector<EdgeThroughTriangle> crossings_of(const TriMesh& m, const MeshTopology& topo) {
  const Bvh<Aabb> bvh(m.V, m.F);
  return edges_through_triangles(m.V, m.F, topo, bvh);
}

}  // namespace

TEST(Untangle, FindsEveryEdgeThroughATriangleAsBruteForceDoes) {
  const TriMesh m = dome_through_sheet();
  const MeshTopology topo = MeshTopology::build(m.F, static_cast<int>(m.V.rows()));
  const auto hits = crossings_of(m, topo);
  std::vector<std::array<int, 2>> expected;
  for (Eigen::Index e = 0; e < topo.edges.rows(); ++e)
    for (Eigen::Index f = 0; f < m.F.rows(); ++f) {
      const int i = topo.edges(e, 0), j = topo.edges(e, 1);
      if ((m.F.row(f).array() == i).any() || (m.F.row(f).array() == j).any()) continue;
      if (segment_triangle_intersect(m.V.row(i), m.V.row(j), m.V.row(m.F(f, 0)), m.V.row(m.F(f, 1)), m.V.row(m.F(f, 2))))
        expected.push_back({static_cast<int>(e), static_cast<int>(f)});
    }
  ASSERT_GT(expected.size(), 20u);
  ASSERT_EQ(hits.size(), expected.size());
  std::size_t nonzero = 0;
  for (std::size_t k = 0; k < hits.size(); ++k) {
    EXPECT_EQ(hits[k].edge, expected[k][0]);
    EXPECT_EQ(hits[k].triangle, expected[k][1]);
    // The crossing point is on the edge and in the triangle.
    const Vec3 on_edge = (1 - hits[k].s) * Vec3(m.V.row(topo.edges(hits[k].edge, 0))) +
                         hits[k].s * Vec3(m.V.row(topo.edges(hits[k].edge, 1)));
    Vec3 in_triangle = Vec3::Zero();
    for (int c = 0; c < 3; ++c) in_triangle += hits[k].bary[c] * Vec3(m.V.row(m.F(hits[k].triangle, c)));
    EXPECT_LT((on_edge - in_triangle).norm(), 1e-12);
    // Unit, or zero where the contour runs straight through the crossing: an edge of the flat
    // sheet, whose two triangles are coplanar (the contour bends where the dome's edges cross).
    const double len = hits[k].direction.norm();
    EXPECT_TRUE(std::abs(len - 1) < 1e-12 || len == 0) << len;
    nonzero += len > 0;
  }
  EXPECT_GT(nonzero, expected.size() / 3);
  // Skipped pairs are left out.
  const Bvh<Aabb> bvh(m.V, m.F);
  const int skipped_edge = hits.front().edge;
  const auto rest = edges_through_triangles(m.V, m.F, topo, bvh, [&](int e, int) { return e == skipped_edge; });
  EXPECT_LT(rest.size(), hits.size());
  for (const auto& h : rest) EXPECT_NE(h.edge, skipped_edge);
}

TEST(Untangle, DirectionsShortenTheContourMeasuredByBruteForce) {
  const TriMesh m = dome_through_sheet();
  const MeshTopology topo = MeshTopology::build(m.F, static_cast<int>(m.V.rows()));
  const Points3 d = untangling_directions(static_cast<int>(m.V.rows()), m.F, topo, crossings_of(m, topo));
  const double before = contour_length(m);
  ASSERT_GT(before, 0.1);  // the circle of radius ~2.2 cm: ~0.14 m
  // The directional derivative of the contour length along d, by central differences, is
  // negative: d is a descent direction. A random direction of the same size is not.
  auto length_at = [&](double eps, const Points3& dir) {
    TriMesh moved = m;
    moved.V += eps * dir;
    return contour_length(moved);
  };
  const double h = 1e-5;
  const double slope = (length_at(h, d) - length_at(-h, d)) / (2 * h);
  EXPECT_LT(slope, -1.0);  // m of contour per m of displacement
  // The dome's vertices move down (−y) and the sheet's up, on balance.
  double dome_dy = 0, sheet_dy = 0;
  for (Eigen::Index v = 0; v < m.V.rows(); ++v) (v < 17 * 17 ? sheet_dy : dome_dy) += d(v, 1);
  EXPECT_LT(dome_dy, 0);
  EXPECT_GT(sheet_dy, 0);
}

TEST(Untangle, RepeatedSmallStepsUndoTheIntersectionOnAnyThreadCount) {
  auto untangle = [](int threads) {
    set_num_threads(threads);
    TriMesh m = dome_through_sheet();
    const MeshTopology topo = MeshTopology::build(m.F, static_cast<int>(m.V.rows()));
    const Points3 start = m.V;
    int steps = 0;
    for (; steps < 200; ++steps) {
      const auto hits = crossings_of(m, topo);
      if (hits.empty()) break;
      m.V += 1e-3 * untangling_directions(static_cast<int>(m.V.rows()), m.F, topo, hits);
    }
    set_num_threads(0);
    EXPECT_LT(steps, 200);
    EXPECT_EQ(contour_length(m), 0.0);
    // Local moves: no vertex went further than the cap's height and a little.
    EXPECT_LT((m.V - start).rowwise().norm().maxCoeff(), 0.02);
    return m.V;
  };
  const Points3 one = untangle(1), two = untangle(2);
  EXPECT_EQ(one, two);
}

TEST(Untangle, EdgeInTheTrianglesPlaneHasNoDirection) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  const std::array<Vec3, 1> far{Vec3(1, 0.2, 0.5)};
  EXPECT_EQ(contour_shortening_direction(Vec3(-0.5, 0.2, 0), Vec3(0.5, 0.2, 0), far, a, b, c), Vec3::Zero());
  // An edge straight through the triangle (its own triangle in the plane y = 0.2): the contour
  // runs along x into the edge's triangle, the normal term is zero (E·R = 0), G = +x.
  const Vec3 g = contour_shortening_direction(Vec3(0.2, 0.2, -1), Vec3(0.2, 0.2, 1), far, a, b, c);
  EXPECT_LT((g - Vec3(1, 0, 0)).norm(), 1e-12);
}

namespace {

std::vector<int> each_its_own(Eigen::Index n) {
  std::vector<int> group(static_cast<std::size_t>(n));
  for (std::size_t v = 0; v < group.size(); ++v) group[v] = static_cast<int>(v);
  return group;
}

}  // namespace

TEST(Untangle, RegionsCutOffByAClosedContourMoveBackThroughAsAWhole) {
  // The dome's cap is through the sheet, and so is the disc of the sheet under the cap: each is
  // cut off from the rest of its sheet by the circle where they cross (radius ~2.2 cm, where
  // the dome's surface y = 0.01 − 20 r² meets y = 0). The cap goes down, the disc up.
  const TriMesh m = dome_through_sheet();
  const MeshTopology topo = MeshTopology::build(m.F, static_cast<int>(m.V.rows()));
  const Points3 d = wrong_side_directions(m.V, m.F, topo, crossings_of(m, topo), each_its_own(m.V.rows()));
  int cap = 0, disc = 0;
  for (Eigen::Index v = 0; v < m.V.rows(); ++v) {
    const double r = std::hypot(m.V(v, 0), m.V(v, 2));
    const bool sheet = v < 17 * 17;
    if (r > 0.026) {  // clear of the circle, on the right side
      EXPECT_EQ(d.row(v).norm(), 0.0) << v;
    } else if (r < 0.019) {  // clear of the circle, on the wrong side
      EXPECT_NEAR(d.row(v).norm(), 1.0, 1e-12) << v;
      if (sheet) {
        EXPECT_GT(d(v, 1), 0.99) << v;
        ++disc;
      } else {
        EXPECT_LT(d(v, 1), -0.99) << v;
        ++cap;
      }
    }
  }
  EXPECT_GT(cap, 10);
  EXPECT_GT(disc, 4);
  // Every vertex of a region moves the same way.
  for (Eigen::Index v = 0; v < m.V.rows(); ++v)
    for (Eigen::Index w = v + 1; w < m.V.rows(); ++w)
      if (d.row(v).norm() > 0 && d.row(w).norm() > 0 && (v < 17 * 17) == (w < 17 * 17)) {
        ASSERT_EQ(d.row(v), d.row(w));
      }
}

TEST(Untangle, AFlapThroughASheetToItsBorderMovesBackThrough) {
  // A strip (6 × 6 cm) slanting down through a flat sheet (10 × 10 cm, y = 0): its far end,
  // x > 1.33 cm, hangs under the sheet. The contour runs across the strip, border to border,
  // and cuts that end off; on the sheet it is a segment inside it, which cuts nothing off.
  TriMesh sheet = test::grid(10, 0.10, 0.0, 0.0, 1);
  TriMesh strip = test::grid(12, 0.06, 0.0, 0.0, 2);
  for (Eigen::Index i = 0; i < strip.V.rows(); ++i) {
    strip.V(i, 0) += 0.0013;
    strip.V(i, 2) += 0.0017;
    strip.V(i, 1) = 0.004 - 0.3 * strip.V(i, 0);
  }
  TriMesh m;
  m.V.resize(sheet.V.rows() + strip.V.rows(), 3);
  m.V << sheet.V, strip.V;
  m.F.resize(sheet.F.rows() + strip.F.rows(), 3);
  m.F << sheet.F, (strip.F.array() + static_cast<int>(sheet.V.rows())).matrix();
  const MeshTopology topo = MeshTopology::build(m.F, static_cast<int>(m.V.rows()));
  const auto hits = crossings_of(m, topo);
  ASSERT_GT(hits.size(), 10u);
  std::vector<int> group = each_its_own(m.V.rows());
  const Points3 d = wrong_side_directions(m.V, m.F, topo, hits, group);
  int under = 0;
  for (Eigen::Index v = 0; v < m.V.rows(); ++v) {
    if (v >= sheet.V.rows() && m.V(v, 1) < 0) {  // the strip's end under the sheet: up through it
      EXPECT_LT((d.row(v) - Eigen::RowVector3d(0, 1, 0)).norm(), 1e-12) << v;
      ++under;
    } else {
      EXPECT_EQ(d.row(v).norm(), 0.0) << v;
    }
  }
  EXPECT_GT(under, 20);
  // Joined to a vertex of the strip above the sheet (as seam partners are), the end is no
  // longer cut off.
  const int end_vertex = static_cast<int>(sheet.V.rows() + strip.V.rows() - 1);
  const int top_vertex = static_cast<int>(sheet.V.rows());
  ASSERT_LT(m.V(end_vertex, 1), 0);
  ASSERT_GT(m.V(top_vertex, 1), 0);
  group[end_vertex] = top_vertex;
  EXPECT_EQ(wrong_side_directions(m.V, m.F, topo, hits, group).norm(), 0.0);
  // Moved along d in steps, with the regions found again before each, the strip comes out.
  TriMesh moved = m;
  int steps = 0;
  for (; steps < 20; ++steps) {
    const auto now = crossings_of(moved, topo);
    if (now.empty()) break;
    moved.V += 1e-3 * wrong_side_directions(moved.V, moved.F, topo, now, each_its_own(m.V.rows()));
  }
  EXPECT_LT(steps, 20);
  EXPECT_EQ(contour_length(moved), 0.0);
}
