#include "cloth/integrators.hpp"

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace tryon::cloth {

IntegratorKind parse_integrator(const std::string& name) {
  if (name == "explicit_euler") return IntegratorKind::explicit_euler;
  if (name == "implicit_euler") return IntegratorKind::implicit_euler;
  throw InputError("unknown integrator '" + name + "' (known: explicit_euler, implicit_euler)");
}

std::string integrator_name(IntegratorKind kind) {
  switch (kind) {
    case IntegratorKind::explicit_euler: return "explicit_euler";
    case IntegratorKind::implicit_euler: return "implicit_euler";
  }
  return "unknown";
}

namespace {
// Below these sizes the work runs serially: an OpenMP region costs more than it saves (and a
// lot more on an oversubscribed machine).
constexpr std::size_t kSerialElements = 4096;
constexpr std::size_t kSerialBlocks = 16384;

HingePositions hinge_positions(const ClothModel& m, ConstRef<Points3> x, int h) {
  HingePositions p;
  for (int c = 0; c < 4; ++c) p[c] = x.row(m.hinges.verts(h, c)).transpose();
  return p;
}
}  // namespace

void compute_forces(const ClothModel& m, ConstRef<Points3> x, ConstRef<Points3> v,
                    const Vec3& gravity, bool jacobians, ForceWorkspace& ws, Points3& f) {
  const Springs& S = m.springs;
  const int ns = S.size(), nh = m.hinges.size(), np = m.num_particles();
  ws.spring_f.resize(ns);
  ws.hinge_f.resize(nh);
  if (jacobians) {
    ws.spring_K.resize(ns);
    ws.spring_D.resize(ns);
    ws.hinge_J.resize(nh);
  }
  std::atomic<int> degenerate{0};
  // Element pass: each element writes only its own slot.
  parallel_for(static_cast<std::size_t>(ns), [&](std::size_t si) {
    const auto s = static_cast<Eigen::Index>(si);
    const Vec3 xa = x.row(S.ends(s, 0)), xb = x.row(S.ends(s, 1));
    const Vec3 va = v.row(S.ends(s, 0)), vb = v.row(S.ends(s, 1));
    Vec3 fe, fd;
    const double k = S.stiffness[s];
    if (S.kind[s] == SpringKind::seam_cross && (xb - xa).squaredNorm() >= S.rest_now[s] * S.rest_now[s]) {
      // Pushes only, and not while switched off (rest_now 0; add_seam_cross_springs): no
      // force and no damping while not shorter than its rest length.
      ws.spring_f[si].setZero();
      if (jacobians) {
        ws.spring_K[si].setZero();
        ws.spring_D[si].setZero();
      }
      return;
    }
    if (S.rest_now[s] == 0) {
      // A closed seam pair sits at zero length, where spring_force has no direction; a
      // zero-length spring is linear and keeps the pair together in the solve (with
      // spring_force it was dropped there: the solve let the pair's panels pull it apart by
      // up to 5 mm a step and the contact stage put it back together, which on the slim tank
      // on makehuman_female added and removed 40 times the cloth's kinetic energy a frame).
      zero_length_spring(xa, xb, va, vb, k, S.damping[s], ws.spring_f[si], jacobians ? &ws.spring_K[si] : nullptr,
                         jacobians ? &ws.spring_D[si] : nullptr);
      return;
    }
    const double kc = s < S.num_stretch ? k * m.material.compression_ratio : k;
    const bool ok = spring_force(xa, xb, k, kc, S.rest_now[s], fe,
                                 jacobians ? &ws.spring_K[si] : nullptr, true);
    spring_damping(xa, xb, va, vb, S.damping[s], fd, jacobians ? &ws.spring_D[si] : nullptr);
    ws.spring_f[si] = fe + fd;
    if (!ok) degenerate.fetch_add(1, std::memory_order_relaxed);
  }, kSerialElements);
  parallel_for(static_cast<std::size_t>(nh), [&](std::size_t hi) {
    const auto h = static_cast<int>(hi);
    const bool ok = bending_force(hinge_positions(m, x, h), m.hinges.stiffness[h],
                                  m.hinges.rest_angle[h], ws.hinge_f[hi],
                                  jacobians ? &ws.hinge_J[hi] : nullptr);
    if (!ok) degenerate.fetch_add(1, std::memory_order_relaxed);
  }, kSerialElements);
  ws.degenerate = degenerate.load();
  // Scatter in a fixed order.
  f.resize(np, 3);
  for (int p = 0; p < np; ++p)
    f.row(p) = (m.mass[p] * gravity - m.material.air_drag * m.area[p] * v.row(p).transpose()).transpose();
  for (int s = 0; s < ns; ++s) {
    f.row(S.ends(s, 0)) += ws.spring_f[s].transpose();
    f.row(S.ends(s, 1)) -= ws.spring_f[s].transpose();
  }
  for (int h = 0; h < nh; ++h)
    for (int c = 0; c < 4; ++c) f.row(m.hinges.verts(h, c)) += ws.hinge_f[h][c].transpose();
}

double explicit_stable_dt(const ClothModel& m, ConstRef<Points3> x, double safety) {
  const Springs& S = m.springs;
  const int np = m.num_particles();
  Eigen::VectorXd lam_k = Eigen::VectorXd::Zero(np), lam_c = Eigen::VectorXd::Zero(np);
  const Eigen::VectorXd& w = m.inv_mass;
  // Gershgorin rows of M^-1/2 K M^-1/2: Σ_s k_s (w_i + √(w_i w_j)).
  for (int s = 0; s < S.size(); ++s) {
    const int a = S.ends(s, 0), b = S.ends(s, 1);
    const double l = (x.row(b) - x.row(a)).norm();
    const double k = S.stiffness[s] * std::max(1.0, l > 0 ? std::abs(1.0 - S.rest_now[s] / l) : 1.0);
    const double cross = std::sqrt(w[a] * w[b]);
    lam_k[a] += k * (w[a] + cross);
    lam_k[b] += k * (w[b] + cross);
    lam_c[a] += S.damping[s] * (w[a] + cross);
    lam_c[b] += S.damping[s] * (w[b] + cross);
  }
  for (int h = 0; h < m.hinges.size(); ++h) {
    std::array<Vec3, 4> f;
    BendingJacobian J;
    if (!bending_force(hinge_positions(m, x, h), m.hinges.stiffness[h], m.hinges.rest_angle[h], f, &J))
      continue;
    // Use the flat-state scale (alpha carries cos θ/2 ≤ 1) so a folded hinge is not underestimated.
    double theta = 0;
    dihedral_angle(hinge_positions(m, x, h), theta);
    const double alpha = J.alpha / std::max(std::cos(0.5 * theta), 0.1);
    for (int i = 0; i < 4; ++i) {
      const int vi = m.hinges.verts(h, i);
      for (int j = 0; j < 4; ++j) {
        const int vj = m.hinges.verts(h, j);
        lam_k[vi] += alpha * J.g[i].norm() * J.g[j].norm() * std::sqrt(w[vi] * w[vj]);
      }
    }
  }
  for (int p = 0; p < np; ++p) lam_c[p] += m.material.air_drag * m.area[p] * w[p];
  const double omega = std::sqrt(std::max(lam_k.maxCoeff(), 1e-300));
  const double zeta = lam_c.maxCoeff() / (2.0 * omega);
  return safety * 2.0 * (std::sqrt(1.0 + zeta * zeta) - zeta) / omega;
}

void explicit_euler_step(const ClothModel& m, double dt, const Vec3& gravity, ForceWorkspace& ws,
                         Points3& x_new, Points3& v_new) {
  Points3& f = ws.f;
  compute_forces(m, m.x, m.v, gravity, false, ws, f);
  const int np = m.num_particles();
  x_new.resize(np, 3);
  v_new.resize(np, 3);
  parallel_for(static_cast<std::size_t>(np), [&](std::size_t pi) {
    const auto p = static_cast<Eigen::Index>(pi);
    if (m.inv_mass[p] == 0) {
      v_new.row(p).setZero();
      x_new.row(p) = m.x.row(p);
      return;
    }
    v_new.row(p) = m.v.row(p) + dt * m.inv_mass[p] * f.row(p);
    x_new.row(p) = m.x.row(p) + dt * v_new.row(p);
  }, kSerialElements);
}

// ---------------------------------------------------------------------------------------------
// Implicit Euler.

namespace {
// The conjugate gradients' vector work runs over fixed chunks of particles, each chunk's dot
// products summed in chunk order: the result is the same for any thread count.
constexpr int kChunkParticles = 256;
constexpr std::size_t kSerialChunks = 8;  // fewer chunks (up to 1792 particles): serial

bool pinned(const ClothModel& m, int p) { return m.inv_mass[p] == 0; }
}  // namespace

struct ImplicitEuler::Impl {
  using SpMat = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
  int np = 0;
  SpMat A;
  // Value offsets of each 3×3 block: offsets[slot][r] = index in A.valuePtr() of (r, 0).
  std::vector<std::array<int, 3>> offsets;
  std::vector<int> diag_slot;                    // |P|
  std::vector<std::array<int, 2>> block_rc;      // per slot: (row particle, column particle)
  std::vector<std::array<int, 2>> spring_slot;   // |S| (a,b), (b,a)
  std::vector<std::array<int, 16>> hinge_slot;   // |H| (i,j) row-major
  std::vector<Mat3> blocks;
  // Per particle its springs, +(s + 1) as end a, −(s + 1) as end b; per block the springs
  // coupling its two particles (CSR: *_start has one entry more than there are rows).
  std::vector<int> particle_springs_start, particle_springs, slot_springs_start, slot_springs;
  std::vector<Mat3> spring_C;         // |S| h ∂f_a/∂v_b + h² ∂f_a/∂x_b of the current step
  std::vector<Vec3> spring_Kdv;       // |S| ∂f_a/∂x_b (v_b − v_a)
  std::vector<std::vector<int>> nbr;  // per particle: sorted block columns
  std::vector<int> row_start;
  Eigen::VectorXd guess;
  Eigen::ConjugateGradient<SpMat, Eigen::Lower | Eigen::Upper> cg;
  Eigen::ConjugateGradient<SpMat, Eigen::Lower | Eigen::Upper, Eigen::IncompleteCholesky<double>> cg_ic;
  std::vector<Mat3> inv_diag;  // block-Jacobi: inverse diagonal blocks
  Eigen::VectorXd r, z, d, q;  // conjugate gradients' work vectors

  explicit Impl(const ClothModel& m) {
    np = m.num_particles();
    // Block pattern: diagonal, spring pairs, hinge pairs; per row sorted neighbour list.
    nbr.assign(np, {});
    for (int p = 0; p < np; ++p) nbr[p].push_back(p);
    for (int s = 0; s < m.springs.size(); ++s) {
      const int a = m.springs.ends(s, 0), b = m.springs.ends(s, 1);
      nbr[a].push_back(b);
      nbr[b].push_back(a);
    }
    for (int h = 0; h < m.hinges.size(); ++h)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) nbr[m.hinges.verts(h, i)].push_back(m.hinges.verts(h, j));
    row_start.assign(np + 1, 0);
    for (int p = 0; p < np; ++p) {
      std::sort(nbr[p].begin(), nbr[p].end());
      nbr[p].erase(std::unique(nbr[p].begin(), nbr[p].end()), nbr[p].end());
      row_start[p + 1] = row_start[p] + static_cast<int>(nbr[p].size());
    }
    // Compressed row-major storage written directly: scalar row 3p+r holds the blocks of
    // block-row p in column order, 3 scalars each.
    const int nblocks = row_start[np];
    A.resize(3 * np, 3 * np);
    A.resizeNonZeros(9 * nblocks);
    offsets.resize(nblocks);
    int* outer = A.outerIndexPtr();
    int* inner = A.innerIndexPtr();
    for (int p = 0; p < np; ++p) {
      const int n = static_cast<int>(nbr[p].size());
      for (int r = 0; r < 3; ++r) {
        const int row_begin = 9 * row_start[p] + r * 3 * n;
        outer[3 * p + r] = row_begin;
        for (int k = 0; k < n; ++k)
          for (int c = 0; c < 3; ++c) inner[row_begin + 3 * k + c] = 3 * nbr[p][k] + c;
        for (int k = 0; k < n; ++k) offsets[row_start[p] + k][r] = row_begin + 3 * k;
      }
    }
    outer[3 * np] = 9 * nblocks;
    block_rc.resize(nblocks);
    for (int p = 0; p < np; ++p)
      for (std::size_t k = 0; k < nbr[p].size(); ++k) block_rc[row_start[p] + k] = {p, nbr[p][k]};
    diag_slot.resize(np);
    for (int p = 0; p < np; ++p) diag_slot[p] = find_slot(p, p);
    spring_slot.resize(m.springs.size());
    for (int s = 0; s < m.springs.size(); ++s) {
      const int a = m.springs.ends(s, 0), b = m.springs.ends(s, 1);
      spring_slot[s] = {find_slot(a, b), find_slot(b, a)};
    }
    hinge_slot.resize(m.hinges.size());
    for (int h = 0; h < m.hinges.size(); ++h)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          hinge_slot[h][4 * i + j] = find_slot(m.hinges.verts(h, i), m.hinges.verts(h, j));
    blocks.resize(nblocks);
    // Springs by particle (±1: the particle is end a or b) and by off-diagonal block, each in
    // spring order, so the parallel gather in step adds in the order a serial scatter would.
    std::vector<int> count(np + 1, 0), slot_count(nblocks + 1, 0);
    for (int s = 0; s < m.springs.size(); ++s) {
      ++count[m.springs.ends(s, 0) + 1];
      ++count[m.springs.ends(s, 1) + 1];
      ++slot_count[spring_slot[s][0] + 1];
      ++slot_count[spring_slot[s][1] + 1];
    }
    for (int p = 0; p < np; ++p) count[p + 1] += count[p];
    for (int k = 0; k < nblocks; ++k) slot_count[k + 1] += slot_count[k];
    particle_springs_start = count;
    slot_springs_start = slot_count;
    particle_springs.resize(count[np]);
    slot_springs.resize(slot_count[nblocks]);
    for (int s = 0; s < m.springs.size(); ++s) {
      particle_springs[count[m.springs.ends(s, 0)]++] = s + 1;
      particle_springs[count[m.springs.ends(s, 1)]++] = -(s + 1);
      slot_springs[slot_count[spring_slot[s][0]]++] = s;
      slot_springs[slot_count[spring_slot[s][1]]++] = s;
    }
  }
  // y = A x over the block pattern (block-row p: Σ_k blocks[row_start[p] + k] x[nbr[p][k]]),
  // with a partial dot product y·x per chunk when `dots` is given.
  void multiply(const Eigen::VectorXd& x, Eigen::VectorXd& y, std::vector<double>* dots) const {
    for_chunks([&](int chunk, int begin, int end) {
      double dot = 0;
      for (int p = begin; p < end; ++p) {
        Vec3 sum = Vec3::Zero();
        for (int k = row_start[p]; k < row_start[p + 1]; ++k)
          sum.noalias() += blocks[k] * x.segment<3>(3 * block_rc[k][1]);
        y.segment<3>(3 * p) = sum;
        dot += sum.dot(x.segment<3>(3 * p));
      }
      if (dots) (*dots)[chunk] = dot;
    });
  }
  // fn(chunk, first particle, end particle) for every chunk of kChunkParticles particles.
  template <class Fn>
  void for_chunks(const Fn& fn) const {
    const int chunks = (np + kChunkParticles - 1) / kChunkParticles;
    parallel_for(
        static_cast<std::size_t>(chunks),
        [&](std::size_t c) {
          const int begin = static_cast<int>(c) * kChunkParticles;
          fn(static_cast<int>(c), begin, std::min(np, begin + kChunkParticles));
        },
        kSerialChunks);
  }
  static double sum(const std::vector<double>& parts) {
    double total = 0;
    for (double v : parts) total += v;
    return total;
  }
  // Preconditioned conjugate gradients on A x = b from the guess in x, as Eigen's
  // ConjugateGradient (stops when |r|² < tolerance² |b|²), preconditioned with the inverse of
  // each particle's 3×3 diagonal block: a particle resting on the body has the block
  // S A S + m n nᵀ (see step), whose stiff and soft directions follow the body's normal, not
  // the axes a diagonal preconditioner sees. On the blocks directly, with no scalar matrix.
  ImplicitStats block_conjugate_gradients(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                          const ImplicitSettings& settings) {
    ImplicitStats stats;
    const int chunks = (np + kChunkParticles - 1) / kChunkParticles;
    std::vector<double> dot1(chunks), dot2(chunks);
    inv_diag.resize(np);
    for_chunks([&](int, int begin, int end) {
      for (int p = begin; p < end; ++p) inv_diag[p] = blocks[diag_slot[p]].inverse();
    });
    const double rhs2 = b.squaredNorm();
    if (rhs2 == 0) {
      x.setZero();
      return stats;
    }
    const double threshold =
        std::max(settings.cg_tolerance * settings.cg_tolerance * rhs2, std::numeric_limits<double>::min());
    r.resize(3 * np);
    z.resize(3 * np);
    d.resize(3 * np);
    q.resize(3 * np);
    // Stores particle p's residual r_p and preconditioned residual into `to`, adding to the
    // chunk's r·r and r·M⁻¹r.
    auto set_residual = [&](int p, const Vec3& rp, Eigen::VectorXd& to, double& rr, double& rz_chunk) {
      const Vec3 zp = inv_diag[p] * rp;
      r.segment<3>(3 * p) = rp;
      to.segment<3>(3 * p) = zp;
      rr += rp.squaredNorm();
      rz_chunk += rp.dot(zp);
    };
    // r = b − A x, d = M⁻¹ r; dot1: r·r, dot2: r·d.
    multiply(x, q, nullptr);
    for_chunks([&](int c, int begin, int end) {
      double rr = 0, rd = 0;
      for (int p = begin; p < end; ++p) set_residual(p, b.segment<3>(3 * p) - q.segment<3>(3 * p), d, rr, rd);
      dot1[c] = rr;
      dot2[c] = rd;
    });
    double residual2 = sum(dot1), rz = sum(dot2);
    int i = 0;
    if (residual2 >= threshold) {
      for (; i < settings.cg_max_iterations; ++i) {
        multiply(d, q, &dot1);  // q = A d, dot1: d·q
        const double alpha = rz / sum(dot1);
        // x += α d, r −= α q, z = M⁻¹ r; dot1: r·r, dot2: r·z.
        for_chunks([&](int c, int begin, int end) {
          double rr = 0, rzc = 0;
          for (int p = begin; p < end; ++p) {
            x.segment<3>(3 * p) += alpha * d.segment<3>(3 * p);
            set_residual(p, r.segment<3>(3 * p) - alpha * q.segment<3>(3 * p), z, rr, rzc);
          }
          dot1[c] = rr;
          dot2[c] = rzc;
        });
        residual2 = sum(dot1);
        if (residual2 < threshold) break;
        const double rz_old = rz;
        rz = sum(dot2);
        const double beta = rz / rz_old;
        for_chunks([&](int, int begin, int end) {
          for (int p = begin; p < end; ++p)
            d.segment<3>(3 * p) = z.segment<3>(3 * p) + beta * d.segment<3>(3 * p);
        });
      }
    }
    stats.cg_iterations = i;
    stats.cg_error = std::sqrt(residual2 / rhs2);
    stats.converged = stats.cg_error <= settings.cg_tolerance;
    return stats;
  }
  // The parts of ImplicitEuler::step, in the order it runs them. Blocks of A and (∂f/∂x) v
  // (Kv) from the springs and from the hinges:
  void assemble_springs(const ClothModel& m, const ForceWorkspace& ws, double h, double h2, Points3& Kv);
  void assemble_hinges(const ClothModel& m, const ForceWorkspace& ws, double h2, Points3& Kv);
  // The penalty contacts' forces and Jacobians added to A and b (with lagged friction).
  void add_penalty_contacts(const ClothModel& m, const PenaltyContacts& penalty, double h, double h2,
                            Eigen::VectorXd& b);
  // Filters the resting contacts out of A and b; returns per particle whether it is held.
  std::vector<char> filter_resting(const ClothModel& m, const Points3& resting, const Points3& f, Eigen::VectorXd& b);
  // Solves A dv = b from the guess in dv with the settings' preconditioner.
  void solve(const Eigen::VectorXd& b, const ImplicitSettings& settings, Eigen::VectorXd& dv, ImplicitStats& stats);
  // Slot of block (i, j), -1 when it is not in the pattern.
  int find_slot(int i, int j) const {
    const auto it = std::lower_bound(nbr[i].begin(), nbr[i].end(), j);
    return it != nbr[i].end() && *it == j ? row_start[i] + static_cast<int>(it - nbr[i].begin()) : -1;
  }
};

