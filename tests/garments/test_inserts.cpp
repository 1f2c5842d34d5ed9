#include <gtest/gtest.h>

#include "garments/garment_builder.hpp"
#include "garments/inserts.hpp"

using namespace tryon;
using namespace tryon::garments;

namespace {

// A w × h rectangle, edges bottom, right, top, left, at `at`, facing +z (or turned by `rotation_deg`).
Panel rectangle(const std::string& name, double w, double h, const Vec3& at, const Vec3& rotation_deg = Vec3::Zero()) {
  Panel p;
  p.name = name;
  p.vertices = {{0, 0}, {w, 0}, {w, h}, {0, h}};
  for (int k = 0; k < 4; ++k) p.edges.push_back({k, (k + 1) % 4});
  p.translation = at;
  p.rotation_deg = rotation_deg;
  return p;
}

// A skirt-like panel (0.6 × 0.8 m in the plane z = 0.25) and two narrow panels (0.2 × 0.8 m)
// sewn only to it, laid out 0.05 m in front of it and far to its sides: insert_a sewn along its
// right edge to the skirt's left edge, insert_b along its left edge to the skirt's right edge.
Pattern skirt_with_two_inserts() {
  Pattern p;
  p.name = "inserts";
  p.panels = {rectangle("skirt", 0.6, 0.8, {-0.3, 0.2, 0.25}), rectangle("insert_a", 0.2, 0.8, {-1.2, 0.0, 0.30}),
              rectangle("insert_b", 0.2, 0.8, {0.9, 0.1, 0.30})};
  p.stitches = {{{1, 1}, {0, 3}}, {{2, 3}, {0, 1}}};
  return p;
}

Vec3 middle(const Pattern& p, const StitchSide& s, const Vec3& shift) {
  const Panel& panel = p.panels[s.panel];
  const Edge& e = panel.edges[s.edge];
  return (place_point(panel, panel.vertices[e.start]) + place_point(panel, panel.vertices[e.end])) / 2 + shift;
}

}  // namespace

TEST(Inserts, AnInsertMovesInItsPlaneUntilItsSeamMeetsTheEdgeItIsSewnTo) {
  const Pattern p = skirt_with_two_inserts();
  std::vector<std::string> notes;
  const std::vector<Vec3> shift = insert_shifts(p, notes);
  ASSERT_EQ(shift.size(), 3u);
  EXPECT_EQ(shift[0], Vec3::Zero());  // the panel they fill stays
  // The first insert: its seam's middle over the skirt's left edge's middle (x, y), still
  // 0.05 m in front of the skirt.
  const Vec3 a = middle(p, p.stitches[0].a, shift[1]), a_to = middle(p, p.stitches[0].b, Vec3::Zero());
  EXPECT_NEAR(a.x(), a_to.x(), 1e-9);
  EXPECT_NEAR(a.y(), a_to.y(), 1e-9);
  EXPECT_NEAR(shift[1].z(), 0, 1e-12);
  // The second insert of the same panel: seated too, and 1 cm further off the skirt.
  const Vec3 b = middle(p, p.stitches[1].a, shift[2]), b_to = middle(p, p.stitches[1].b, Vec3::Zero());
  EXPECT_NEAR(b.x(), b_to.x(), 1e-9);
  EXPECT_NEAR(b.y(), b_to.y(), 1e-9);
  EXPECT_NEAR(shift[2].z(), 0.01, 1e-12);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("'insert_a', 'insert_b'"), std::string::npos) << notes[0];
}

TEST(Inserts, InsertsBehindThePanelTheyFillGoFurtherBackwards) {
  Pattern p = skirt_with_two_inserts();
  p.panels[1].translation.z() = p.panels[2].translation.z() = 0.20;
  std::vector<std::string> notes;
  const std::vector<Vec3> shift = insert_shifts(p, notes);
  EXPECT_NEAR(shift[1].z(), 0, 1e-12);
  EXPECT_NEAR(shift[2].z(), -0.01, 1e-12);
}

