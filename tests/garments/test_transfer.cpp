#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>

#include "garments/garment_builder.hpp"
#include "garments/garmentcode_reader.hpp"
#include "garments/transfer.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::garments;

namespace {

GarmentMesh shirt_at(double resolution_m) {
  const Pattern p = read_garmentcode(test::assets() / "patterns" / "shirt_mean_specification.json");
  BuildOptions options;
  options.resolution_m = resolution_m;
  return build_garment(p, options).mesh;
}

// A smooth map of each panel's 2D coordinates into 3D, different per panel.
Vec3 bent(const Vec2& uv, int panel) {
  const double r = 0.2 + 0.05 * panel;
  return {r * std::sin(uv.x() / r), uv.y() + 0.1 * panel, r * std::cos(uv.x() / r)};
}

Points3 positions_of(const GarmentMesh& g, const std::function<Vec3(const Vec2&, int)>& map) {
  Points3 x(g.num_vertices(), 3);
  for (int v = 0; v < g.num_vertices(); ++v)
    x.row(v) = map(g.rest.row(v).transpose(), g.panel_of_vertex[v]).transpose();
  return x;
}

}  // namespace

// Inside one coarse triangle the transfer is affine: a drape that is affine on each panel comes
// over exactly, wherever the fine vertex lies (inside, or just outside a curved outline).
TEST(TransferPositions, CarriesAnAffineMapPerPanelExactly) {
  const GarmentMesh coarse = shirt_at(0.04), fine = shirt_at(0.01);
  ASSERT_GT(fine.num_vertices(), 4 * coarse.num_vertices());
  auto affine = [](const Vec2& uv, int panel) {
    Eigen::Matrix<double, 3, 2> A;
    A << 0.9, 0.1 * panel, -0.2, 1.1, 0.3, 0.05;
    return Vec3(A * uv + Vec3(0.01 * panel, -0.5, 0.2));
  };
  const Points3 x = transfer_positions(coarse, positions_of(coarse, affine), fine);
  const Points3 expected = positions_of(fine, affine);
  ASSERT_EQ(x.rows(), fine.num_vertices());
  EXPECT_LT((x - expected).rowwise().norm().maxCoeff(), 1e-12);
}

// A curved drape: every fine vertex lands on the coarse mesh's piecewise-linear surface, within
// the interpolation error of the coarse edge length (h² × curvature, plus the outline's sag).
TEST(TransferPositions, InterpolatesACurvedDrapeWithinTheCoarseMeshError) {
  const GarmentMesh coarse = shirt_at(0.04), fine = shirt_at(0.01);
  const Points3 x = transfer_positions(coarse, positions_of(coarse, bent), fine);
  const Points3 expected = positions_of(fine, bent);
  const double err = (x - expected).rowwise().norm().maxCoeff();
  EXPECT_GT(err, 0.0);
  EXPECT_LT(err, 0.04 * 0.04 / 0.2);  // h² / r, above the h² / (8 r) sag of a chord
  // Seam partners of the fine mesh: as far apart as the map itself puts them.
  for (Eigen::Index i = 0; i < fine.seam_pairs.rows(); ++i) {
    const double want = (expected.row(fine.seam_pairs(i, 0)) - expected.row(fine.seam_pairs(i, 1))).norm();
    const double got = (x.row(fine.seam_pairs(i, 0)) - x.row(fine.seam_pairs(i, 1))).norm();
    EXPECT_NEAR(got, want, 2 * 0.04 * 0.04 / 0.2);
  }
}

TEST(TransferPositions, RefusesMeshesOfDifferentPanels) {
  const GarmentMesh coarse = shirt_at(0.04);
  GarmentMesh other = shirt_at(0.04);
  other.panel_names.pop_back();
  EXPECT_THROW(transfer_positions(coarse, coarse.V, other), std::invalid_argument);
  EXPECT_THROW(transfer_positions(coarse, Points3::Zero(3, 3), coarse), std::invalid_argument);
}