ImplicitEuler::ImplicitEuler(const ClothModel& model, Settings settings)
    : impl_(std::make_unique<Impl>(model)), settings_(settings) {}
ImplicitEuler::~ImplicitEuler() = default;

void ImplicitEuler::step(const ClothModel& m, double dt, const Vec3& gravity, ForceWorkspace& ws,
                         Points3& x_new, Points3& v_new, const Points3* resting, double friction,
                         const PenaltyContacts* penalty, const Points3* resting_velocity) {
  Impl& I = *impl_;
  if (I.np != m.num_particles()) throw std::logic_error("ImplicitEuler: model changed size");
  const int np = I.np;
  Points3& f = ws.f;
  compute_forces(m, m.x, m.v, gravity, true, ws, f);
  const double h = dt, h2 = dt * dt;

  // A = M − h ∂f/∂v − h² ∂f/∂x and b = h f + h² (∂f/∂x) v.
  Points3 Kv(np, 3);
  I.assemble_springs(m, ws, h, h2, Kv);
  I.assemble_hinges(m, ws, h2, Kv);
  Eigen::VectorXd b(3 * np);
  for (int p = 0; p < np; ++p) b.segment<3>(3 * p) = (h * f.row(p) + h2 * Kv.row(p)).transpose();
  if (penalty && penalty->stiffness > 0) I.add_penalty_contacts(m, *penalty, h, h2, b);
  for (int p = 0; p < np; ++p) {
    if (pinned(m, p)) {
      I.blocks[I.diag_slot[p]] = m.mass[p] * Mat3::Identity();
      b.segment<3>(3 * p).setZero();
    }
  }
  std::vector<char> held;
  if (resting) held = I.filter_resting(m, *resting, f, b);
  if (I.guess.size() != 3 * np) I.guess = Eigen::VectorXd::Zero(3 * np);
  for (int p = 0; p < np; ++p)
    if (pinned(m, p)) I.guess.segment<3>(3 * p).setZero();
  Eigen::VectorXd dv = I.guess;
  I.solve(b, settings_, dv, stats_);
  I.guess = dv;

  x_new.resize(np, 3);
  v_new.resize(np, 3);
  for (int p = 0; p < np; ++p) {
    if (pinned(m, p)) {
      v_new.row(p).setZero();
      x_new.row(p) = m.x.row(p);
      continue;
    }
    v_new.row(p) = m.v.row(p) + dv.segment<3>(3 * p).transpose();
    if (!held.empty() && held[p] && friction > 0) {
      // Coulomb: the tangential velocity loses at most mu · (normal impulse) / m.
      const Vec3 n = resting->row(p).transpose();
      const Vec3 body = resting_velocity ? Vec3(resting_velocity->row(p)) : Vec3::Zero();
      const Vec3 v = v_new.row(p).transpose() - body;  // relative to the body
      const Vec3 vt = v - v.dot(n) * n;
      const double brake = friction * h * -f.row(p).dot(n) / m.mass[p], speed = vt.norm();
      v_new.row(p) = (body + (speed <= brake ? Vec3(v - vt) : Vec3(v - vt * (brake / speed)))).transpose();
    }
    x_new.row(p) = m.x.row(p) + h * v_new.row(p);
  }
}

