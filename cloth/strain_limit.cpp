#include "cloth/strain_limit.hpp"

#include <algorithm>

namespace tryon::cloth {

StrainLimitStats limit_strain(const ClothModel& m, double max_strain, Points3& x, int max_sweeps,
                              double tolerance) {
  StrainLimitStats st;
  const Springs& S = m.springs;
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    ++st.iterations;
    double worst = 0;
    for (int s = 0; s < S.num_stretch; ++s) {
      const int a = S.ends(s, 0), b = S.ends(s, 1);
      const double wa = m.inv_mass[a], wb = m.inv_mass[b];
      if (wa + wb == 0) continue;
      const Vec3 d = (x.row(b) - x.row(a)).transpose();
      const double l = d.norm();
      const double limit = (1.0 + max_strain) * S.rest_now[s];
      if (!(l > limit) || l == 0) continue;
      worst = std::max(worst, l / S.rest_now[s] - 1.0 - max_strain);
      // Provot 1995: bring the spring back to its limit length along its direction.
      const Vec3 corr = (l - limit) / l * d / (wa + wb);
      x.row(a) += (wa * corr).transpose();
      x.row(b) -= (wb * corr).transpose();
      ++st.corrected;
    }
    st.max_excess = worst;  // measured before this sweep's corrections
    if (worst <= tolerance) break;
  }
  return st;
}

}  // namespace tryon::cloth