TEST(Inserts, AnInsertMovesOnlyInItsOwnPlane) {
  // insert_b alone, turned 90° about y: its plane is x = 0.9, and it reaches from z = 0.30
  // (its sewn edge) to z = 0.10. It moves in y and z only, its seam's middle onto the skirt's
  // right edge's middle in those two.
  Pattern p = skirt_with_two_inserts();
  p.panels.erase(p.panels.begin() + 1);
  p.panels[1].rotation_deg = Vec3(0, 90, 0);
  p.stitches = {{{1, 3}, {0, 1}}};
  std::vector<std::string> notes;
  const std::vector<Vec3> shift = insert_shifts(p, notes);
  EXPECT_NEAR(shift[1].x(), 0, 1e-12);
  const Vec3 seam = middle(p, p.stitches[0].a, shift[1]), to = middle(p, p.stitches[0].b, Vec3::Zero());
  EXPECT_NEAR(seam.y(), to.y(), 1e-9);
  EXPECT_NEAR(seam.z(), to.z(), 1e-9);
}

TEST(Inserts, PanelsSewnOnlyToEachOtherOrToSeveralPanelsStay) {
  // Two halves of the same size sewn only to each other (a two-panel skirt) are no inserts;
  // nor is a small panel sewn to two others (a cuff sewn to a sleeve and to its other half),
  // nor one sewn to two edges of a panel that are not next to each other (a jacket's front
  // half sewn to the back at the shoulder and at the side).
  Pattern p;
  p.panels = {rectangle("front", 0.6, 0.8, {-0.3, 0.2, 0.25}), rectangle("back", 0.6, 0.8, {-0.3, 0.2, -0.25})};
  p.stitches = {{{0, 1}, {1, 3}}, {{0, 3}, {1, 1}}};
  std::vector<std::string> notes;
  for (const Vec3& s : insert_shifts(p, notes)) EXPECT_EQ(s, Vec3::Zero());
  p.panels.push_back(rectangle("cuff", 0.1, 0.1, {1.0, 1.0, 0.0}));
  p.stitches.push_back({{2, 0}, {0, 2}});
  p.stitches.push_back({{2, 2}, {1, 2}});
  for (const Vec3& s : insert_shifts(p, notes)) EXPECT_EQ(s, Vec3::Zero());
  Pattern jacket;
  jacket.panels = {rectangle("back", 0.6, 0.8, {-0.3, 0.2, -0.25}), rectangle("front_left", 0.2, 0.8, {-1.0, 0.2, 0.25})};
  jacket.stitches = {{{1, 2}, {0, 2}}, {{1, 0}, {0, 0}}};  // to the back's top and bottom: edges apart
  for (const Vec3& s : insert_shifts(jacket, notes)) EXPECT_EQ(s, Vec3::Zero());
  EXPECT_TRUE(notes.empty());
  jacket.stitches.pop_back();  // sewn at the top only: an insert
  EXPECT_NE(insert_shifts(jacket, notes)[1], Vec3::Zero());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("'front_left'"), std::string::npos);
}

TEST(Inserts, TheBuiltMeshHasTheInsertsAtTheirSeams) {
  const Pattern p = skirt_with_two_inserts();
  const GarmentBuild b = build_garment(p, BuildOptions{0.05});
  // The seam pairs of both stitches: each vertex of an insert's sewn edge lies 0.05 m (insert_a)
  // or 0.06 m (insert_b, one layer further) straight in front of the one it is sewn to.
  int n = 0;
  for (Eigen::Index i = 0; i < b.mesh.seam_pairs.rows(); ++i, ++n) {
    const Vec3 step = b.mesh.V.row(b.mesh.seam_pairs(i, 1)) - b.mesh.V.row(b.mesh.seam_pairs(i, 0));
    EXPECT_NEAR(step.x(), 0, 1e-9);
    EXPECT_NEAR(step.y(), 0, 1e-9);
    EXPECT_NEAR(step.z(), b.mesh.stitch_of_pair[i] == 0 ? -0.05 : -0.06, 1e-9);
  }
  EXPECT_EQ(n, 2 * 17);  // two 0.8 m edges at 0.05 m
  EXPECT_NE(b.warnings.back().find("inserts 'insert_a', 'insert_b' moved"), std::string::npos) << b.warnings.back();
}