void ImplicitEuler::Impl::assemble_springs(const ClothModel& m, const ForceWorkspace& ws, double h, double h2,
                                           Points3& Kv) {
  const Springs& S = m.springs;
  // Blocks of A = M − h ∂f/∂v − h² ∂f/∂x and b = h f + h² (∂f/∂x) v, in a fixed order.
  // Per spring C = h D + h² K (parallel), then per particle its diagonal block, the
  // off-diagonal blocks of its row and (∂f/∂x v) gathered from its springs (parallel, each
  // particle writing its own row).
  spring_C.resize(S.size());
  spring_Kdv.resize(S.size());
  parallel_for(
      static_cast<std::size_t>(S.size()),
      [&](std::size_t si) {
        const auto s = static_cast<int>(si);
        const int a = S.ends(s, 0), b = S.ends(s, 1);
        const Mat3& K = ws.spring_K[s];  // ∂f_a/∂x_b
        const Mat3& D = ws.spring_D[s];  // ∂f_a/∂v_b
        spring_C[s] = h * D + h2 * K;
        const Vec3 dv = (m.v.row(b) - m.v.row(a)).transpose();
        spring_Kdv[s] = K * dv;
      },
      kSerialElements);
  parallel_for(
      static_cast<std::size_t>(np),
      [&](std::size_t pi) {
        const auto p = static_cast<int>(pi);
        Mat3& diag = blocks[diag_slot[p]];
        diag = (m.mass[p] + h * m.material.air_drag * m.area[p]) * Mat3::Identity();
        Vec3 kv = Vec3::Zero();
        for (int k = particle_springs_start[p]; k < particle_springs_start[p + 1]; ++k) {
          const int signed_s = particle_springs[k];
          const int s = std::abs(signed_s) - 1;
          diag += spring_C[s];
          if (signed_s > 0)
            kv += spring_Kdv[s];
          else
            kv -= spring_Kdv[s];
        }
        Kv.row(p) = kv.transpose();
        for (int k = row_start[p]; k < row_start[p + 1]; ++k) {
          if (k == diag_slot[p]) continue;
          Mat3& block = blocks[k];
          block.setZero();
          for (int j = slot_springs_start[k]; j < slot_springs_start[k + 1]; ++j) {
            const int s = slot_springs[j];
            if (!pinned(m, S.ends(s, 0)) && !pinned(m, S.ends(s, 1))) block -= spring_C[s];
          }
        }
      },
      kSerialElements);
}

