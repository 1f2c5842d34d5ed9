#pragma once
// Strain limiting [Provot 1995]: after a step, springs stretched beyond (1 + limit) times their
// rest length are shortened to it by moving their ends (inverse-mass weighted), iterated
// Gauss–Seidel in spring order (deterministic: the same result for any thread count).
#include <vector>

#include "cloth/cloth_model.hpp"

namespace tryon::cloth {

struct StrainLimitStats {
  int iterations = 0;       ///< sweeps done
  int corrected = 0;        ///< spring corrections applied over all sweeps
  double max_excess = 0;    ///< largest remaining strain above the limit after the last sweep
};

/// What the corrections must respect besides the springs.
struct StrainLimitConstraints {
  /// Particle pairs that must stay together (closed seams): each is put at its mass-weighted
  /// mean after every sweep, so the limit is met with the pair as one particle (else the seam's
  /// hold, applied after the limiter, would undo it).
  const Segments* joined = nullptr;
  /// Particles resting on the body (1) with their outward normals (|P|×3): their corrections
  /// lose the part that points into the body, and Coulomb friction (positional, as in
  /// position-based dynamics) takes up to `friction` times that part from the tangential rest.
  const std::vector<char>* on_body = nullptr;
  const Points3* body_normal = nullptr;
  double friction = 0;
};

/// Shortens over-stretched stretch springs (kinds other than stretch are left alone).
/// @param[in]     model       springs (rest_now), inverse masses (pinned ends do not move)
/// @param[in]     max_strain  allowed strain, e.g. 0.05
/// @param[in,out] x           |P|×3 positions, corrected in place
/// @param[in]     max_sweeps  at most this many Gauss–Seidel sweeps
/// @param[in]     tolerance   stop when no spring exceeds the limit by more than this strain
/// @param[in]     constraints closed seams and body contacts to respect (none by default)
StrainLimitStats limit_strain(const ClothModel& model, double max_strain, Points3& x,
                              int max_sweeps = 50, double tolerance = 1e-4,
                              const StrainLimitConstraints& constraints = {});

}  // namespace tryon::cloth
