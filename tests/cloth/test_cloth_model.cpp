#include "cloth/cloth_model.hpp"
#include "cloth/forces.hpp"
#include "cloth/integrators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "cloth_fixtures.hpp"
#include "core/error.hpp"
#include "core/trimesh.hpp"

using namespace tryon;
using namespace tryon::cloth;
using tryon::cloth::test::hanging_square;
using tryon::cloth::test::two_panels;

namespace {
double rest_area(const garments::GarmentMesh& g) {
  double a = 0;
  for (int t = 0; t < g.num_triangles(); ++t) {
    const Vec2 e1 = g.rest.row(g.F(t, 1)) - g.rest.row(g.F(t, 0));
    const Vec2 e2 = g.rest.row(g.F(t, 2)) - g.rest.row(g.F(t, 0));
    a += 0.5 * std::abs(e1.x() * e2.y() - e1.y() * e2.x());
  }
  return a;
}
}  // namespace

TEST(ClothModel, GridParticlesMassAndSprings) {
  const auto g = hanging_square(6, 0.5);
  Material mat = load_material("cotton_poplin");
  const ClothModel m = build_cloth_model(g, mat);
  ASSERT_EQ(m.num_particles(), 36);
  EXPECT_NEAR(m.mass.sum(), mat.density * 0.25, 1e-12);
  EXPECT_NEAR(m.mass.sum(), mat.density * rest_area(g), 1e-12);
  // One stretch spring per mesh edge, one cross spring per interior edge.
  const EdgeTopology topo = edge_topology(g.F);
  EXPECT_EQ(m.springs.num_stretch, topo.edges);
  EXPECT_EQ(m.springs.size() - m.springs.num_stretch, topo.edges - topo.boundary_edges);
  EXPECT_EQ(m.hinges.size(), 0);  // spring bending
  for (int s = 0; s < m.springs.size(); ++s) {
    // Within one flat panel every rest length is the 2D distance of the particles.
    const int a = m.vertex_of_particle[m.springs.ends(s, 0)];
    const int b = m.vertex_of_particle[m.springs.ends(s, 1)];
    EXPECT_NEAR(m.springs.rest[s], (g.rest.row(a) - g.rest.row(b)).norm(), 1e-14);
    EXPECT_DOUBLE_EQ(m.springs.rest_now[s], m.springs.rest[s]);
    EXPECT_GT(m.springs.stiffness[s], 0);
    EXPECT_DOUBLE_EQ(m.springs.damping[s], mat.damping * m.springs.stiffness[s]);
  }
  // Incidence lists hold every spring twice, ascending per particle.
  EXPECT_EQ(static_cast<int>(m.spring_index.size()), 2 * m.springs.size());
  for (int p = 0; p < m.num_particles(); ++p)
    for (int k = m.spring_start[p]; k + 1 < m.spring_start[p + 1]; ++k)
      EXPECT_LT(m.spring_index[k], m.spring_index[k + 1]);
  // Stiffness scales as modulus × area / L²: the same for a finer, smaller grid of equal shape.
  const ClothModel fine = build_cloth_model(hanging_square(6, 0.25), mat);
  EXPECT_NEAR(fine.springs.stiffness[0], m.springs.stiffness[0], 1e-9 * m.springs.stiffness[0]);
}

TEST(ClothModel, DihedralHingesOnInteriorEdges) {
  const auto g = hanging_square(5, 0.4);
  Material mat = load_material("denim");
  mat.bend_model = BendModel::dihedral;
  const ClothModel m = build_cloth_model(g, mat);
  const EdgeTopology topo = edge_topology(g.F);
  EXPECT_EQ(m.hinges.size(), topo.edges - topo.boundary_edges);
  EXPECT_EQ(m.degenerate_hinges_skipped, 0);
  for (int h = 0; h < m.hinges.size(); ++h) {
    HingePositions p;
    for (int c = 0; c < 4; ++c) p[c] = m.x.row(m.hinges.verts(h, c)).transpose();
    double theta;
    ASSERT_TRUE(dihedral_angle(p, theta));
    EXPECT_NEAR(theta, 0.0, 1e-12);  // consistently oriented, flat
    EXPECT_DOUBLE_EQ(m.hinges.stiffness[h], 12.0 * mat.bend_stiffness);
  }
}