void ImplicitEuler::Impl::assemble_hinges(const ClothModel& m, const ForceWorkspace& ws, double h2, Points3& Kv) {
  for (int hh = 0; hh < m.hinges.size(); ++hh) {
    const BendingJacobian& J = ws.hinge_J[hh];
    double gv = 0;
    for (int i = 0; i < 4; ++i) gv += J.g[i].dot(m.v.row(m.hinges.verts(hh, i)).transpose());
    for (int i = 0; i < 4; ++i) {
      const int vi = m.hinges.verts(hh, i);
      Kv.row(vi) -= (J.alpha * gv * J.g[i]).transpose();
      for (int j = 0; j < 4; ++j) {
        const int vj = m.hinges.verts(hh, j);
        if (vi != vj && (pinned(m, vi) || pinned(m, vj))) continue;
        blocks[hinge_slot[hh][4 * i + j]] -= h2 * J.block(i, j);
      }
    }
  }
}

void ImplicitEuler::Impl::add_penalty_contacts(const ClothModel& m, const PenaltyContacts& penalty, double h,
                                               double h2, Eigen::VectorXd& b) {
  // Penalty contacts: f_k = κ d w_k n at the step's start, ∂f_k/∂x_l = −κ w_k w_l n nᵀ; the
  // off-diagonal blocks couple the corners of one cloth triangle, which its edges' springs
  // already put in the pattern.
  const double kappa = penalty.stiffness;
  const double damp = penalty.damping * kappa * h;
  std::vector<double> load(np, 0.0);  // normal force on each particle (N)
  Points3 load_dir = Points3::Zero(np, 3);
  Points3 load_velocity = Points3::Zero(np, 3);  // the body's velocity under it, weighted by load
  for (const PenaltyContact& c : penalty.list) {
    const Mat3 nn = c.normal * c.normal.transpose();
    double vn = -c.normal.dot(c.body_velocity);  // relative to a moving body
    for (int k = 0; k < 3; ++k)
      if (c.particle[k] >= 0) vn += c.weight[k] * c.normal.dot(m.v.row(c.particle[k]).transpose());
    for (int k = 0; k < 3; ++k) {
      const int pk = c.particle[k];
      if (pk < 0 || pinned(m, pk)) continue;
      b.segment<3>(3 * pk) += h * c.weight[k] * (kappa * (c.depth - h * vn) - damp * vn) * c.normal;
      load[pk] += kappa * c.depth * c.weight[k];
      load_dir.row(pk) += (kappa * c.depth * c.weight[k] * c.normal).transpose();
      load_velocity.row(pk) += (kappa * c.depth * c.weight[k] * c.body_velocity).transpose();
      for (int l = 0; l < 3; ++l) {
        const int pl = c.particle[l];
        if (pl < 0 || pinned(m, pl)) continue;
        const int slot = pk == pl ? diag_slot[pk] : find_slot(pk, pl);
        if (slot >= 0) blocks[slot] += (h2 * kappa + h * damp) * c.weight[k] * c.weight[l] * nn;
      }
    }
  }
  if (penalty.friction > 0) {
    for (int p = 0; p < np; ++p) {
      if (load[p] <= 0 || pinned(m, p)) continue;
      const Vec3 n = load_dir.row(p).transpose().normalized();
      const Mat3 P = Mat3::Identity() - n * n.transpose();
      const Vec3 vt = P * (m.v.row(p) - load_velocity.row(p) / load[p]).transpose();  // relative to the body
      const double c = penalty.friction * load[p] / std::max(vt.norm(), penalty.stick_speed);
      blocks[diag_slot[p]] += h * c * P;
      b.segment<3>(3 * p) -= h * c * vt;
    }
  }
}

