#include "cloth/forces.hpp"

#include <cmath>

namespace tryon::cloth {
namespace {
// Lengths below this (m) are treated as degenerate: far below any cloth resolution.
constexpr double kTinyLength = 1e-12;
constexpr double kTinyArea2 = 1e-24;  // |N|² threshold (m⁴)
}  // namespace

bool spring_force(const Vec3& xa, const Vec3& xb, double k_tension, double k_compression,
                  double L, Vec3& f_a, Mat3* K, bool clamp_psd) {
  const Vec3 d = xb - xa;
  const double l = d.norm();
  if (!(l > kTinyLength) || !std::isfinite(l)) {
    f_a.setZero();
    if (K) K->setZero();
    return false;
  }
  const Vec3 n = d / l;
  const double k = l >= L ? k_tension : k_compression;
  f_a = k * (l - L) * n;
  if (K) {
    const Mat3 nn = n * n.transpose();
    double transverse = 1.0 - L / l;
    if (clamp_psd && transverse < 0) transverse = 0;
    *K = k * (nn + transverse * (Mat3::Identity() - nn));
  }
  return true;
}

bool spring_damping(const Vec3& xa, const Vec3& xb, const Vec3& va, const Vec3& vb, double kd,
                    Vec3& f_a, Mat3* D) {
  const Vec3 d = xb - xa;
  const double l = d.norm();
  if (!(l > kTinyLength) || !std::isfinite(l)) {
    f_a.setZero();
    if (D) D->setZero();
    return false;
  }
  const Vec3 n = d / l;
  f_a = kd * (vb - va).dot(n) * n;
  if (D) *D = kd * n * n.transpose();
  return true;
}

void zero_length_spring(const Vec3& xa, const Vec3& xb, const Vec3& va, const Vec3& vb, double k,
                        double kd, Vec3& f_a, Mat3* K, Mat3* D) {
  f_a = k * (xb - xa) + kd * (vb - va);
  if (K) *K = k * Mat3::Identity();
  if (D) *D = kd * Mat3::Identity();
}

namespace {
struct HingeFrame {
  Vec3 E, N1, N2;
  double e_len, n1_sq, n2_sq;
};

bool hinge_frame(const HingePositions& p, HingeFrame& h) {
  const Vec3 &a = p[0], &b = p[1], &c = p[2], &d = p[3];
  h.E = b - a;
  h.N1 = (c - a).cross(c - b);
  h.N2 = (d - b).cross(d - a);
  h.e_len = h.E.norm();
  h.n1_sq = h.N1.squaredNorm();
  h.n2_sq = h.N2.squaredNorm();
  return h.e_len > kTinyLength && h.n1_sq > kTinyArea2 && h.n2_sq > kTinyArea2 &&
         std::isfinite(h.e_len + h.n1_sq + h.n2_sq);
}
}  // namespace

bool dihedral_angle(const HingePositions& p, double& theta) {
  HingeFrame h;
  if (!hinge_frame(p, h)) {
    theta = 0;
    return false;
  }
  const Vec3 n1 = h.N1 / std::sqrt(h.n1_sq);
  const Vec3 n2 = h.N2 / std::sqrt(h.n2_sq);
  theta = std::atan2(n1.cross(n2).dot(h.E / h.e_len), n1.dot(n2));
  return true;
}

bool dihedral_angle_gradient(const HingePositions& p, std::array<Vec3, 4>& grad) {
  HingeFrame h;
  if (!hinge_frame(p, h)) {
    for (auto& g : grad) g.setZero();
    return false;
  }
  const Vec3 e_hat = h.E / h.e_len;
  const Vec3 w1 = h.N1 / h.n1_sq;
  const Vec3 w2 = h.N2 / h.n2_sq;
  grad[2] = -h.e_len * w1;
  grad[3] = -h.e_len * w2;
  grad[0] = -((p[2] - p[1]).dot(e_hat) * w1 + (p[3] - p[1]).dot(e_hat) * w2);
  grad[1] = -grad[0] - grad[2] - grad[3];
  return true;
}

bool bending_force(const HingePositions& p, double k, double theta0, std::array<Vec3, 4>& f,
                   BendingJacobian* J) {
  std::array<Vec3, 4> g;
  double theta = 0;
  HingeFrame h;
  if (!hinge_frame(p, h) || !dihedral_angle(p, theta) || !dihedral_angle_gradient(p, g)) {
    for (auto& fi : f) fi.setZero();
    if (J) {
      J->alpha = 0;
      for (auto& gi : J->g) gi.setZero();
    }
    return false;
  }
  const double coef = k * h.e_len * h.e_len / (std::sqrt(h.n1_sq) + std::sqrt(h.n2_sq));
  const double s = std::sin(0.5 * theta) - std::sin(0.5 * theta0);
  for (int i = 0; i < 4; ++i) f[i] = -coef * s * g[i];
  if (J) {
    J->g = g;
    J->alpha = coef * 0.5 * std::cos(0.5 * theta);
  }
  return true;
}

Eigen::Matrix<double, 12, 12> BendingJacobian::dense() const {
  Eigen::Matrix<double, 12, 12> J;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) J.block<3, 3>(3 * i, 3 * j) = block(i, j);
  return J;
}

}  // namespace tryon::cloth
