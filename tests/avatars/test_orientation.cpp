#include <gtest/gtest.h>

#include "avatars/avatar.hpp"
#include "avatars/orientation.hpp"
#include "core/mesh_io.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::avatars;

namespace {

// The bundled body (Y up, facing +Z, feet at y = 0), as read.
const TriMesh& bundled_body() {
  static const TriMesh body = read_mesh(test::assets() / "bodies" / "mean_all.obj");
  return body;
}

// The file's axes for a body whose up is `up` and which faces `facing`: the inverse of the
// rotations load_avatar applies.
Mat3 file_from_design(const SignedAxis& up, const SignedAxis& facing_after_up) {
  return (rotation_facing_to_z(facing_after_up) * rotation_up_to_y(up)).transpose();
}

}  // namespace

TEST(Orientation, RotationsTakeTheAxesWhereTheySay) {
  for (int axis = 0; axis < 3; ++axis)
    for (int sign : {1, -1}) {
      const SignedAxis up{axis, sign};
      const Mat3 R = rotation_up_to_y(up);
      Vec3 u = Vec3::Zero();
      u[axis] = sign;
      EXPECT_TRUE((R * u).isApprox(Vec3::UnitY())) << up.name();
      EXPECT_NEAR(R.determinant(), 1.0, 1e-12) << up.name();
    }
  for (const SignedAxis f : {SignedAxis{0, 1}, SignedAxis{0, -1}, SignedAxis{2, 1}, SignedAxis{2, -1}}) {
    Vec3 d = Vec3::Zero();
    d[f.axis] = f.sign;
    EXPECT_TRUE((rotation_facing_to_z(f) * d).isApprox(Vec3::UnitZ())) << f.name();
    EXPECT_TRUE((rotation_facing_to_z(f) * Vec3::UnitY()).isApprox(Vec3::UnitY())) << f.name();
  }
}

// The bundled body written in each of the 24 frames a file can use comes back as it was, and
// the frame found is the one it was written in.
TEST(Orientation, BodyInAnyAxisAlignedFrameIsBroughtBackUpright) {
  const TriMesh& body = bundled_body();
  for (int axis = 0; axis < 3; ++axis)
    for (int sign : {1, -1})
      for (const SignedAxis facing : {SignedAxis{0, 1}, SignedAxis{0, -1}, SignedAxis{2, 1}, SignedAxis{2, -1}}) {
        const SignedAxis up{axis, sign};
        const Mat3 M = file_from_design(up, facing);
        TriMesh file{body.V * M.transpose(), body.F};
        const Avatar a = make_avatar(file, "rotated", "rotated");
        // The file's up and facing, in its own axes.
        const Vec3 up_in_file = M * Vec3::UnitY(), facing_in_file = M * Vec3::UnitZ();
        SCOPED_TRACE("up " + up.name() + ", facing (after up) " + facing.name());
        EXPECT_TRUE(a.frame.up_detected) << a.frame.up_how;
        EXPECT_TRUE(a.frame.facing_detected) << a.frame.facing_how;
        Vec3 u = Vec3::Zero();
        u[a.frame.up.axis] = a.frame.up.sign;
        EXPECT_TRUE(u.isApprox(up_in_file)) << a.frame.up.name();
        EXPECT_TRUE(a.frame.facing.vector().isApprox(facing_in_file)) << a.frame.facing.name();
        ASSERT_EQ(a.mesh.V.rows(), body.V.rows());
        EXPECT_LT((a.mesh.V - body.V).cwiseAbs().maxCoeff(), 1e-9);
      }
}

TEST(Orientation, GivenAxisAndKeptFacingAreRespected) {
  const TriMesh& body = bundled_body();
  // Facing +x in a Y-up file: kept as it is when asked to.
  const Mat3 M = file_from_design({1, 1}, {0, 1});
  AvatarOptions keep;
  keep.detect_facing = false;
  const Avatar kept = make_avatar(TriMesh{body.V * M.transpose(), body.F}, "b", "b", keep);
  EXPECT_LT((kept.mesh.V - body.V * M.transpose()).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_FALSE(kept.frame.facing_detected);
  // Given Y up: no search for the axis, the feet still give its sign.
  AvatarOptions y;
  y.up = UpAxis::y;
  const Avatar given = make_avatar(TriMesh{body.V, body.F}, "b", "b", y);
  EXPECT_FALSE(given.frame.up_detected);
  EXPECT_EQ(given.frame.up, (SignedAxis{1, 1}));
  EXPECT_NE(given.frame.up_how.find("given"), std::string::npos);
}

TEST(Orientation, TPoseBodyAsWideAsTallIsUprightByItsLegs) {
  TRYON_REQUIRE_SHARED("avatars/garmentcode/mean_all_tpose.obj");
  const TriMesh tpose = read_mesh(test::shared_data_path("avatars/garmentcode/mean_all_tpose.obj"));
  const Mat3 M = file_from_design({2, 1}, {2, 1});  // Z up
  const Avatar a = make_avatar(TriMesh{tpose.V * M.transpose(), tpose.F}, "t", "t");
  EXPECT_TRUE(a.frame.up_detected);
  EXPECT_EQ(a.frame.up, (SignedAxis{2, 1}));
  EXPECT_NE(a.frame.up_how.find("legs"), std::string::npos) << a.frame.up_how;
  EXPECT_LT((a.mesh.V - tpose.V).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(Orientation, CesiumManFacingXIsTurnedToFaceZ) {
  TRYON_REQUIRE_SHARED("avatars/rigged_cesiumman/CesiumMan.glb");
  const Avatar a = load_avatar(test::shared_data_path("avatars/rigged_cesiumman/CesiumMan.glb"));
  EXPECT_EQ(a.frame.up, (SignedAxis{1, 1}));
  EXPECT_EQ(a.frame.facing, (SignedAxis{0, 1}));
  EXPECT_TRUE(a.frame.facing_detected);
  // Turned: the arms (its widest span) now lie along x.
  EXPECT_GT(a.bounds.extent().x(), 3 * a.bounds.extent().z());
}