std::vector<char> ImplicitEuler::Impl::filter_resting(const ClothModel& m, const Points3& resting, const Points3& f,
                                                      Eigen::VectorXd& b) {
  // Resting contacts [Baraff & Witkin 1998, §5.3]: S_p = I − n nᵀ for a particle pushed into
  // the body; the system becomes S A S + (I − S) M, b → S b (still symmetric positive definite),
  // so Δv has no component along n for those particles.
  std::vector<Mat3> S(np, Mat3::Identity());
  std::vector<char> held(np, 0);
  for (int p = 0; p < np; ++p) {
    if (pinned(m, p)) continue;
    const Vec3 n = resting.row(p).transpose();
    if (n.squaredNorm() < 0.5 || f.row(p).dot(n) >= 0) continue;
    S[p] -= n * n.transpose();
    held[p] = 1;
  }
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const auto [r, c] = block_rc[k];
    if (held[r] || held[c]) blocks[k] = S[r] * blocks[k] * S[c];
  }
  for (int p = 0; p < np; ++p)
    if (held[p]) {
      const Vec3 n = resting.row(p).transpose();
      blocks[diag_slot[p]] += m.mass[p] * n * n.transpose();
      b.segment<3>(3 * p) = S[p] * b.segment<3>(3 * p);
    }
  return held;
}

void ImplicitEuler::Impl::solve(const Eigen::VectorXd& b, const ImplicitSettings& settings, Eigen::VectorXd& dv,
                                ImplicitStats& stats) {
  if (settings.preconditioner == Preconditioner::block_jacobi) {
    stats = block_conjugate_gradients(b, dv, settings);
    return;
  }
  double* values = A.valuePtr();
  parallel_for(
      blocks.size(),
      [&](std::size_t k) {
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) values[offsets[k][r] + c] = blocks[k](r, c);
      },
      kSerialBlocks);
  auto run = [&](auto& solver) {
    solver.setTolerance(settings.cg_tolerance);
    solver.setMaxIterations(settings.cg_max_iterations);
    solver.compute(A);
    dv = solver.solveWithGuess(b, guess);
    stats.cg_iterations = static_cast<int>(solver.iterations());
    stats.cg_error = solver.error();
    stats.converged = solver.info() == Eigen::Success;
  };
  if (settings.preconditioner == Preconditioner::jacobi)
    run(cg);
  else
    run(cg_ic);
}

}  // namespace tryon::cloth
