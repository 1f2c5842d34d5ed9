#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>

#include "core/error.hpp"
#include "garments/garment_builder.hpp"
#include "garments/garmentcode_reader.hpp"
#include "garments/geometry2d.hpp"
#include "garments/triangulate.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::garments;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> shared_patterns() {
  std::vector<fs::path> out;
  for (const char* folder : {"patterns/garmentcode/specs", "patterns/garmentcode_gpg/templates"})
    for (const auto& e : fs::recursive_directory_iterator(test::shared_data() / folder))
      if (e.path().extension() == ".json") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Area of the true curved outline, from a very fine sampling of every edge.
double exact_outline_area(const Panel& panel) {
  std::vector<Vec2> loop;
  for (const Edge& e : panel.edges) {
    const auto s = sample_edge(panel, e, e.kind == CurveKind::straight ? 1 : 2000);
    loop.insert(loop.end(), s.begin(), s.end() - 1);
  }
  return std::abs(signed_area(loop));
}

PanelTriangulation panel_triangulation(const GarmentMesh& m, const PanelStats& s) {
  PanelTriangulation t;
  t.V = m.rest.middleRows(s.first_vertex, s.vertices);
  t.num_boundary = s.boundary_vertices;
  std::vector<int> tris;
  for (int f = 0; f < m.num_triangles(); ++f)
    if (m.panel_of_triangle[f] == m.panel_of_vertex[s.first_vertex])
      for (int k = 0; k < 3; ++k) tris.push_back(m.F(f, k) - s.first_vertex);
  t.F = Eigen::Map<Triangles>(tris.data(), static_cast<Eigen::Index>(tris.size() / 3), 3);
  return t;
}

}  // namespace

TEST(GarmentBuilder, EverySharedPatternMeshesCleanly) {
  TRYON_REQUIRE_SHARED("patterns/garmentcode/specs");
  const auto files = shared_patterns();
  ASSERT_EQ(files.size(), 21u);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const Pattern pattern = read_garmentcode(file);
    const GarmentBuild b = build_garment(pattern);
    const GarmentMesh& m = b.mesh;
    EXPECT_GE(b.min_angle_deg, 20.0);
    ASSERT_EQ(b.panels.size(), pattern.panels.size());
    for (std::size_t p = 0; p < b.panels.size(); ++p) {
      const PanelStats& s = b.panels[p];
      SCOPED_TRACE("panel " + s.name);
      const PanelTriangulation t = panel_triangulation(m, s);
      EXPECT_EQ(count_triangles_outside(t), 0);
      // Mesh area against the true curved outline: sampling + triangulation within 0.5 %.
      const double exact = exact_outline_area(pattern.panels[p]);
      EXPECT_NEAR(s.mesh_area_m2 / exact, 1.0, 0.005);
      // Triangles keep the outline's winding (their 3D normal is then the panel's outward side).
      const double outline_sign = polygon_signed_area(t.V.topRows(t.num_boundary)) > 0 ? 1 : -1;
      for (Eigen::Index f = 0; f < t.F.rows(); ++f) {
        const Vec2 a = t.V.row(t.F(f, 0)), bb = t.V.row(t.F(f, 1)), c = t.V.row(t.F(f, 2));
        const double twice = (bb - a).x() * (c - a).y() - (bb - a).y() * (c - a).x();
        ASSERT_GT(twice * outline_sign, 0) << "triangle " << f << " flipped";
      }
    }
    // Seams: both sides carry the same number of vertices, paired end to end.
    std::vector<int> per_stitch(pattern.stitches.size(), 0);
    for (int s : m.stitch_of_pair) per_stitch[s]++;
    for (std::size_t s = 0; s < pattern.stitches.size(); ++s) {
      const Stitch& st = pattern.stitches[s];
      const auto counts = edge_segment_counts(pattern, 0.01);
      EXPECT_EQ(counts[st.a.panel][st.a.edge], counts[st.b.panel][st.b.edge]);
      EXPECT_EQ(per_stitch[s], counts[st.a.panel][st.a.edge] + 1);
    }
    // Every pair joins two vertices of the named panels at matching arc-length fractions:
    // the 2D distance along each side from its first pair grows in proportion.
    EXPECT_EQ(static_cast<int>(m.stitch_of_pair.size()), m.seam_pairs.rows());
    EXPECT_TRUE(m.V.allFinite());
    // Placed on a body with feet at y = 0: nothing below the floor, nothing above 2.2 m.
    EXPECT_GT(m.V.col(1).minCoeff(), -0.01);
    EXPECT_LT(m.V.col(1).maxCoeff(), 2.2);
  }
}