TEST(ClothModel, SeamPairsMergedAtTheirMean) {
  const int nx = 4, ny = 5;
  const double w = 0.2, h = 0.3, gap = 0.04;
  const auto g = two_panels(nx, ny, w, h, h, gap);
  const Material mat = load_material("polyester");
  const ClothModel m = build_cloth_model(g, mat);
  EXPECT_EQ(m.num_particles(), 2 * nx * ny - ny);
  EXPECT_EQ(seam_gap_max(m, g, m.x), 0.0);
  for (int s = 0; s < g.seam_pairs.rows(); ++s) {
    const int a = g.seam_pairs(s, 0), b = g.seam_pairs(s, 1);
    ASSERT_EQ(m.particle_of_vertex[a], m.particle_of_vertex[b]);
    const Vec3 mean = 0.5 * (g.V.row(a) + g.V.row(b)).transpose();
    EXPECT_LT((m.x.row(m.particle_of_vertex[a]).transpose() - mean).norm(), 1e-15);
  }
  EXPECT_NEAR(m.mass.sum(), mat.density * 2 * w * h, 1e-12);
  // Garment positions map back through the particles.
  const Points3 V = garment_positions(m);
  ASSERT_EQ(V.rows(), g.num_vertices());
  for (int v = 0; v < g.num_vertices(); ++v)
    EXPECT_EQ(V.row(v), m.x.row(m.particle_of_vertex[v]));
  // Seam-spanning springs start stretched: their rest length starts at the strain limit.
  int ramped = 0;
  for (int s = 0; s < m.springs.size(); ++s) {
    const double l0 = (m.x.row(m.springs.ends(s, 1)) - m.x.row(m.springs.ends(s, 0))).norm();
    EXPECT_LE(l0, (1 + mat.strain_limit) * m.springs.rest_now[s] * (1 + 1e-12));
    if (m.springs.rest_now[s] > m.springs.rest[s]) ++ramped;
  }
  EXPECT_GT(ramped, 0);
  // Without merging the gap stays open.
  ModelOptions open;
  open.merge_seams = false;
  const ClothModel mo = build_cloth_model(g, mat, open);
  EXPECT_EQ(mo.num_particles(), 2 * nx * ny);
  EXPECT_NEAR(seam_gap_max(mo, g, mo.x), gap, 1e-12);
}

TEST(ClothModel, CrossSeamRestLengthsFromUnfoldedPanels) {
  // Two equal panels: unfolded about the seam they form one flat 2D sheet in which the right
  // panel is shifted by the width; cross springs over the seam must have that sheet's lengths.
  const int nx = 4, ny = 4;
  const double w = 0.21, h = 0.3;
  const auto g = two_panels(nx, ny, w, h, h, 0.05);
  const ClothModel m = build_cloth_model(g, load_material("polyester"));
  auto sheet = [&](int v) {
    Vec2 r = g.rest.row(v);
    if (g.panel_of_vertex[v] == 1) r.x() += w;
    return r;
  };
  std::set<int> on_seam;
  for (int j = 0; j < ny; ++j) on_seam.insert(m.particle_of_vertex[g.seam_pairs(j, 0)]);
  int across = 0;
  for (int s = m.springs.num_stretch; s < m.springs.size(); ++s) {
    const int pa = m.springs.ends(s, 0), pb = m.springs.ends(s, 1);
    const int a = m.vertex_of_particle[pa], b = m.vertex_of_particle[pb];
    EXPECT_NEAR(m.springs.rest[s], (sheet(a) - sheet(b)).norm(), 1e-12);
    if (!on_seam.count(pa) && !on_seam.count(pb) && g.panel_of_vertex[a] != g.panel_of_vertex[b])
      ++across;
  }
  EXPECT_EQ(across, ny - 1);  // one per seam segment
}

