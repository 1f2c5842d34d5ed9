#include "outputs/fit_maps.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "scenes.hpp"

using namespace tryon;
using namespace tryon::outputs;
using tryon::test::box_body;
using tryon::test::cloth_grid;

TEST(VertexStrain, UniformScalingGivesTheScaleMinusOneEverywhere) {
  const TriMesh g = cloth_grid(9, 7, 0.4, 0.3, Vec3(0, 1, 0), Vec3::UnitX(), Vec3::UnitZ());
  for (const double s : {1.1, 0.97, 1.0}) {
    const Points3 V = s * g.V;  // every edge scales by s, so every edge strain is s − 1
    const Eigen::VectorXd e = vertex_strain(V, g.F, g.UV);
    ASSERT_EQ(e.size(), g.V.rows());
    for (Eigen::Index i = 0; i < e.size(); ++i) EXPECT_NEAR(e[i], s - 1, 1e-12);
  }
}

TEST(VertexStrain, MeanOverIncidentEdgesOfOneTriangle) {
  Points2 rest(3, 2);
  rest << 0, 0, 1, 0, 0, 1;
  Points3 V(3, 3);
  V << 0, 0, 0, 2, 0, 0, 0, 1, 0;  // edge 01 doubled, edge 02 unchanged
  Triangles F(1, 3);
  F << 0, 1, 2;
  const double e01 = 1.0, e02 = 0.0, e12 = std::sqrt(5.0) / std::sqrt(2.0) - 1;
  const Eigen::VectorXd e = vertex_strain(V, F, rest);
  EXPECT_NEAR(e[0], (e01 + e02) / 2, 1e-12);
  EXPECT_NEAR(e[1], (e01 + e12) / 2, 1e-12);
  EXPECT_NEAR(e[2], (e02 + e12) / 2, 1e-12);
}

TEST(VertexStrain, SharedEdgeCountsOnce) {
  // Unit square of two triangles sharing the diagonal 0–2; vertex 2 moves to (2, 2).
  Points2 rest(4, 2);
  rest << 0, 0, 1, 0, 1, 1, 0, 1;
  Points3 V(4, 3);
  V << 0, 0, 0, 1, 0, 0, 2, 2, 0, 0, 1, 0;
  Triangles F(2, 3);
  F << 0, 1, 2, 0, 2, 3;
  const Eigen::VectorXd e = vertex_strain(V, F, rest);
  // Vertex 0: edges 01 (0), 02 (√8/√2 − 1 = 1), 03 (0): mean 1/3 (½ if the diagonal counted twice).
  EXPECT_NEAR(e[0], 1.0 / 3, 1e-12);
  const double side = std::sqrt(5.0) - 1;  // edges 12 and 23
  EXPECT_NEAR(e[2], (side + 1 + side) / 3, 1e-12);
}

TEST(VertexStrain, ZeroRestEdgesAreSkippedAndIsolatedVerticesGetZero) {
  Points2 rest(4, 2);
  rest << 0, 0, 0, 0, 1, 0, 5, 5;  // 0 and 1 coincide at rest; 3 is isolated
  Points3 V(4, 3);
  V << 0, 0, 0, 0.1, 0, 0, 1.5, 0, 0, 9, 9, 9;
  Triangles F(1, 3);
  F << 0, 1, 2;
  const Eigen::VectorXd e = vertex_strain(V, F, rest);
  EXPECT_TRUE(e.allFinite());
  EXPECT_NEAR(e[0], 0.5, 1e-12);  // only edge 02 counts: 1.5 / 1 − 1
  EXPECT_NEAR(e[1], 0.4, 1e-12);  // only edge 12: 1.4 / 1 − 1
  EXPECT_EQ(e[3], 0.0);
}

TEST(VertexStrain, RejectsMismatchedInput) {
  const TriMesh g = cloth_grid(3, 3, 1, 1, Vec3::Zero(), Vec3::UnitX(), Vec3::UnitY());
  EXPECT_THROW(vertex_strain(g.V, g.F, g.UV.topRows(4)), InputError);
  Triangles bad = g.F;
  bad(0, 0) = 99;
  EXPECT_THROW(vertex_strain(g.V, bad, g.UV), InputError);
}

TEST(SignedDistance, AboveInsideAndBesideABox) {
  const TriMesh body = box_body(Vec3(0, 1, 0), Vec3(0.2, 0.2, 0.2));  // top face at y = 1.2
  // A grid 3 cm above the top face, well inside its outline: every distance is 3 cm.
  const TriMesh above = cloth_grid(6, 6, 0.2, 0.2, Vec3(-0.1, 1.23, -0.1), Vec3::UnitX(), Vec3::UnitZ());
  const Eigen::VectorXd d = signed_distance_to_body(above.V, body);
  for (Eigen::Index i = 0; i < d.size(); ++i) EXPECT_NEAR(d[i], 0.03, 1e-12);
  // A grid 5 cm below the top face, inside: the top face is nearest (sides are ≥ 10 cm away).
  const TriMesh inside = cloth_grid(6, 6, 0.2, 0.2, Vec3(-0.1, 1.15, -0.1), Vec3::UnitX(), Vec3::UnitZ());
  const Eigen::VectorXd di = signed_distance_to_body(inside.V, body);
  for (Eigen::Index i = 0; i < di.size(); ++i) EXPECT_NEAR(di[i], -0.05, 1e-12);
  // Off a corner, the nearest point is the corner.
  Points3 p(1, 3);
  p << 0.3, 1.3, 0.3;
  EXPECT_NEAR(signed_distance_to_body(p, body)[0], std::sqrt(3.0) * 0.1, 1e-12);
  EXPECT_THROW(signed_distance_to_body(p, TriMesh{}), InputError);
}

