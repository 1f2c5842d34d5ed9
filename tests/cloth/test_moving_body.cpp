// A moving body (Contact::set_body_motion): cloth lying on a cube that moves is carried by
// friction, slides without it, is lifted when the cube rises into it, and is never inside it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "cloth/cloth_model.hpp"
#include "cloth/contact.hpp"
#include "cloth/material.hpp"
#include "cloth/simulator.hpp"
#include "cloth_fixtures.hpp"
#include "collision/test_meshes.hpp"

using namespace tryon;
using namespace tryon::cloth;
using tryon::test::cube;

namespace {

constexpr double kHalf = 0.1;  // the cube's half size (m)

// Where the cube is at time t: offset(t) from the origin.
using Path = std::function<Vec3(double)>;

// Speeds up along `dir` at 2 m/s² (under μg for μ = 0.45) for 0.5 s, then goes on at 1 m/s.
Path speeding_up(const Vec3& dir) {
  return [dir](double t) {
    const double ta = std::min(t, 0.5);
    return Vec3(dir * (ta * ta + std::max(0.0, t - 0.5)));
  };
}

struct Frame {
  double t;
  Vec3 cube;        // the cube's offset
  Vec3 cloth_mean;  // mean particle position
  int inside;       // particles inside the cube
};

// A 12×12 cm square of cloth lying on the +z face of a 20 cm cube (gravity −z), the cube moving
// along `path` for `frames` frames of 1/60 s, 10 steps each (at 1 m/s, 1.7 mm a step).
std::vector<Frame> follow(const Path& path, int frames, double friction, double body_stiffness) {
  garments::GarmentMesh g;
  cloth::test::add_grid_panel(g, "square", 13, 13, 0.12, 0.12, Vec3(-0.06, -0.06, kHalf + 2.5e-3));
  ClothModel model = build_cloth_model(g, load_material("cotton_jersey"));
  const TriMesh body = cube(kHalf);
  ContactSettings cs;
  cs.friction = friction;
  cs.body_stiffness = body_stiffness;
  Contact contact(body, model, cs);
  contact.set_body_motion([&](double t) {
    Points3 V = body.V;
    V.rowwise() += path(t).transpose();
    return V;
  });
  SimulatorSettings ss;
  ss.gravity = Vec3(0, 0, -9.81);
  ss.dt = ss.frame_dt / 10;
  Simulator sim(std::move(model), ss);
  sim.set_contact(&contact);
  std::vector<Frame> out;
  for (int f = 0; f < frames; ++f) {
    FrameReport report;
    if (!sim.advance_frame(report)) break;
    const Points3& x = sim.model().x;
    const Vec3 c = path(sim.time());
    int inside = 0;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      inside += ((x.row(i) - c.transpose()).cwiseAbs().maxCoeff() < kHalf - 1e-4);
    out.push_back({sim.time(), c, x.colwise().mean().transpose(), inside});
  }
  return out;
}

}  // namespace

TEST(MovingBody, FrictionCarriesClothLyingOnABodyThatMovesAlong) {
  for (const double stiffness : {0.0, 1e3}) {  // projected contacts (sewing), penalties (drape)
    SCOPED_TRACE(stiffness);
    const std::vector<Frame> frames = follow(speeding_up(Vec3::UnitX()), 60, 0.45, stiffness);
    ASSERT_EQ(frames.size(), 60u);
    const Frame& last = frames.back();
    EXPECT_NEAR(last.cube.x(), 0.75, 1e-9);  // it moved 75 cm in the second
    // The cloth went with it: less than 2 cm behind (75 cm of travel).
    EXPECT_LT(std::abs(last.cloth_mean.x() - last.cube.x()), 0.02) << last.cloth_mean.transpose();
    EXPECT_GT(last.cloth_mean.z(), kHalf);  // still on top
    for (const Frame& f : frames) EXPECT_EQ(f.inside, 0) << "at t = " << f.t;
  }
}

TEST(MovingBody, WithoutFrictionTheBodySlidesAwayUnderTheCloth) {
  const std::vector<Frame> frames = follow(speeding_up(Vec3::UnitX()), 18, 0.0, 1e3);
  ASSERT_EQ(frames.size(), 18u);
  const Frame& last = frames.back();  // t = 0.3 s: the cube moved 9 cm
  EXPECT_NEAR(last.cube.x(), 0.09, 1e-9);
  EXPECT_LT(std::abs(last.cloth_mean.x()), 0.005) << last.cloth_mean.transpose();
  for (const Frame& f : frames) EXPECT_EQ(f.inside, 0) << "at t = " << f.t;
}

TEST(MovingBody, ABodyRisingIntoTheClothLiftsItAndNeverGetsThrough) {
  for (const double stiffness : {0.0, 1e3}) {
    SCOPED_TRACE(stiffness);
    // Upwards at 2 m/s from rest at once: the cloth lies still on the face at t = 0.
    const std::vector<Frame> frames = follow([](double t) { return Vec3(0, 0, 2.0 * t); }, 30, 0.45, stiffness);
    ASSERT_EQ(frames.size(), 30u);
    for (const Frame& f : frames) {
      EXPECT_EQ(f.inside, 0) << "at t = " << f.t;
      EXPECT_GT(f.cloth_mean.z(), f.cube.z() + kHalf) << "at t = " << f.t;
    }
    EXPECT_NEAR(frames.back().cube.z(), 1.0, 1e-9);
  }
}
