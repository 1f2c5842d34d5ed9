#pragma once
// Strain limiting [Provot 1995]: after a step, springs stretched beyond (1 + limit) times their
// rest length are shortened to it by moving their ends (inverse-mass weighted), iterated
// Gauss–Seidel in spring order (deterministic, serial).
#include "cloth/cloth_model.hpp"

namespace tryon::cloth {

struct StrainLimitStats {
  int iterations = 0;       ///< sweeps done
  int corrected = 0;        ///< spring corrections applied over all sweeps
  double max_excess = 0;    ///< largest remaining strain above the limit after the last sweep
};

/// Shortens over-stretched stretch springs (kinds other than stretch are left alone).
/// @param[in]     model       springs (rest_now), inverse masses (pinned ends do not move)
/// @param[in]     max_strain  allowed strain, e.g. 0.05
/// @param[in,out] x           |P|×3 positions, corrected in place
/// @param[in]     max_sweeps  at most this many Gauss–Seidel sweeps
/// @param[in]     tolerance   stop when no spring exceeds the limit by more than this strain
StrainLimitStats limit_strain(const ClothModel& model, double max_strain, Points3& x,
                              int max_sweeps = 50, double tolerance = 1e-4);

}  // namespace tryon::cloth
