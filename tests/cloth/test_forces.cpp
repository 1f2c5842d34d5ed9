#include "cloth/forces.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <random>

using namespace tryon;
using namespace tryon::cloth;

namespace {
constexpr double kH = 1e-6;  // finite-difference step (m)

Vec3 random_vec(std::mt19937& rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return Vec3(u(rng), u(rng), u(rng));
}

double spring_energy(const Vec3& xa, const Vec3& xb, double k, double kc, double L) {
  const double l = (xb - xa).norm();
  return 0.5 * (l >= L ? k : kc) * (l - L) * (l - L);
}

// A hinge near flat with some fold: a, b on the edge, c and d on either side.
HingePositions random_hinge(std::mt19937& rng, double fold) {
  HingePositions p;
  p[0] = Vec3(0, 0, 0) + random_vec(rng, 0.05);
  p[1] = Vec3(1, 0, 0) + random_vec(rng, 0.05);
  p[2] = Vec3(0.4, 0.8, 0) + random_vec(rng, 0.05);
  p[3] = Vec3(0.6, -0.7, fold) + random_vec(rng, 0.05);
  return p;
}
}  // namespace

TEST(SpringForce, MatchesEnergyGradientAndJacobian) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const Vec3 xa = random_vec(rng), xb = random_vec(rng);
    const double l = (xb - xa).norm();
    // Stretched and compressed springs alike.
    const double L = l * (trial % 2 == 0 ? 0.8 : 1.3);
    const double k = 50.0 + trial, kc = 0.3 * k;
    Vec3 fa;
    Mat3 K;
    ASSERT_TRUE(spring_force(xa, xb, k, kc, L, fa, &K));
    for (int c = 0; c < 3; ++c) {
      Vec3 e = Vec3::Zero();
      e[c] = kH;
      // f_a = −∂E/∂x_a by central differences.
      const double dE = (spring_energy(xa + e, xb, k, kc, L) - spring_energy(xa - e, xb, k, kc, L)) / (2 * kH);
      EXPECT_NEAR(fa[c], -dE, 1e-6 * std::max(1.0, std::abs(fa[c])));
      // K = ∂f_a/∂x_b column c and −∂f_a/∂x_a.
      Vec3 fp, fm;
      spring_force(xa, xb + e, k, kc, L, fp);
      spring_force(xa, xb - e, k, kc, L, fm);
      const Vec3 col = (fp - fm) / (2 * kH);
      EXPECT_LT((K.col(c) - col).norm(), 1e-5 * std::max(1.0, K.norm()));
      spring_force(xa + e, xb, k, kc, L, fp);
      spring_force(xa - e, xb, k, kc, L, fm);
      EXPECT_LT((-K.col(c) - (fp - fm) / (2 * kH)).norm(), 1e-5 * std::max(1.0, K.norm()));
    }
    EXPECT_LT((K - K.transpose()).norm(), 1e-12 * K.norm());
    // Along the spring the stiffness is the tension or the compression one.
    const Vec3 n = (xb - xa) / l;
    EXPECT_NEAR(n.dot(K * n), trial % 2 == 0 ? k : kc, 1e-9 * k);
  }
}

TEST(SpringForce, ClampedJacobianIsPositiveSemiDefinite) {
  const Vec3 xa(0, 0, 0), xb(0.3, 0.1, -0.2);
  const double L = 2.0 * xb.norm();  // strongly compressed
  Vec3 fa;
  Mat3 K, Kc;
  spring_force(xa, xb, 100, 100, L, fa, &K, false);
  spring_force(xa, xb, 100, 100, L, fa, &Kc, true);
  EXPECT_LT(Eigen::SelfAdjointEigenSolver<Mat3>(K).eigenvalues().minCoeff(), -1.0);
  EXPECT_GE(Eigen::SelfAdjointEigenSolver<Mat3>(Kc).eigenvalues().minCoeff(), -1e-12);
  // Along the spring both agree.
  const Vec3 n = xb.normalized();
  EXPECT_NEAR(n.dot(K * n), n.dot(Kc * n), 1e-12);
}