TEST(ClothModel, SeamCrossSpringsOnceSewnPushOnlyAgainstAFoldOverARightAngle) {
  // Two sewn (not merged) panels, the right one turned about the seam line by `fold` from flat.
  const int nx = 4, ny = 5;
  const double w = 0.2, h = 0.3;
  const auto g = two_panels(nx, ny, w, h, h, 0.05);
  ModelOptions sewn;
  sewn.merge_seams = false;
  ClothModel m = build_cloth_model(g, load_material("cotton_poplin"), sewn);
  const int before = m.springs.size();
  ASSERT_EQ(add_seam_cross_springs(m, g), ny - 1);  // one per seam segment
  ASSERT_EQ(m.springs.size(), before + ny - 1);
  ASSERT_EQ(static_cast<int>(m.spring_index.size()), 2 * m.springs.size());
  auto folded = [&](double fold_deg) {
    const double phi = fold_deg * M_PI / 180.0;
    Points3 x(m.num_particles(), 3);
    for (int p = 0; p < m.num_particles(); ++p) {
      const int v = m.vertex_of_particle[p];
      const Vec2 r = g.rest.row(v);
      if (g.panel_of_vertex[v] == 0)
        x.row(p) << r.x(), r.y(), 0.0;
      else
        x.row(p) << w + r.x() * std::cos(phi), r.y(), r.x() * std::sin(phi);
    }
    return x;
  };
  // The rest length is the opposite vertices' distance with the panels at a right angle.
  const Points3 right_angle = folded(90);
  for (int s = before; s < m.springs.size(); ++s) {
    ASSERT_EQ(m.springs.kind[s], SpringKind::seam_cross);
    const int a = m.springs.ends(s, 0), b = m.springs.ends(s, 1);
    EXPECT_NE(g.panel_of_vertex[m.vertex_of_particle[a]], g.panel_of_vertex[m.vertex_of_particle[b]]);
    EXPECT_NEAR(m.springs.rest[s], (right_angle.row(a) - right_angle.row(b)).norm(), 1e-12);
    EXPECT_GT(m.springs.stiffness[s], 0);
  }
  // Off until the stitch is sewn: no force even folded flat onto the other panel.
  const Points3 v = Points3::Constant(m.num_particles(), 3, 0.1);  // damping would show
  ForceWorkspace ws;
  Points3 f;
  compute_forces(m, folded(179), v, Vec3::Zero(), true, ws, f);
  for (int s = before; s < m.springs.size(); ++s) EXPECT_EQ(ws.spring_f[s], Vec3::Zero());
  // Still open by 5 cm as placed: not switched on; one pair apart by 1 mm: neither.
  EXPECT_EQ(switch_on_sewn_seams(m, m.x, 1e-3), 0);
  Points3 almost = folded(0);
  almost(m.particle_of_vertex[g.seam_pairs(ny / 2, 1)], 2) += 1e-3;
  EXPECT_EQ(switch_on_sewn_seams(m, almost, 1e-3), 0);
  EXPECT_EQ(switch_on_sewn_seams(m, folded(0), 1e-3), 1);  // the one stitch
  EXPECT_EQ(switch_on_sewn_seams(m, m.x, 1e-3), 0);        // and it stays on
  for (int s = before; s < m.springs.size(); ++s) EXPECT_EQ(m.springs.rest_now[s], m.springs.rest[s]);
  // Then no force (nor Jacobian, nor damping) while the seam is open, flat or folded less than
  // a right angle; a push apart beyond it.
  compute_forces(m, m.x, v, Vec3::Zero(), true, ws, f);  // as placed: open by 5 cm
  for (int s = before; s < m.springs.size(); ++s) EXPECT_EQ(ws.spring_f[s], Vec3::Zero());
  for (double fold : {0.0, 45.0, 89.0, 91.0, 150.0, 179.0}) {
    const Points3 x = folded(fold);
    compute_forces(m, x, v, Vec3::Zero(), true, ws, f);
    for (int s = before; s < m.springs.size(); ++s) {
      const Vec3 away = x.row(m.springs.ends(s, 0)) - x.row(m.springs.ends(s, 1));
      if (fold < 90) {
        EXPECT_EQ(ws.spring_f[s], Vec3::Zero()) << fold;
        EXPECT_EQ(ws.spring_K[s], Mat3::Zero()) << fold;
        EXPECT_EQ(ws.spring_D[s], Mat3::Zero()) << fold;
      } else {
        EXPECT_GT(ws.spring_f[s].dot(away), 0) << fold;  // pushes end a away from end b
        EXPECT_NE(ws.spring_K[s], Mat3::Zero()) << fold;
      }
    }
  }
}

