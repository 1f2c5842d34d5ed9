#include "cloth/strain_limit.hpp"

#include <algorithm>
#include <vector>

namespace tryon::cloth {

StrainLimitStats limit_strain(const ClothModel& m, double max_strain, Points3& x, int max_sweeps,
                              double tolerance, const StrainLimitConstraints& c) {
  StrainLimitStats st;
  const Springs& S = m.springs;
  // Gauss–Seidel in spring order, skipping the springs neither of whose ends moved since the
  // spring was last looked at: they are as they were then, within the limit (a spring that was
  // corrected counts its own correction as a move, so it is looked at again). The result is the
  // one of full sweeps; most springs in a drape are within the limit, and are not re-measured.
  std::vector<long long> moved_at(static_cast<std::size_t>(m.num_particles()), 0), seen_at(S.num_stretch, -1);
  long long tick = 0;
  auto move = [&](int i, Vec3 dx) {
    moved_at[static_cast<std::size_t>(i)] = ++tick;
    if (c.on_body && (*c.on_body)[static_cast<std::size_t>(i)]) {
      const Vec3 n = c.body_normal->row(i);
      const double inward = dx.dot(n);
      if (inward < 0) {
        const Vec3 tangential = dx - inward * n;
        const double t = tangential.norm(), stick = c.friction * -inward;
        dx = t > stick ? Vec3(tangential * (1 - stick / t)) : Vec3::Zero();
      }
    }
    x.row(i) += dx.transpose();
  };
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    ++st.iterations;
    double worst = 0;
    for (int s = 0; s < S.num_stretch; ++s) {
      const int a = S.ends(s, 0), b = S.ends(s, 1);
      if (moved_at[a] <= seen_at[s] && moved_at[b] <= seen_at[s]) continue;
      seen_at[s] = tick;
      const double wa = m.inv_mass[a], wb = m.inv_mass[b];
      if (wa + wb == 0) continue;
      const Vec3 d = (x.row(b) - x.row(a)).transpose();
      const double l = d.norm();
      const double limit = (1.0 + max_strain) * S.rest_now[s];
      if (!(l > limit) || l == 0) continue;
      worst = std::max(worst, l / S.rest_now[s] - 1.0 - max_strain);
      // Provot 1995: bring the spring back to its limit length along its direction.
      const Vec3 corr = (l - limit) / l * d / (wa + wb);
      move(a, wa * corr);
      move(b, -wb * corr);
      ++st.corrected;
    }
    if (c.joined) {
      for (Eigen::Index k = 0; k < c.joined->rows(); ++k) {
        const int a = (*c.joined)(k, 0), b = (*c.joined)(k, 1);
        const double wa = m.inv_mass[a], wb = m.inv_mass[b];
        if (wa + wb == 0) continue;
        // Mass-weighted mean: the lighter (larger inverse mass) end moves more; a pinned end stays.
        const Vec3 d = (x.row(b) - x.row(a)).transpose();
        x.row(a) += (wa / (wa + wb) * d).transpose();
        x.row(b) = x.row(a);
        moved_at[a] = moved_at[b] = ++tick;
      }
    }
    st.max_excess = worst;  // measured before this sweep's corrections
    if (worst <= tolerance) break;
  }
  return st;
}

}  // namespace tryon::cloth