TEST(SpringForce, DegenerateIsReported) {
  Vec3 fa;
  Mat3 K;
  EXPECT_FALSE(spring_force(Vec3(1, 2, 3), Vec3(1, 2, 3), 10, 10, 0.1, fa, &K));
  EXPECT_EQ(fa, Vec3::Zero());
  EXPECT_EQ(K, Mat3::Zero());
  EXPECT_FALSE(spring_damping(Vec3::Zero(), Vec3::Zero(), Vec3::UnitX(), Vec3::Zero(), 1, fa, &K));
  EXPECT_EQ(fa, Vec3::Zero());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(spring_force(Vec3(nan, 0, 0), Vec3::Zero(), 10, 10, 0.1, fa));
}

TEST(SpringDamping, JacobianMatchesFiniteDifferences) {
  std::mt19937 rng(3);
  const Vec3 xa = random_vec(rng), xb = random_vec(rng), va = random_vec(rng), vb = random_vec(rng);
  Vec3 f;
  Mat3 D;
  ASSERT_TRUE(spring_damping(xa, xb, va, vb, 2.5, f, &D));
  // Damping only acts along the spring and opposes the relative velocity along it.
  const Vec3 n = (xb - xa).normalized();
  EXPECT_LT(f.cross(n).norm(), 1e-12);
  EXPECT_GE(f.dot(vb - va), 0.0);
  for (int c = 0; c < 3; ++c) {
    Vec3 e = Vec3::Zero();
    e[c] = kH;
    Vec3 fp, fm;
    spring_damping(xa, xb, va, vb + e, 2.5, fp);
    spring_damping(xa, xb, va, vb - e, 2.5, fm);
    EXPECT_LT((D.col(c) - (fp - fm) / (2 * kH)).norm(), 1e-7);
  }
}

TEST(ZeroLengthSpring, JacobiansMatchFiniteDifferencesAndZeroLengthIsDefined) {
  std::mt19937 rng(5);
  const Vec3 xa = random_vec(rng), xb = random_vec(rng), va = random_vec(rng), vb = random_vec(rng);
  const double k = 40, kd = 0.7;
  Vec3 f;
  Mat3 K, D;
  zero_length_spring(xa, xb, va, vb, k, kd, f, &K, &D);
  for (int c = 0; c < 3; ++c) {
    Vec3 e = Vec3::Zero();
    e[c] = kH;
    Vec3 fp, fm;
    zero_length_spring(xa, xb + e, va, vb, k, kd, fp);
    zero_length_spring(xa, xb - e, va, vb, k, kd, fm);
    EXPECT_LT((K.col(c) - (fp - fm) / (2 * kH)).norm(), 1e-7);
    zero_length_spring(xa, xb, va, vb + e, k, kd, fp);
    zero_length_spring(xa, xb, va, vb - e, k, kd, fm);
    EXPECT_LT((D.col(c) - (fp - fm) / (2 * kH)).norm(), 1e-7);
  }
  // Its elastic part is spring_force's with rest length 0 wherever that one is defined.
  Vec3 f_elastic;
  Mat3 K_elastic;
  ASSERT_TRUE(spring_force(xa, xb, k, k, 0.0, f_elastic, &K_elastic));
  Vec3 f_no_damping;
  zero_length_spring(xa, xb, va, vb, k, 0.0, f_no_damping);
  EXPECT_LT((f_no_damping - f_elastic).norm(), 1e-12 * f_elastic.norm());
  EXPECT_LT((K - K_elastic).norm(), 1e-12 * k);
  // At zero length (a closed seam pair) spring_force has no direction and reports it; this
  // one still couples the pair: stiffness k in every direction, damping of the relative velocity.
  Mat3 K0, D0;
  EXPECT_FALSE(spring_force(xa, xa, k, k, 0.0, f_elastic, &K0));
  zero_length_spring(xa, xa, va, vb, k, kd, f, &K0, &D0);
  EXPECT_LT((f - kd * (vb - va)).norm(), 1e-15);
  EXPECT_EQ(K0, k * Mat3::Identity());
  EXPECT_EQ(D0, kd * Mat3::Identity());
}

