#include "collision/volumes.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

namespace tryon::collision {

Aabb Aabb::fit(ConstRef<Points3> V, ConstRef<Triangles> F, const int* prims, int n) {
  Aabb box;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) box.extend(Vec3(V.row(F(prims[i], k))));
  return box;
}

Sphere Sphere::fit(ConstRef<Points3> V, ConstRef<Triangles> F, const int* prims, int n) {
  const Aabb box = Aabb::fit(V, F, prims, n);
  Sphere s;
  s.c = box.center();
  double r2 = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) r2 = std::max(r2, (Vec3(V.row(F(prims[i], k))) - s.c).squaredNorm());
  s.r = std::sqrt(r2) * (1 + 1e-12);  // rounding slack: the sphere must contain its vertices
  return s;
}

Obb Obb::fit(ConstRef<Points3> V, ConstRef<Triangles> F, const int* prims, int n) {
  // Area-weighted covariance of the triangles [Gottschalk, Lin & Manocha 1996]:
  //   C = Σ_i A_i/12 (9 m_i m_iᵀ + p_i p_iᵀ + q_i q_iᵀ + r_i r_iᵀ) / A_H  −  m_H m_Hᵀ,
  // with m_i the centroid and A_i the area of triangle i, A_H = Σ A_i, m_H = Σ A_i m_i / A_H.
  Mat3 S = Mat3::Zero();
  Vec3 m = Vec3::Zero();
  double area = 0;
  for (int i = 0; i < n; ++i) {
    const Vec3 p = V.row(F(prims[i], 0)), q = V.row(F(prims[i], 1)), r = V.row(F(prims[i], 2));
    const double a = 0.5 * (q - p).cross(r - p).norm();
    const Vec3 mi = (p + q + r) / 3.0;
    S += a / 12.0 * (9.0 * mi * mi.transpose() + p * p.transpose() + q * q.transpose() + r * r.transpose());
    m += a * mi;
    area += a;
  }
  if (area > 0) {
    m /= area;
    S = S / area - m * m.transpose();
  } else {  // zero area: covariance of the vertices
    S.setZero();
    m.setZero();
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) m += Vec3(V.row(F(prims[i], k)));
    m /= 3.0 * n;
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) {
        const Vec3 d = Vec3(V.row(F(prims[i], k))) - m;
        S += d * d.transpose();
      }
  }
  Obb o;
  Eigen::SelfAdjointEigenSolver<Mat3> eig(S);
  Mat3 A = eig.eigenvectors();
  if (eig.info() != Eigen::Success || !A.allFinite()) A.setIdentity();
  A.col(2) = A.col(0).cross(A.col(1)).normalized();  // right-handed, orthonormal
  A.col(1) = A.col(2).cross(A.col(0)).normalized();
  A.col(0).normalize();
  o.axes = A;
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      const Vec3 x = A.transpose() * Vec3(V.row(F(prims[i], k)));
      lo = lo.cwiseMin(x);
      hi = hi.cwiseMax(x);
    }
  o.c = A * (0.5 * (lo + hi));
  // rounding slack: projections recomputed against c must stay within e
  o.e = 0.5 * (hi - lo) + Vec3::Constant(1e-12 * (lo.cwiseAbs().maxCoeff() + hi.cwiseAbs().maxCoeff()));
  return o;
}

bool overlap(const Obb& a, const Obb& b, const Pose& T) {
  // Separating-axis test on the 15 axes (3 + 3 face normals, 9 edge cross products)
  // [Gottschalk, Lin & Manocha 1996]. b's axes and centre are expressed in a's box frame:
  //   R = A_aᵀ (T.R A_b),  t = A_aᵀ (T.R c_b + T.t − c_a).
  const Mat3 Rb = T.identity ? b.axes : Mat3(T.R * b.axes);
  const Mat3 R = a.axes.transpose() * Rb;
  const Vec3 t = a.axes.transpose() * (T.apply(b.c) - a.c);
  const Mat3 AR = R.cwiseAbs().array() + 1e-12;  // guards the cross axes of parallel edges
  const double slack = 1e-12 * (a.e.maxCoeff() + b.e.maxCoeff() + t.cwiseAbs().maxCoeff());
  const Vec3 ea = a.e.array() + slack;
  const Vec3& eb = b.e;
  for (int i = 0; i < 3; ++i)
    if (std::abs(t[i]) > ea[i] + eb.dot(AR.row(i))) return false;
  for (int j = 0; j < 3; ++j)
    if (std::abs(t.dot(R.col(j))) > ea.dot(AR.col(j)) + eb[j]) return false;
  for (int i = 0; i < 3; ++i) {
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) {
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      const double ra = ea[i1] * AR(i2, j) + ea[i2] * AR(i1, j);
      const double rb = eb[j1] * AR(i, j2) + eb[j2] * AR(i, j1);
      if (std::abs(t[i2] * R(i1, j) - t[i1] * R(i2, j)) > ra + rb) return false;
    }
  }
  return true;
}

bool overlap_levels(const SphereObb& a, int depth_a, const SphereObb& b, int depth_b,
                    const Pose& T, int sphere_levels) {
  const bool sa = depth_a < sphere_levels, sb = depth_b < sphere_levels;
  if (sa && sb) return overlap(a.sphere, b.sphere, T);
  if (sa) {  // b is an OBB level: move it into a's frame
    Obb ob = b.obb;
    if (!T.identity) {
      ob.axes = T.R * ob.axes;
      ob.c = T.apply(ob.c);
    }
    return overlap(a.sphere, ob);
  }
  if (sb) {
    Sphere sbw = b.sphere;
    sbw.c = T.apply(sbw.c);
    return overlap(sbw, a.obb);
  }
  return overlap(a.obb, b.obb, T);
}

}  // namespace tryon::collision
