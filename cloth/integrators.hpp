#pragma once
// Time integrators of the mass-spring cloth: explicit (symplectic) Euler, the reference of our
// source paper, and implicit Euler with conjugate gradients [Baraff & Witkin 1998].
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "cloth/cloth_model.hpp"
#include "cloth/forces.hpp"

namespace tryon::cloth {

enum class IntegratorKind {
  explicit_euler,  ///< symplectic Euler, the reference of our source paper
  implicit_euler,  ///< implicit Euler + conjugate gradients [Baraff & Witkin 1998]
};

/// "explicit_euler" or "implicit_euler"; throws InputError otherwise.
IntegratorKind parse_integrator(const std::string& name);
std::string integrator_name(IntegratorKind kind);

/// Per-element force results, kept between the element pass (parallel, each element writes
/// its own slot) and the scatter to particles (serial, fixed order): results do not depend on
/// the thread count.
struct ForceWorkspace {
  std::vector<Vec3> spring_f;  ///< |S| elastic + damping force on end a
  std::vector<Mat3> spring_K;  ///< |S| ∂f_a/∂x_b (PSD-clamped), implicit only
  std::vector<Mat3> spring_D;  ///< |S| ∂f_a/∂v_b, implicit only
  std::vector<std::array<Vec3, 4>> hinge_f;  ///< |H|
  std::vector<BendingJacobian> hinge_J;      ///< |H|, implicit only
  Points3 f;           ///< |P|×3 total force of the last step
  int degenerate = 0;  ///< elements reported degenerate by their kernel in the last pass
};

/// Total force on each particle: springs (elastic with rest_now, and damping), hinges, gravity
/// (m·g) and air drag (−air_drag·area·v). With `jacobians` also fills the Jacobian blocks.
/// @param[in]  x, v  |P|×3 positions and velocities
/// @param[out] f     |P|×3 forces (N)
void compute_forces(const ClothModel& model, ConstRef<Points3> x, ConstRef<Points3> v,
                    const Vec3& gravity, bool jacobians, ForceWorkspace& ws, Points3& f);

/// Largest step (s) for which explicit_euler_step is stable on the model around positions x:
/// dt = safety · 2(√(1+ζ²) − ζ)/ω, the stability limit of symplectic Euler on a damped
/// oscillator, with ω² a Gershgorin bound of the largest eigenvalue of M⁻¹K (springs and
/// hinges) and 2ζω one of M⁻¹C (spring damping and air drag).
double explicit_stable_dt(const ClothModel& model, ConstRef<Points3> x, double safety = 0.9);

/// Symplectic Euler step: a = M⁻¹ f(x, v); v' = v + dt·a; x' = x + dt·v'. Pinned particles
/// keep their position and get zero velocity.
/// @param[out] x_new, v_new  |P|×3
void explicit_euler_step(const ClothModel& model, double dt, const Vec3& gravity,
                         ForceWorkspace& ws, Points3& x_new, Points3& v_new);

/// Penalty contacts with the body, found by the contact stage after the last step: the point
/// Σ w_k x_k of up to three particles lies `depth` (> 0) inside the contact layer along the
/// body's outward normal n. Each pushes with the force stiffness · depth · w_k n on its
/// particles, linearised in the implicit solve (∂f/∂x = −stiffness · w_k w_l n nᵀ), so contact
/// is one more force of the step instead of a projection after it, and a drape can find an
/// equilibrium where the body's push balances gravity and tension.
struct PenaltyContact {
  std::array<int, 3> particle{-1, -1, -1};  ///< -1: unused
  Vec3 weight = Vec3::Zero();
  Vec3 normal = Vec3::Zero();
  double depth = 0;  ///< m
  Vec3 body_velocity = Vec3::Zero();  ///< of the body where it touches (m/s): the contact acts on the relative velocity
};
struct PenaltyContacts {
  std::vector<PenaltyContact> list;
  double stiffness = 0;  ///< N/m
  /// Normal damping, relative to stiffness · dt. Implicit Euler moves a particle pushed with
  /// stiffness · dt² ≫ mass out of the layer within one step, and leaves it with the speed
  /// that took it there: it flies off and falls back, step after step. A damper of
  /// damping · stiffness · dt takes it 1 / (1 + damping) of the way out instead, at a speed that
  /// dies away (the ball of bench/rest_on_body: 21 % moving at frame 300 at 1e4 N/m undamped;
  /// static at frame 106 at 3e3 N/m with 3).
  double damping = 3;
  /// Coulomb coefficient. Friction is lagged [Li et al. 2020, "Incremental Potential Contact",
  /// §5]: a particle's normal force λ (from the contacts at the step's start) resists its
  /// tangential velocity as a damper μλ / max(|v_t|, stick_speed), implicit in the solve.
  double friction = 0;
  double stick_speed = 1e-4;  ///< m/s
};

/// Implicit (backward) Euler linearised once per step [Baraff & Witkin 1998]:
///   (M − dt ∂f/∂v − dt² ∂f/∂x) Δv = dt (f₀ + dt ∂f/∂x v₀),  v' = v₀ + Δv,  x' = x₀ + dt v',
/// solved with preconditioned conjugate gradients warm-started with the last Δv: with the default
/// block-Jacobi preconditioner our own, on the 3×3 blocks and in parallel with the same result
/// on any thread count (with Eigen's, on a scalar copy of the matrix, the shirt's drape at 1 cm
/// took 13.4 s instead of 11.9 s on 2 threads); with the others Eigen's. Spring Jacobians are clamped to be
/// positive semi-definite [Choi & Ko 2002] and hinges use their Gauss–Newton Jacobian, so the system matrix
/// is symmetric positive definite. Pinned particles get Δv = 0 (their rows and columns are decoupled).
enum class Preconditioner {
  jacobi,               ///< diagonal (Eigen's DiagonalPreconditioner)
  block_jacobi,         ///< each particle's 3×3 diagonal block, inverted (the default): 40 % fewer
                        ///< iterations on the hanging cloth bench, 57 % fewer in the shirt's drape
                        ///< at 1 cm, where resting particles' blocks follow the body's normal
  incomplete_cholesky,  ///< Eigen's IncompleteCholesky (AMD ordering), refactored every step
};

struct ImplicitSettings {
  double cg_tolerance = 1e-3;  ///< relative residual |r|/|b| (loose: [Baraff & Witkin 1998])
  int cg_max_iterations = 1000;
  Preconditioner preconditioner = Preconditioner::block_jacobi;
};
struct ImplicitStats {
  int cg_iterations = 0;
  double cg_error = 0;  ///< relative residual reached
  bool converged = true;
};

class ImplicitEuler {
 public:
  using Settings = ImplicitSettings;
  using Stats = ImplicitStats;