TEST(FitMaps, StretchedClothOverABox) {
  const TriMesh body = box_body(Vec3(0, 1, 0), Vec3(0.2, 0.2, 0.2));
  TriMesh cloth = cloth_grid(11, 11, 0.3, 0.3, Vec3(-0.15, 1.22, -0.15), Vec3::UnitX(), Vec3::UnitZ());
  // Stretch the 3D cloth by 4 % in both directions about its centre: the rest stays as it was.
  const Vec3 c(0, 1.22, 0);
  for (Eigen::Index i = 0; i < cloth.V.rows(); ++i)
    cloth.V.row(i) = (c + 1.04 * (Vec3(cloth.V.row(i)) - c)).transpose();
  const FitMaps maps = compute_fit_maps(cloth.V, cloth.F, cloth.UV, body);
  ASSERT_EQ(maps.strain.size(), cloth.V.rows());
  ASSERT_EQ(maps.distance_m.size(), cloth.V.rows());
  const Range rs = range_of(maps.strain), rd = range_of(maps.distance_m);
  EXPECT_NEAR(rs.min, 0.04, 1e-12);
  EXPECT_NEAR(rs.max, 0.04, 1e-12);
  EXPECT_NEAR(rd.min, 0.02, 1e-12);  // 2 cm above the top face everywhere (the cloth stays within it)
  EXPECT_NEAR(rd.max, 0.02, 1e-12);

  // Colours follow the fixed scales.
  const std::vector<Rgb> cs = fit_map_colors(maps, FitMap::strain),
                         cd = fit_map_colors(maps, FitMap::distance);
  ASSERT_EQ(cs.size(), static_cast<std::size_t>(cloth.V.rows()));
  for (std::size_t i = 0; i < cs.size(); ++i) {
    EXPECT_EQ(cs[i], color_at(strain_scale(), maps.strain[i]));
    EXPECT_EQ(cd[i], color_at(distance_scale(), maps.distance_m[i]));
  }
  EXPECT_TRUE(fit_map_colors(maps, FitMap::none).empty());

  // Without a body there is no distance map, and asking for its colours says so.
  const FitMaps no_body = compute_fit_maps(cloth.V, cloth.F, cloth.UV, TriMesh{});
  EXPECT_EQ(no_body.distance_m.size(), 0);
  EXPECT_THROW(fit_map_colors(no_body, FitMap::distance), InputError);
}

TEST(FitMaps, SameResultForAnyThreadCount) {
  const TriMesh body = box_body(Vec3(0, 1, 0), Vec3(0.2, 0.3, 0.15));
  TriMesh cloth = cloth_grid(40, 40, 0.6, 0.6, Vec3(-0.3, 0.7, 0.18), Vec3::UnitX(), Vec3::UnitY());
  for (Eigen::Index i = 0; i < cloth.V.rows(); ++i)
    cloth.V(i, 2) += 0.05 * std::sin(7 * cloth.V(i, 0)) * std::cos(5 * cloth.V(i, 1));
  set_num_threads(1);
  const FitMaps one = compute_fit_maps(cloth.V, cloth.F, cloth.UV, body);
  set_num_threads(4);
  const FitMaps four = compute_fit_maps(cloth.V, cloth.F, cloth.UV, body);
  set_num_threads(0);
  EXPECT_EQ(one.strain, four.strain);
  EXPECT_EQ(one.distance_m, four.distance_m);
  // The wavy cloth dips into the box in places and stands off it in others.
  const Range r = range_of(one.distance_m);
  EXPECT_LT(r.min, 0);
  EXPECT_GT(r.max, 0);
}

TEST(FitMaps, RangeSkipsNanAndNamesRoundTrip) {
  Eigen::VectorXd v(4);
  v << 0.5, std::numeric_limits<double>::quiet_NaN(), -0.25, 0.125;
  const Range r = range_of(v);
  EXPECT_EQ(r.min, -0.25);
  EXPECT_EQ(r.max, 0.5);
  const Range e = range_of(Eigen::VectorXd());
  EXPECT_TRUE(std::isnan(e.min) && std::isnan(e.max));
  for (FitMap m : {FitMap::none, FitMap::strain, FitMap::distance})
    EXPECT_EQ(parse_fit_map(fit_map_name(m)), m);
  EXPECT_THROW(parse_fit_map("pressure"), InputError);
  EXPECT_THROW(fit_map_scale(FitMap::none), InputError);
}