TEST(GarmentBuilder, SeamPairsCorrespondAlongBothEdges) {
  TRYON_REQUIRE_SHARED("patterns/garmentcode/specs/dress_pencil_specification.json");
  // The dress has darts and gathered seams of different lengths (up to 23 %).
  const Pattern pattern = read_garmentcode(test::shared_data() / "patterns/garmentcode/specs/dress_pencil_specification.json");
  const GarmentBuild b = build_garment(pattern);
  const GarmentMesh& m = b.mesh;
  for (std::size_t s = 0; s < pattern.stitches.size(); ++s) {
    std::vector<int> a, c;
    for (Eigen::Index i = 0; i < m.seam_pairs.rows(); ++i)
      if (m.stitch_of_pair[i] == static_cast<int>(s)) a.push_back(m.seam_pairs(i, 0)), c.push_back(m.seam_pairs(i, 1));
    ASSERT_GE(a.size(), 2u);
    // Cumulative 2D length along each side, normalised: equal fractions at every pair.
    double la = 0, lc = 0;
    std::vector<double> fa{0}, fc{0};
    for (std::size_t i = 1; i < a.size(); ++i) {
      la += (m.rest.row(a[i]) - m.rest.row(a[i - 1])).norm();
      lc += (m.rest.row(c[i]) - m.rest.row(c[i - 1])).norm();
      fa.push_back(la), fc.push_back(lc);
    }
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(fa[i] / la, fc[i] / lc, 0.02) << "stitch " << s;
  }
}

// Directed edges that two triangles traverse the same way once seam pairs are merged: zero
// when the sewn garment is a consistently oriented surface, as GarmentCode's default pairing
// (start of edge A meets end of edge B, "right side to right side") promises.
int same_direction_edges(const GarmentMesh& m) {
  std::vector<int> root(m.num_vertices());
  std::iota(root.begin(), root.end(), 0);
  std::function<int(int)> find = [&](int v) { return root[v] == v ? v : root[v] = find(root[v]); };
  for (Eigen::Index i = 0; i < m.seam_pairs.rows(); ++i) root[find(m.seam_pairs(i, 0))] = find(m.seam_pairs(i, 1));
  std::map<std::pair<int, int>, int> directed;
  for (int f = 0; f < m.num_triangles(); ++f)
    for (int k = 0; k < 3; ++k) directed[{find(m.F(f, k)), find(m.F(f, (k + 1) % 3))}]++;
  int bad = 0;
  for (const auto& [edge, count] : directed) bad += count > 1;
  return bad;
}

TEST(GarmentBuilder, DefaultPairingSewsAConsistentlyOrientedSurface) {
  TRYON_REQUIRE_SHARED("patterns/garmentcode/specs");
  for (const fs::path& file : shared_patterns()) {
    SCOPED_TRACE(file.string());
    const Pattern pattern = read_garmentcode(file);
    const GarmentBuild b = build_garment(pattern, BuildOptions{0.03});
    EXPECT_EQ(same_direction_edges(b.mesh), 0);
    // Flipping one stitch's pairing breaks it: the check can fail.
    Pattern flipped = pattern;
    flipped.stitches[0].same_direction = !flipped.stitches[0].same_direction;
    EXPECT_GT(same_direction_edges(build_garment(flipped, BuildOptions{0.03}).mesh), 0);
  }
}