TEST(Dihedral, AngleIsZeroFlatAndSigned) {
  HingePositions flat = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0.5, 1, 0), Vec3(0.5, -1, 0)};
  double theta = 1;
  ASSERT_TRUE(dihedral_angle(flat, theta));
  EXPECT_NEAR(theta, 0.0, 1e-15);
  // Folding d up or down by the same angle gives opposite signs and the right magnitude.
  const double phi = 0.3;
  HingePositions up = flat, down = flat;
  up[3] = Vec3(0.5, -std::cos(phi), std::sin(phi));
  down[3] = Vec3(0.5, -std::cos(phi), -std::sin(phi));
  double tu, td;
  dihedral_angle(up, tu);
  dihedral_angle(down, td);
  EXPECT_NEAR(std::abs(tu), phi, 1e-12);
  EXPECT_NEAR(tu, -td, 1e-12);
  HingePositions degenerate = flat;
  degenerate[2] = Vec3(0.5, 0, 0);  // c on the edge: zero-area triangle
  EXPECT_FALSE(dihedral_angle(degenerate, theta));
  std::array<Vec3, 4> g;
  EXPECT_FALSE(dihedral_angle_gradient(degenerate, g));
  EXPECT_EQ(g[0], Vec3::Zero());
}

TEST(Dihedral, GradientMatchesFiniteDifferences) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const HingePositions p = random_hinge(rng, -0.8 + 0.08 * trial);
    std::array<Vec3, 4> g;
    ASSERT_TRUE(dihedral_angle_gradient(p, g));
    for (int i = 0; i < 4; ++i)
      for (int c = 0; c < 3; ++c) {
        HingePositions pp = p, pm = p;
        pp[i][c] += kH;
        pm[i][c] -= kH;
        double tp, tm;
        dihedral_angle(pp, tp);
        dihedral_angle(pm, tm);
        EXPECT_NEAR(g[i][c], (tp - tm) / (2 * kH), 1e-6) << "trial " << trial << " vertex " << i;
      }
  }
}

TEST(BendingForce, ConservesMomentumAndRestoresRestAngle) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 10; ++trial) {
    const HingePositions p = random_hinge(rng, 0.5 - 0.1 * trial);
    std::array<Vec3, 4> f;
    ASSERT_TRUE(bending_force(p, 2.0, 0.1, f));
    Vec3 sum = Vec3::Zero(), torque = Vec3::Zero();
    for (int i = 0; i < 4; ++i) {
      sum += f[i];
      torque += p[i].cross(f[i]);
    }
    const double scale = f[0].norm() + f[2].norm() + 1e-30;
    EXPECT_LT(sum.norm(), 1e-12 * scale);
    EXPECT_LT(torque.norm(), 1e-12 * scale);
    // A small move along the force brings θ closer to θ₀.
    double before, after;
    dihedral_angle(p, before);
    HingePositions q = p;
    for (int i = 0; i < 4; ++i) q[i] += 1e-4 * f[i] / scale;
    dihedral_angle(q, after);
    EXPECT_LT(std::abs(after - 0.1), std::abs(before - 0.1));
  }
}

TEST(BendingForce, GaussNewtonJacobianIsExactAtRestAngle) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 5; ++trial) {
    const HingePositions p = random_hinge(rng, 0.3 * trial - 0.6);
    double theta0;
    ASSERT_TRUE(dihedral_angle(p, theta0));
    std::array<Vec3, 4> f;
    BendingJacobian J;
    ASSERT_TRUE(bending_force(p, 3.0, theta0, f, &J));
    for (const auto& fi : f) EXPECT_LT(fi.norm(), 1e-12);
    const Eigen::Matrix<double, 12, 12> Jd = J.dense();
    for (int j = 0; j < 4; ++j)
      for (int c = 0; c < 3; ++c) {
        HingePositions pp = p, pm = p;
        pp[j][c] += kH;
        pm[j][c] -= kH;
        std::array<Vec3, 4> fp, fm;
        bending_force(pp, 3.0, theta0, fp);
        bending_force(pm, 3.0, theta0, fm);
        for (int i = 0; i < 4; ++i) {
          const Vec3 fd = (fp[i] - fm[i]) / (2 * kH);
          EXPECT_LT((Jd.block<3, 1>(3 * i, 3 * j + c) - fd).norm(), 1e-5 * (1 + Jd.norm()));
        }
      }
    // Negative semi-definite.
    using Mat12 = Eigen::Matrix<double, 12, 12>;
    const double top = Eigen::SelfAdjointEigenSolver<Mat12>(Jd).eigenvalues().maxCoeff();
    EXPECT_LE(top, 1e-12 * Jd.norm());
  }
}
