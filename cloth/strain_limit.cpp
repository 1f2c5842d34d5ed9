#include "cloth/strain_limit.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "core/parallel.hpp"

namespace tryon::cloth {

namespace {

// The stretch springs at each particle, in spring order: those of particle p are
// springs_of[first[p]] to springs_of[first[p + 1] - 1].
void stretch_springs_by_particle(const Springs& S, int np, std::vector<int>& first, std::vector<int>& springs_of) {
  const int ns = S.num_stretch;
  first.assign(np + 1, 0);
  springs_of.assign(2 * static_cast<std::size_t>(ns), 0);
  for (int s = 0; s < ns; ++s) {
    ++first[S.ends(s, 0) + 1];
    ++first[S.ends(s, 1) + 1];
  }
  for (int p = 0; p < np; ++p) first[p + 1] += first[p];
  std::vector<int> fill(first.begin(), first.end() - 1);
  for (int s = 0; s < ns; ++s) {
    springs_of[fill[S.ends(s, 0)]++] = s;
    springs_of[fill[S.ends(s, 1)]++] = s;
  }
}

}  // namespace

StrainLimitStats limit_strain(const ClothModel& m, double max_strain, Points3& x, int max_sweeps,
                              double tolerance, const StrainLimitConstraints& c) {
  StrainLimitStats st;
  const Springs& S = m.springs;
  // Gauss–Seidel in spring order, skipping the springs neither of whose ends moved since the
  // spring was last looked at: they are as they were then, within the limit (a spring that was
  // corrected counts its own correction as a move, so it is looked at again). The result is the
  // one of full sweeps; most springs in a drape are within the limit, and are not re-measured.
  // A spring is due (a bit set) from the move of one of its ends until it is looked at; a sweep
  // visits the due springs in order, one due by a move behind it waits for the next sweep.
  const int ns = S.num_stretch, np = m.num_particles();
  std::vector<int> first, springs_of;
  stretch_springs_by_particle(S, np, first, springs_of);
  const std::size_t words = (static_cast<std::size_t>(ns) + 63) / 64;
  std::vector<std::uint64_t> due(words, ~std::uint64_t{0});
  if (ns % 64) due.back() = (std::uint64_t{1} << (ns % 64)) - 1;
  std::vector<char> moved(static_cast<std::size_t>(np), 0);
  auto touched = [&](int i) {
    moved[static_cast<std::size_t>(i)] = 1;
    for (int k = first[i]; k < first[i + 1]; ++k) due[springs_of[k] >> 6] |= std::uint64_t{1} << (springs_of[k] & 63);
  };
  auto move = [&](int i, Vec3 dx) {
    touched(i);
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
  auto over_limit = [&](int s, Vec3& d, double& l, double& limit) {
    d = (x.row(S.ends(s, 1)) - x.row(S.ends(s, 0))).transpose();
    l = d.norm();
    limit = (1.0 + max_strain) * S.rest_now[s];
    return l > limit && l != 0;
  };
  // Which springs are over the limit as x is on entry, measured in parallel: a spring neither of
  // whose ends has moved yet is as it was then (the same figures).
  std::vector<char> over_on_entry(static_cast<std::size_t>(ns));
  parallel_for(
      static_cast<std::size_t>(ns),
      [&](std::size_t s) {
        Vec3 d;
        double l, limit;
        over_on_entry[s] = over_limit(static_cast<int>(s), d, l, limit);
      },
      4096);
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    ++st.iterations;
    double worst = 0;
    for (std::size_t w = 0; w < words; ++w) {
      int from = 0;  // bits of word w below it were visited in this sweep
      while (from < 64) {
        const std::uint64_t ahead = due[w] & (~std::uint64_t{0} << from);
        if (!ahead) break;
        const int bit = std::countr_zero(ahead);
        due[w] &= ~(std::uint64_t{1} << bit);
        from = bit + 1;
        const int s = static_cast<int>(64 * w) + bit;
        const int a = S.ends(s, 0), b = S.ends(s, 1);
        const double wa = m.inv_mass[a], wb = m.inv_mass[b];
        if (wa + wb == 0) continue;
        if (!moved[a] && !moved[b] && !over_on_entry[s]) continue;
        Vec3 d;
        double l, limit;
        if (!over_limit(s, d, l, limit)) continue;
        worst = std::max(worst, l / S.rest_now[s] - 1.0 - max_strain);
        // Provot 1995: bring the spring back to its limit length along its direction.
        const Vec3 corr = (l - limit) / l * d / (wa + wb);
        move(a, wa * corr);
        move(b, -wb * corr);
        ++st.corrected;
      }
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
        touched(a);
        touched(b);
      }
    }
    st.max_excess = worst;  // measured before this sweep's corrections
    if (worst <= tolerance) break;
  }
  return st;
}

}  // namespace tryon::cloth