  /// Builds the block sparsity pattern of the model (springs and hinges).
  explicit ImplicitEuler(const ClothModel& model, Settings settings = {});
  ~ImplicitEuler();
  ImplicitEuler(const ImplicitEuler&) = delete;
  ImplicitEuler& operator=(const ImplicitEuler&) = delete;

  /// One step. `resting` (optional, |P|×3): the outward normal of the body under each particle
  /// resting on it (zero rows for free particles). A resting particle that the forces push into
  /// the body gets no velocity change along that normal, solved within the system as in
  /// [Baraff & Witkin 1998, §5] (filtered: S A S + (I − S) M, S = I − n nᵀ), so tension that
  /// the body holds does not turn into velocity the contact stage has to take out again. The
  /// body's normal force on such a particle (the inward part of its force) brakes its
  /// tangential velocity by Coulomb friction with coefficient `friction`.
  /// `penalty` (optional): body contacts as penalty forces (see PenaltyContacts).
  /// `resting_velocity` (optional, |P|×3): a moving body's velocity under each resting
  /// particle; friction brakes the tangential velocity relative to it.
  void step(const ClothModel& model, double dt, const Vec3& gravity, ForceWorkspace& ws,
            Points3& x_new, Points3& v_new, const Points3* resting = nullptr, double friction = 0,
            const PenaltyContacts* penalty = nullptr, const Points3* resting_velocity = nullptr);
  const Stats& last_stats() const { return stats_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Settings settings_;
  Stats stats_;
};

}  // namespace tryon::cloth
