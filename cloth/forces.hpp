#pragma once
// Stateless force and Jacobian kernels of the mass-spring cloth. Each kernel reports
// degenerate input (zero length, zero-area triangle) by returning false and zero outputs
// instead of dividing by zero.
#include <array>

#include "core/types.hpp"

namespace tryon::cloth {

/// Elastic force of a linear spring between particles a and b on end a (end b gets −f_a):
///   f_a = k (l − L) n,   l = |x_b − x_a|,  n = (x_b − x_a)/l     [Baraff & Witkin 1998]
/// with k = k_tension when l ≥ L and k = k_compression when l < L (fabric buckles rather than
/// compresses in its plane [Choi & Ko 2002], so stretch springs resist compression less),
/// and its stiffness block K = ∂f_a/∂x_b = −∂f_a/∂x_a (3×3, symmetric):
///   K = k [ n nᵀ + (1 − L/l)(I − n nᵀ) ].
/// With `clamp_psd` the transverse term is dropped when the spring is compressed (l < L), so K
/// stays positive semi-definite and conjugate gradients apply [Choi & Ko 2002].
/// @param[in]  xa, xb  end positions (m)
/// @param[in]  k_tension, k_compression  stiffness (N/m) when stretched / compressed
/// @param[in]  L       rest length (m)
/// @param[out] f_a     force on a (N)
/// @param[out] K       optional, 3×3 block as above (N/m)
/// @return false (and zero outputs) if l is zero or not finite.
bool spring_force(const Vec3& xa, const Vec3& xb, double k_tension, double k_compression,
                  double L, Vec3& f_a, Mat3* K = nullptr, bool clamp_psd = false);

/// Damping force of a spring along its direction on end a (end b gets −f_a):
///   f_a = kd ((v_b − v_a)·n) n                                   [Baraff & Witkin 1998]
/// and D = ∂f_a/∂v_b = −∂f_a/∂v_a = kd n nᵀ (3×3, the position derivative is neglected).
/// @return false (and zero outputs) if the spring has zero length.
bool spring_damping(const Vec3& xa, const Vec3& xb, const Vec3& va, const Vec3& vb, double kd,
                    Vec3& f_a, Mat3* D = nullptr);

/// A spring of rest length zero (a sewn seam pair), elastic and damping force on end a (end b
/// gets −f_a). Linear in the ends' offset, so unlike spring_force it is defined at zero length,
/// where a closed seam pair sits:
///   f_a = k (x_b − x_a) + kd (v_b − v_a),   K = ∂f_a/∂x_b = k I,   D = ∂f_a/∂v_b = kd I.
/// (spring_force's K tends to k I as L → 0; the damping acts in every direction, as the
/// offset's direction is no longer defined.)
void zero_length_spring(const Vec3& xa, const Vec3& xb, const Vec3& va, const Vec3& vb, double k,
                        double kd, Vec3& f_a, Mat3* K = nullptr, Mat3* D = nullptr);

/// A hinge: two triangles (a, b, c) and (b, a, d) sharing the edge a→b, consistently oriented.
/// Positions are given in the order {a, b, c, d}.
using HingePositions = std::array<Vec3, 4>;

/// Signed dihedral angle θ ∈ (−π, π] of a hinge: 0 when flat, positive when the triangles fold
/// towards their normals' common side, θ = atan2((n₁ × n₂)·ê, n₁·n₂).
/// @return false if a triangle or the edge is degenerate.
bool dihedral_angle(const HingePositions& p, double& theta);

/// Gradient of θ w.r.t. {a, b, c, d} in closed form [Bridson, Marino & Fedkiw 2003]:
///   ∇_c θ = −|E| N₁/|N₁|²,  ∇_d θ = −|E| N₂/|N₂|²,
///   ∇_a θ = −((c−b)·Ê N₁/|N₁|² + (d−b)·Ê N₂/|N₂|²),  ∇_b θ = −∇_a θ − ∇_c θ − ∇_d θ,
/// with E = b − a, N₁ = (c − a)×(c − b), N₂ = (d − b)×(d − a) (Bridson's u₁..u₄ up to sign).
/// @param[out] grad  4 gradients (1/m)
/// @return false if degenerate.
bool dihedral_angle_gradient(const HingePositions& p, std::array<Vec3, 4>& grad);

/// Gauss–Newton stiffness of a hinge in factored form: J ≈ ∂f/∂x = −alpha · g gᵀ (12×12,
/// g = ∇θ stacked as a, b, c, d; alpha ≥ 0, so J is negative semi-definite).
struct BendingJacobian {
  std::array<Vec3, 4> g;
  double alpha = 0;
  /// Block (i, j) of J, 3×3.
  Mat3 block(int i, int j) const { return -alpha * g[i] * g[j].transpose(); }
  /// The dense 12×12 matrix.
  Eigen::Matrix<double, 12, 12> dense() const;
};

/// Bending force of a hinge [Bridson, Marino & Fedkiw 2003]:
///   f_i = −k |E|²/(|N₁| + |N₂|) (sin(θ/2) − sin(θ₀/2)) ∇_i θ,
/// and, optionally, J with alpha = k |E|²/(|N₁|+|N₂|) · ½cos(θ/2): the terms dropped
/// (derivatives of the coefficient and of ∇θ) are multiplied by sin(θ/2) − sin(θ₀/2), so J is
/// the exact Jacobian when θ = θ₀.
/// @param[in]  k       hinge stiffness (N·m; 12× the bending rigidity, see cloth_model.hpp)
/// @param[in]  theta0  rest angle (rad)
/// @param[out] f       4 forces (N), ordered a, b, c, d
/// @return false (and zero outputs) if degenerate.
bool bending_force(const HingePositions& p, double k, double theta0, std::array<Vec3, 4>& f,
                   BendingJacobian* J = nullptr);

}  // namespace tryon::cloth
