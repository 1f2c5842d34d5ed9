// Body landmarks from horizontal cuts, on the shared GarmentCode and MakeHuman bodies.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "avatars/avatar.hpp"
#include "avatars/landmarks.hpp"
#include "collision/test_meshes.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::avatars;

TEST(Landmarks, CutLoopsOfACubeAreOneSquare) {
  // A unit cube (12 triangles): any horizontal cut inside is one loop of perimeter 4.
  TriMesh cube = tryon::test::cube(0.5);
  cube.V.array() += 0.5;
  const auto loops = cut_loops(cube, 0.3);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_NEAR(loops[0].perimeter, 4.0, 1e-12);
  EXPECT_NEAR(loops[0].centre.y(), 0.3, 1e-12);
  EXPECT_TRUE(cut_loops(cube, 1.5).empty());
}

TEST(Landmarks, SharedBodiesHaveArmsTorsoAndLegsInOrder) {
  TRYON_REQUIRE_SHARED("avatars/garmentcode/mean_all.obj");
  for (const char* rel : {"avatars/garmentcode/mean_all.obj", "avatars/garmentcode/mean_female.obj",
                          "avatars/garmentcode/mean_male.obj", "avatars/makehuman/derived/makehuman_male.obj"}) {
    SCOPED_TRACE(rel);
    const Avatar body = load_avatar(tryon::test::shared_data_path(rel));
    const Landmarks L = find_landmarks(body.mesh);
    EXPECT_TRUE(L.warnings.empty()) << L.warnings.front();
    const double H = L.height_m;
    // Heights in order and in human proportions.
    EXPECT_LT(L.crotch_y, L.hip_y + 1e-9);
    EXPECT_LT(L.hip_y, L.waist_y);
    EXPECT_LT(L.waist_y, L.armpit_y);
    EXPECT_LT(L.armpit_y, L.shoulder_y);
    EXPECT_LT(L.shoulder_y, L.neck_y);
    EXPECT_NEAR(L.armpit_y / H, 0.74, 0.04);
    EXPECT_NEAR(L.neck_y / H, 0.85, 0.03);
    EXPECT_NEAR(L.crotch_y / H, 0.46, 0.04);
    // Both arms found, mirror images: left on +x pointing out and down, about 4 cm thick.
    ASSERT_TRUE(L.left.found && L.right.found);
    EXPECT_GT(L.left.axis_point.x(), L.chest_half_width);
    EXPECT_LT(L.right.axis_point.x(), -L.chest_half_width);
    EXPECT_GT(L.left.direction.x(), 0.3);
    EXPECT_LT(L.right.direction.x(), -0.3);
    EXPECT_LT(L.left.direction.y(), -0.3);
    EXPECT_NEAR(L.left.direction.x(), -L.right.direction.x(), 0.05);
    EXPECT_NEAR(L.left.radius_m, 0.04, 0.015);
    // Legs: beside the middle, nearly vertical, thighs thicker than arms.
    ASSERT_TRUE(L.left_leg.found && L.right_leg.found);
    EXPECT_GT(L.left_leg.axis_point.x(), 0.02);
    EXPECT_LT(L.right_leg.axis_point.x(), -0.02);
    EXPECT_LT(L.left_leg.direction.y(), -0.9);
    EXPECT_GT(L.left_leg.radius_m, L.left.radius_m);
    EXPECT_GT(L.hip_half_width, 0.1);
  }
}

// The arm vertices from the shape agree with GarmentCode's hand-made segmentation of its body
// (ggg_body_segmentation.json: vertex ids per part): nearly every arm vertex below the armpits is
// found, and hardly any torso or leg vertex is taken for an arm.
TEST(Landmarks, ArmVerticesAgreeWithGarmentCodeSegmentation) {
  TRYON_REQUIRE_SHARED("avatars/garmentcode/ggg_body_segmentation.json");
  const Avatar body = load_avatar(tryon::test::shared_data_path("avatars/garmentcode/mean_all.obj"));
  const Landmarks L = find_landmarks(body.mesh);
  const std::vector<char> arm = arm_vertices(body.mesh, L);
  std::ifstream in(tryon::test::shared_data_path("avatars/garmentcode/ggg_body_segmentation.json"));
  const nlohmann::json seg = nlohmann::json::parse(in);
  int arm_below = 0, arm_found = 0, other = 0, other_taken = 0;
  for (const char* part : {"left_arm", "right_arm"})
    for (int v : seg[part]) {
      if (body.mesh.V(v, 1) > L.armpit_y - 0.05) continue;  // the shoulder is the torso's too
      ++arm_below;
      arm_found += arm[v];
    }
  for (const char* part : {"body", "left_leg", "right_leg"})
    for (int v : seg[part]) ++other, other_taken += arm[v];
  ASSERT_GT(arm_below, 2000);
  EXPECT_GT(arm_found, 0.97 * arm_below) << arm_found << " of " << arm_below;
  EXPECT_LT(other_taken, 0.01 * other) << other_taken << " of " << other;
}

TEST(Landmarks, TPoseArmsAreFoundByVerticalCuts) {
  TRYON_REQUIRE_SHARED("avatars/garmentcode/mean_all_tpose.obj");
  const Avatar body = load_avatar(tryon::test::shared_data_path("avatars/garmentcode/mean_all_tpose.obj"));
  const Landmarks L = find_landmarks(body.mesh);
  // Arms held out: found across, pointing out nearly horizontally at shoulder height.
  for (const ArmLandmarks* arm : {&L.left, &L.right}) {
    ASSERT_TRUE(arm->found);
    EXPECT_GT(std::abs(arm->direction.x()), 0.95);
    EXPECT_NEAR(arm->axis_point.y() / L.height_m, 0.79, 0.04);
    EXPECT_NEAR(arm->radius_m, 0.045, 0.015);
  }
  EXPECT_GT(L.left.direction.x(), 0);
  EXPECT_LT(L.right.direction.x(), 0);
  EXPECT_GT(L.neck_y, L.armpit_y);
  EXPECT_NEAR(L.neck_y / L.height_m, 0.85, 0.03);
}
