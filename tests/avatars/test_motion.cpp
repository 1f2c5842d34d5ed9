// A body motion brought to the design's frame (normalise_motion): the same transform for every
// frame, the rest pose's axes, a blend from the rest pose into the first frame.
#include <gtest/gtest.h>

#include <cmath>

#include "avatars/motion.hpp"
#include "core/error.hpp"
#include "core/mesh_io.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::avatars;

namespace {

// The bundled body lying on its back (Z up in the file, as a Z-up exporter writes it), moved
// along x by `dx` at frame k: frame k = rest + (k · dx, 0, 0).
RawMotion sliding_body(int frames, double dx) {
  TriMesh body = read_mesh(test::assets() / "bodies/mean_all.obj");
  Points3 z_up(body.V.rows(), 3);
  z_up << body.V.col(0), -body.V.col(2), body.V.col(1);  // y → z, z → −y
  RawMotion raw;
  raw.first = TriMesh{z_up, body.F, {}};
  raw.rest = z_up;
  raw.fps = 10;
  raw.source = "sliding";
  for (int k = 0; k < frames; ++k) {
    Points3 V = z_up;
    V.col(0).array() += k * dx;
    raw.frames.push_back(V);
  }
  return raw;
}

}  // namespace

TEST(Motion, EveryFrameMovesAsTheFirstAndTheBodyWalksAway) {
  const BodyMotion m = normalise_motion(sliding_body(5, 0.1), "sliding");
  ASSERT_EQ(m.frames.size(), 5u);
  EXPECT_EQ(m.body.frame.up.name(), "+z");
  EXPECT_NEAR(m.body.mesh.V.col(1).minCoeff(), 0.0, 1e-12);  // feet at y = 0, up along +y
  EXPECT_NEAR(m.body.height_m, m.body.mesh.V.col(1).maxCoeff(), 1e-12);
  for (std::size_t k = 1; k < m.frames.size(); ++k) {
    // Rigid: frame k is frame 0 moved 10 cm a frame, along the file's x as turned into the body's frame.
    const Points3 d = m.frames[k] - m.frames[0];
    EXPECT_NEAR(d.rowwise().norm().minCoeff(), 0.1 * k, 1e-9);
    EXPECT_NEAR(d.rowwise().norm().maxCoeff(), 0.1 * k, 1e-9);
  }
  EXPECT_NEAR(m.duration_s(), 0.4, 1e-12);
  const Points3 halfway = m.at(0.15);  // between frames 1 and 2
  EXPECT_NEAR((halfway - m.frames[1]).rowwise().norm().maxCoeff(), 0.05, 1e-9);
}

TEST(Motion, BlendsFromTheRestPoseIntoTheFirstFrame) {
  RawMotion raw = sliding_body(3, 0.1);
  for (Points3& f : raw.frames) f.col(0).array() += 0.3;  // the first frame 30 cm from the rest pose
  const BodyMotion m = normalise_motion(raw, "sliding", {}, 6);
  ASSERT_EQ(m.frames.size(), 6u + 3u);
  EXPECT_EQ(m.blend_in, 6);
  EXPECT_EQ(m.frames[0], m.body.mesh.V);  // draped on the rest pose
  for (int j = 1; j <= 6; ++j)
    EXPECT_NEAR((m.frames[j] - m.frames[0]).rowwise().norm().maxCoeff(), 0.3 * j / 6, 1e-9) << j;
  EXPECT_NEAR((m.frames[8] - m.frames[6]).rowwise().norm().maxCoeff(), 0.2, 1e-9);
}

TEST(Motion, ABlendWithoutARestPoseOrMismatchedFramesAreRefused) {
  RawMotion raw = sliding_body(2, 0.1);
  raw.rest.resize(0, 3);
  EXPECT_THROW(normalise_motion(raw, "x", {}, 3), InputError);
  RawMotion odd = sliding_body(2, 0.1);
  odd.frames[1].conservativeResize(odd.frames[1].rows() - 1, 3);
  EXPECT_THROW(normalise_motion(odd, "x"), InputError);
  RawMotion empty = sliding_body(0, 0.1);
  EXPECT_THROW(normalise_motion(empty, "x"), InputError);
}