TEST(GarmentBuilder, LegacyTemplatesAreLiftedOntoTheBody) {
  TRYON_REQUIRE_SHARED("patterns/garmentcode_gpg/templates/skirts/skirt_2_panels.json");
  const Pattern p = read_garmentcode(test::shared_data() / "patterns/garmentcode_gpg/templates/skirts/skirt_2_panels.json");
  BuildOptions o;
  o.body_height_m = 1.72;
  const GarmentBuild b = build_garment(p, o);
  EXPECT_NEAR(b.offset.y(), 1.12 * 1.72 / 1.66, 1e-12);
  EXPECT_FALSE(b.warnings.empty());
  // A skirt hangs between the knees and the waist of a 1.72 m body.
  EXPECT_GT(b.mesh.V.col(1).minCoeff(), 0.4);
  EXPECT_LT(b.mesh.V.col(1).maxCoeff(), 1.2);
  o.offset = Vec3(0, 2, 0);
  EXPECT_NEAR(build_garment(p, o).offset.y(), 2.0, 0);
}

// A current GarmentCode file with a floor-length skirt reaches below the feet too; it hangs
// from the waist and stays where its file puts it.
TEST(GarmentBuilder, FloorLengthSkirtOfACurrentFileIsNotLifted) {
  TRYON_REQUIRE_SHARED("patterns/garmentcodedata/rand_QH7ZNEZK61_specification.json");
  const Pattern p =
      read_garmentcode(test::shared_data() / "patterns/garmentcodedata/rand_QH7ZNEZK61_specification.json");
  BuildOptions o;
  o.body_height_m = 1.72;
  const GarmentBuild b = build_garment(p, o);
  EXPECT_EQ(b.offset, Vec3::Zero());
  EXPECT_LT(b.mesh.V.col(1).minCoeff(), -0.05);  // below the feet: the case the lift must not take
  EXPECT_GT(b.mesh.V.col(1).maxCoeff(), 1.4);    // its collar at the neck
}

// A current GarmentCode file is placed for GarmentCode's 1.72 m body: on a body more than 1 % taller
// or shorter its heights scale with the body's (x and z stay), within 1 % it is used as placed,
// and a pattern arranged on its own body (placed_for_height_m 0, as DXF) is never scaled.
TEST(GarmentBuilder, PlacementHeightsScaleToTheBodysHeight) {
  const Pattern p = read_garmentcode(test::assets() / "patterns/shirt_mean_specification.json");
  ASSERT_FALSE(p.legacy_format);
  EXPECT_DOUBLE_EQ(p.placed_for_height_m, 1.72);
  BuildOptions o;
  o.resolution_m = 0.05;
  o.body_height_m = 1.72;
  const GarmentBuild as_placed = build_garment(p, o);
  EXPECT_EQ(as_placed.height_scale, 1.0);
  o.body_height_m = 1.72 * 1.009;
  EXPECT_EQ(build_garment(p, o).mesh.V, as_placed.mesh.V);
  o.body_height_m = 1.72 * 1.05;
  const GarmentBuild taller = build_garment(p, o);
  EXPECT_DOUBLE_EQ(taller.height_scale, 1.05);
  ASSERT_EQ(taller.mesh.V.rows(), as_placed.mesh.V.rows());
  for (Eigen::Index v = 0; v < taller.mesh.V.rows(); ++v) {
    EXPECT_NEAR(taller.mesh.V(v, 1), 1.05 * as_placed.mesh.V(v, 1), 1e-12);
    EXPECT_EQ(taller.mesh.V(v, 0), as_placed.mesh.V(v, 0));
    EXPECT_EQ(taller.mesh.V(v, 2), as_placed.mesh.V(v, 2));
  }
  Pattern own = p;
  own.placed_for_height_m = 0;
  EXPECT_EQ(build_garment(own, o).mesh.V, as_placed.mesh.V);
}

TEST(GarmentBuilder, RefusesAbsurdWork) {
  TRYON_REQUIRE_SHARED("patterns/garmentcode/specs/shirt_mean_specification.json");
  const Pattern p = read_garmentcode(test::shared_data() / "patterns/garmentcode/specs/shirt_mean_specification.json");
  BuildOptions o;
  o.resolution_m = 0.0005;  // 0.5 mm: tens of millions of triangles
  EXPECT_THROW(build_garment(p, o), InputError);
  o.resolution_m = 0;
  EXPECT_THROW(build_garment(p, o), InputError);
}