TEST(ClothModel, GatheredSeamKeepsBothRestLengths) {
  const int nx = 4, ny = 6;
  const double hA = 0.3, hB = 0.2;
  const auto g = two_panels(nx, ny, 0.2, hA, hB, 0.0);
  const ClothModel m = build_cloth_model(g, load_material("cotton_jersey"));
  // Each seam segment is an edge of both panels: two stretch springs on the same particles,
  // with the left (hA) and right (hB) rest lengths.
  std::multiset<double> seam_rest;
  for (int j = 0; j + 1 < ny; ++j) {
    const int p0 = m.particle_of_vertex[g.seam_pairs(j, 0)];
    const int p1 = m.particle_of_vertex[g.seam_pairs(j + 1, 0)];
    for (int s = 0; s < m.springs.num_stretch; ++s)
      if (std::minmax(m.springs.ends(s, 0), m.springs.ends(s, 1)) == std::minmax(p0, p1))
        seam_rest.insert(m.springs.rest[s]);
  }
  ASSERT_EQ(seam_rest.size(), static_cast<std::size_t>(2 * (ny - 1)));
  for (double r : seam_rest) {
    const bool short_side = std::abs(r - hB / (ny - 1)) < 1e-12;
    const bool long_side = std::abs(r - hA / (ny - 1)) < 1e-12;
    EXPECT_TRUE(short_side || long_side) << r;
  }
  EXPECT_NEAR(*seam_rest.begin(), hB / (ny - 1), 1e-12);
  EXPECT_NEAR(*seam_rest.rbegin(), hA / (ny - 1), 1e-12);
  const auto n_short = std::count_if(seam_rest.begin(), seam_rest.end(),
                                     [&](double r) { return r < 0.5 * (hA + hB) / (ny - 1); });
  EXPECT_EQ(n_short, ny - 1);
}

TEST(ClothModel, DartTipTrianglesCollapseKeepingMass) {
  // Stitching two edges that meet at a vertex (a dart) merges vertices of one triangle: that
  // triangle leaves the force model but its mass stays.
  auto g = hanging_square(4, 0.3);
  g.seam_pairs.resize(1, 2);
  g.seam_pairs << g.F(0, 1), g.F(0, 2);
  const Material mat = load_material("denim");
  const ClothModel m = build_cloth_model(g, mat);
  EXPECT_EQ(m.num_particles(), g.num_vertices() - 1);
  EXPECT_LT(m.F.rows(), g.F.rows());
  EXPECT_NEAR(m.mass.sum(), mat.density * 0.09, 1e-12);
  for (int t = 0; t < m.F.rows(); ++t) {
    EXPECT_NE(m.F(t, 0), m.F(t, 1));
    EXPECT_NE(m.F(t, 1), m.F(t, 2));
    EXPECT_NE(m.F(t, 0), m.F(t, 2));
  }
  for (int s = 0; s < m.springs.size(); ++s) EXPECT_NE(m.springs.ends(s, 0), m.springs.ends(s, 1));
}

TEST(ClothModel, InconsistentWindingGetsNoHingeButKeepsCrossSprings) {
  const int nx = 4, ny = 5;
  auto g = two_panels(nx, ny, 0.2, 0.3, 0.3, 0.0);
  Material mat = load_material("polyester");
  mat.bend_model = BendModel::dihedral;
  const ClothModel consistent = build_cloth_model(g, mat);
  EXPECT_EQ(consistent.degenerate_hinges_skipped, 0);
  for (int t = 0; t < g.num_triangles(); ++t)
    if (g.panel_of_triangle[t] == 1) std::swap(g.F(t, 1), g.F(t, 2));  // flip the right panel
  const ClothModel flipped = build_cloth_model(g, mat);
  EXPECT_EQ(flipped.degenerate_hinges_skipped, ny - 1);  // the seam edges
  EXPECT_EQ(flipped.hinges.size(), consistent.hinges.size() - (ny - 1));
  EXPECT_EQ(flipped.springs.size(), consistent.springs.size());
}

TEST(ClothModel, InvalidMeshIsInputError) {
  const Material mat = load_material("denim");
  auto g = hanging_square(3, 0.2);
  auto bad_index = g;
  bad_index.F(0, 0) = 99;
  EXPECT_THROW(build_cloth_model(bad_index, mat), InputError);
  auto zero_area = g;
  zero_area.rest.row(zero_area.F(0, 1)) = zero_area.rest.row(zero_area.F(0, 0));
  EXPECT_THROW(build_cloth_model(zero_area, mat), InputError);
  auto nan = g;
  nan.V(0, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(build_cloth_model(nan, mat), InputError);
  auto short_rest = g;
  short_rest.rest.conservativeResize(2, 2);
  EXPECT_THROW(build_cloth_model(short_rest, mat), InputError);
  auto bad_seam = g;
  bad_seam.seam_pairs.resize(1, 2);
  bad_seam.seam_pairs << 0, 1000;
  EXPECT_THROW(build_cloth_model(bad_seam, mat), InputError);
  Material bad_mat = mat;
  bad_mat.density = 0;
  EXPECT_THROW(build_cloth_model(g, bad_mat), InputError);
}
