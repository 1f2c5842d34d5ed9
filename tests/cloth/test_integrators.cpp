#include "cloth/integrators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "cloth/strain_limit.hpp"
#include "cloth_fixtures.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

using namespace tryon;
using namespace tryon::cloth;
using tryon::cloth::test::hanging_square;
using tryon::cloth::test::two_panels;

namespace {
// A model whose particles are displaced randomly from the flat rest state (all forces active).
ClothModel perturbed_model(BendModel bend, unsigned seed) {
  Material mat = load_material("cotton_poplin");
  mat.bend_model = bend;
  mat.bend_stiffness = 1e-3;  // make bending forces comparable to the others
  ClothModel m = build_cloth_model(hanging_square(6, 0.3), mat);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.01, 0.01);
  for (int p = 0; p < m.num_particles(); ++p) {
    m.x.row(p) += Vec3(u(rng), u(rng), u(rng)).transpose();
    m.v.row(p) = Vec3(u(rng), u(rng), u(rng)).transpose() * 10.0;
  }
  return m;
}

Vec3 momentum(const ClothModel& m) {
  Vec3 p = Vec3::Zero();
  for (int i = 0; i < m.num_particles(); ++i) p += m.mass[i] * m.v.row(i).transpose();
  return p;
}
}  // namespace

TEST(Integrators, Names) {
  EXPECT_EQ(parse_integrator("explicit_euler"), IntegratorKind::explicit_euler);
  EXPECT_EQ(parse_integrator("implicit_euler"), IntegratorKind::implicit_euler);
  EXPECT_EQ(integrator_name(parse_integrator("implicit_euler")), "implicit_euler");
  EXPECT_THROW(parse_integrator("verlet"), InputError);
}

TEST(Integrators, InternalForcesHaveNoNetForceOrTorque) {
  for (BendModel bend : {BendModel::springs, BendModel::dihedral}) {
    ClothModel m = perturbed_model(bend, 1);
    m.material.air_drag = 0;
    ForceWorkspace ws;
    Points3 f;
    compute_forces(m, m.x, m.v, Vec3::Zero(), false, ws, f);
    EXPECT_EQ(ws.degenerate, 0);
    Vec3 sum = Vec3::Zero(), torque = Vec3::Zero();
    double scale = 0;
    for (int p = 0; p < m.num_particles(); ++p) {
      sum += f.row(p).transpose();
      torque += m.x.row(p).transpose().cross(f.row(p).transpose());
      scale += f.row(p).norm();
    }
    ASSERT_GT(scale, 0);
    EXPECT_LT(sum.norm(), 1e-13 * scale);
    // Elastic forces are central; damping along springs too: no net torque either.
    EXPECT_LT(torque.norm(), 1e-13 * scale);
  }
}

TEST(Integrators, DegenerateElementsAreCountedNotNaN) {
  for (BendModel bend : {BendModel::springs, BendModel::dihedral}) {
    ClothModel m = perturbed_model(bend, 3);
    m.x.row(1) = m.x.row(0);  // a zero-length spring and zero-area triangles
    ForceWorkspace ws;
    Points3 f;
    compute_forces(m, m.x, m.v, Vec3(0, -9.81, 0), true, ws, f);
    EXPECT_GT(ws.degenerate, 0);
    EXPECT_TRUE(f.allFinite());
    Points3 x, v;
    ImplicitEuler solver(m);
    solver.step(m, 1.0 / 120, Vec3(0, -9.81, 0), ws, x, v);
    EXPECT_TRUE(x.allFinite());
  }
}

TEST(Integrators, MomentumConservedByBothIntegrators) {
  for (BendModel bend : {BendModel::springs, BendModel::dihedral}) {
    ClothModel m = perturbed_model(bend, 2);
    m.material.air_drag = 0;
    const Vec3 p0 = momentum(m);
    ASSERT_GT(p0.norm(), 0);
    const double dt = explicit_stable_dt(m, m.x);
    ForceWorkspace ws;
    Points3 x, v;
    ClothModel e = m;
    for (int i = 0; i < 50; ++i) {
      explicit_euler_step(e, dt, Vec3::Zero(), ws, x, v);
      e.x = x;
      e.v = v;
    }
    EXPECT_LT((momentum(e) - p0).norm(), 1e-12 * (1 + p0.norm()));
    ClothModel im = m;
    ImplicitEuler solver(im, {1e-10, 2000});
    for (int i = 0; i < 5; ++i) {
      solver.step(im, 1.0 / 240, Vec3::Zero(), ws, x, v);
      EXPECT_TRUE(solver.last_stats().converged);
      im.x = x;
      im.v = v;
    }
    // Conserved up to the CG residual.
    EXPECT_LT((momentum(im) - p0).norm(), 1e-6 * p0.norm());
  }
}

namespace {
// One implicit step against a dense solve of the same Baraff–Witkin system built from
// finite-difference Jacobians of compute_forces.
void expect_step_solves_linearised_system(const ClothModel& m, Preconditioner preconditioner) {
  const int n = 3 * m.num_particles();
  const double h = 1.0 / 120;
  const Vec3 g(0, -9.81, 0);
  ForceWorkspace ws;
  Points3 f0;
  Eigen::MatrixXd dfdx(n, n), dfdv(n, n);
  const double eps = 1e-7;
  for (int j = 0; j < n; ++j) {
    Points3 xp = m.x, xm = m.x, vp = m.v, vm = m.v, fp, fm;
    xp(j / 3, j % 3) += eps;
    xm(j / 3, j % 3) -= eps;
    compute_forces(m, xp, m.v, g, false, ws, fp);
    compute_forces(m, xm, m.v, g, false, ws, fm);
    dfdx.col(j) = Eigen::Map<const Eigen::VectorXd>(Points3(fp - fm).data(), n) / (2 * eps);
    vp(j / 3, j % 3) += eps;
    vm(j / 3, j % 3) -= eps;
    compute_forces(m, m.x, vp, g, false, ws, fp);
    compute_forces(m, m.x, vm, g, false, ws, fm);
    dfdv.col(j) = Eigen::Map<const Eigen::VectorXd>(Points3(fp - fm).data(), n) / (2 * eps);
  }
  Eigen::VectorXd M(n);
  for (int j = 0; j < n; ++j) M[j] = m.mass[j / 3];
  compute_forces(m, m.x, m.v, g, false, ws, f0);
  const Eigen::MatrixXd A = Eigen::MatrixXd(M.asDiagonal()) - h * dfdv - h * h * dfdx;
  const Eigen::VectorXd v0 = Eigen::Map<const Eigen::VectorXd>(m.v.data(), n);
  const Eigen::VectorXd b = h * (Eigen::Map<const Eigen::VectorXd>(f0.data(), n) + h * dfdx * v0);
  const Eigen::VectorXd dv_ref = A.ldlt().solve(b);
  ImplicitEuler solver(m, {1e-12, 5000, preconditioner});
  Points3 x, v;
  solver.step(m, h, g, ws, x, v);
  const Eigen::VectorXd dv = Eigen::Map<const Eigen::VectorXd>(v.data(), n) - v0;
  EXPECT_LT((dv - dv_ref).norm(), 1e-6 * dv_ref.norm());
  EXPECT_LT((Eigen::Map<const Eigen::VectorXd>(x.data(), n) -
             (Eigen::Map<const Eigen::VectorXd>(m.x.data(), n) + h * (v0 + dv))).norm(), 1e-14);
}

// A square stretched by 3 % with random velocities: every spring stretched, so the PSD clamp
// is inactive, and without spring damping, whose ∂/∂x the step neglects.
ClothModel stretched_square() {
  ClothModel m = build_cloth_model(hanging_square(4, 0.2), load_material("cotton_jersey"));
  m.x *= 1.03;
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  for (int p = 0; p < m.num_particles(); ++p) m.v.row(p) = Vec3(u(rng), u(rng), u(rng)).transpose();
  m.springs.damping.setZero();
  return m;
}
}  // namespace

TEST(Integrators, ImplicitStepSolvesTheLinearisedSystem) {
  for (const Preconditioner p :
       {Preconditioner::jacobi, Preconditioner::block_jacobi, Preconditioner::incomplete_cholesky})
    expect_step_solves_linearised_system(stretched_square(), p);
}

TEST(Integrators, BlockJacobiNeedsFewerIterationsOnATiltedFloor) {
  // The square resting on a floor whose normal is along no axis: a resting particle's block
  // S A S + m n nᵀ is stiff along n and soft across it, which the 3×3 blocks capture and the
  // diagonal does not. Stretched by 2 %, its springs pull it in the floor's plane, where the
  // solve has work to do. Both reach the same answer, block Jacobi in fewer iterations.
  ClothModel m = build_cloth_model(hanging_square(8, 0.2), load_material("cotton_jersey"));
  m.x *= 1.02;
  const Vec3 n = Vec3(1, 2, 3).normalized();
  Points3 normals(m.num_particles(), 3);
  normals.rowwise() = n.transpose();
  ForceWorkspace ws;
  Points3 x[2], v[2];
  int iterations[2];
  for (int k = 0; k < 2; ++k) {
    ImplicitEuler solver(m, {1e-8, 5000, k == 0 ? Preconditioner::jacobi : Preconditioner::block_jacobi});
    solver.step(m, 1.0 / 120, -9.81 * n, ws, x[k], v[k], &normals);
    EXPECT_TRUE(solver.last_stats().converged);
    iterations[k] = solver.last_stats().cg_iterations;
  }
  EXPECT_LT((v[1] - v[0]).norm(), 1e-5 * v[0].norm());
  EXPECT_GT(v[0].norm(), 1e-3);
  EXPECT_LT(iterations[1], iterations[0]);
}

TEST(Integrators, LargeImplicitStepIsTheSameOnAnyThreadCount) {
  // 5184 particles: the step's assembly (from 4096 particles) and its block conjugate gradients
  // (from 1793) run in parallel. Stretched, with random velocities and the top row
  // pinned, resting on a tilted floor: every block of the step is at work.
  const garments::GarmentMesh g = hanging_square(72, 0.6);
  ClothModel m = build_cloth_model(g, load_material("cotton_jersey"));
  ASSERT_GT(m.num_particles(), 4096);
  for (int v : g.labelled_vertices.at("top")) m.inv_mass[m.particle_of_vertex[v]] = 0;
  m.x *= 1.02;
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  for (int p = 0; p < m.num_particles(); ++p) m.v.row(p) = Vec3(u(rng), u(rng), u(rng)).transpose();
  Points3 normals = Points3::Zero(m.num_particles(), 3);
  for (int p = 0; p < m.num_particles(); p += 3) normals.row(p) = Vec3(1, 2, 3).normalized().transpose();
  ForceWorkspace ws;
  Points3 x[3], v[3];
  for (int k = 0; k < 3; ++k) {
    set_num_threads(k == 0 ? 1 : 2);
    ImplicitEuler solver(m, {1e-10, 5000, k == 2 ? Preconditioner::jacobi : Preconditioner::block_jacobi});
    solver.step(m, 1.0 / 120, Vec3(0, -9.81, 0), ws, x[k], v[k], &normals);
    EXPECT_TRUE(solver.last_stats().converged);
  }
  set_num_threads(0);
  EXPECT_TRUE(x[0] == x[1]);  // bit for bit
  EXPECT_TRUE(v[0] == v[1]);
  EXPECT_GT((v[0] - m.v).norm(), 1e-3);
  // And Eigen's conjugate gradients (diagonal preconditioner) solve the same system.
  EXPECT_LT((v[2] - v[0]).norm(), 1e-6 * (v[0] - m.v).norm());
}

TEST(Integrators, ClosedSeamPairsAtZeroLengthAreCoupledInTheSolve) {
  // Two panels sewn edge to edge, the seam closed: each pair at one position (as the contact
  // stage holds a closed pair), its sewing spring at rest length 0. Stretched by 3 % with random
  // velocities, each panel pulls its side of the seam its own way; the sewing springs, at zero
  // length, must still tie the pairs in the solve.
  ModelOptions options;
  options.merge_seams = false;
  const garments::GarmentMesh g = two_panels(4, 4, 0.1, 0.1, 0.1, 0.0);
  ClothModel m = build_cloth_model(g, load_material("cotton_jersey"), options);
  Segments pairs(g.seam_pairs.rows(), 2);
  for (Eigen::Index i = 0; i < pairs.rows(); ++i)
    pairs.row(i) << m.particle_of_vertex[g.seam_pairs(i, 0)], m.particle_of_vertex[g.seam_pairs(i, 1)];
  add_sewing_springs(m, pairs, m.springs.stiffness.head(m.springs.num_stretch).mean());
  m.springs.rest_now.tail(pairs.rows()).setZero();  // closed
  m.x *= 1.03;
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  for (int p = 0; p < m.num_particles(); ++p) m.v.row(p) = Vec3(u(rng), u(rng), u(rng)).transpose();
  m.springs.damping.setZero();
  expect_step_solves_linearised_system(m, Preconditioner::jacobi);
  // The largest pair separation after the step, against the same step with the springs cut.
  auto separation = [&](const ClothModel& model) {
    ForceWorkspace ws;
    ImplicitEuler solver(model, {1e-12, 5000});
    Points3 x, v;
    solver.step(model, 1.0 / 120, Vec3(0, -9.81, 0), ws, x, v);
    double gap = 0;
    for (Eigen::Index i = 0; i < pairs.rows(); ++i) gap = std::max(gap, (x.row(pairs(i, 0)) - x.row(pairs(i, 1))).norm());
    return gap;
  };
  ClothModel cut = m;
  cut.springs.stiffness.tail(pairs.rows()).setZero();
  const double free_gap = separation(cut);
  // What stays open is the sewing springs' stretch under the panels' pull (they are as stiff as
  // the fabric): a few % of the free separation here. Dropped at zero length, as spring_force
  // drops them, the pairs part as if cut.
  EXPECT_GT(free_gap, 1e-4);
  EXPECT_LT(separation(m), 0.1 * free_gap);
}

TEST(Integrators, StableDtScalesWithStiffnessAndMass) {
  ClothModel m = build_cloth_model(hanging_square(8, 0.4), load_material("cotton_poplin"));
  m.material.air_drag = 0;
  m.springs.damping.setZero();
  const double dt = explicit_stable_dt(m, m.x);
  ClothModel stiff = m;
  stiff.springs.stiffness *= 4;
  EXPECT_NEAR(explicit_stable_dt(stiff, stiff.x), dt / 2, 1e-12 * dt);
  ClothModel heavy = m;
  heavy.mass *= 4;
  heavy.inv_mass /= 4;
  EXPECT_NEAR(explicit_stable_dt(heavy, heavy.x), dt * 2, 1e-12 * dt);
}

TEST(StrainLimit, BringsSpringsWithinLimitAndKeepsPins) {
  ClothModel m = build_cloth_model(hanging_square(6, 0.3), load_material("denim"));
  m.set_pinned(0, true);
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> u(0.0, 0.03);
  Points3 x = m.x;
  for (int p = 0; p < m.num_particles(); ++p) x.row(p) *= 1.0 + u(rng);  // stretched up to 3 %+
  x.row(0) = m.x.row(0);
  x *= 1.2;
  const Vec3 pinned = x.row(0);
  const double limit = 0.05;
  ASSERT_GT(strain_stats(m, x).max, 0.15);
  const StrainLimitStats st = limit_strain(m, limit, x, 200, 1e-6);
  EXPECT_LE(st.max_excess, 1e-6);
  EXPECT_LE(strain_stats(m, x).max, limit + 1e-5);
  EXPECT_EQ(Vec3(x.row(0)), pinned);
  // Strain limiting alone does not move the centre of mass of free particles... it is
  // momentum neutral: Σ m Δx = 0 when no particle is pinned.
  ClothModel free = build_cloth_model(hanging_square(6, 0.3), load_material("denim"));
  Points3 y = free.x * 1.2, y0 = y;
  limit_strain(free, limit, y, 200, 1e-6);
  Vec3 shift = Vec3::Zero();
  for (int p = 0; p < free.num_particles(); ++p) shift += free.mass[p] * (y.row(p) - y0.row(p)).transpose();
  EXPECT_LT(shift.norm(), 1e-14);
}

TEST(Integrators, RestingContactsGetNoVelocityIntoTheBodyAndFriction) {
  // The square lies in the x-y plane on a "floor" whose outward normal is +z, gravity along −z
  // pushes it into the floor: filtered as in [Baraff & Witkin 1998, §5], its velocity change
  // has no z part, while a free square falls by g·h in one step.
  ClothModel m = build_cloth_model(hanging_square(4, 0.2), load_material("cotton_jersey"));
  m.material.air_drag = 0;  // exact figures below
  const double h = 1.0 / 120, g = 9.81;
  const Vec3 gravity(0, 0, -g);
  ForceWorkspace ws;
  Points3 normals = Points3::Zero(m.num_particles(), 3);
  normals.col(2).setOnes();
  ImplicitEuler solver(m, {1e-12, 5000});
  Points3 x, v;
  solver.step(m, h, gravity, ws, x, v);
  EXPECT_NEAR(v.col(2).mean(), -g * h, 1e-3 * g * h);  // free: falls
  solver.step(m, h, gravity, ws, x, v, &normals);
  EXPECT_LT(v.cwiseAbs().maxCoeff(), 1e-9);  // resting: held by the floor
  EXPECT_LT((x - m.x).cwiseAbs().maxCoeff(), 1e-12);
  // Sliding at 1 cm/s: friction removes up to mu · g · h of tangential speed (8.2 cm/s for
  // mu = 1: it stops; 0.41 cm/s for mu = 0.05: it slows to 0.59 cm/s).
  m.v.col(0).setConstant(0.01);
  solver.step(m, h, gravity, ws, x, v, &normals, 1.0);
  EXPECT_LT(v.cwiseAbs().maxCoeff(), 1e-9);
  solver.step(m, h, gravity, ws, x, v, &normals, 0.05);
  EXPECT_NEAR(v.col(0).mean(), 0.01 - 0.05 * g * h, 1e-6);
  EXPECT_LT(v.col(2).cwiseAbs().maxCoeff(), 1e-9);
  // A particle the forces pull away from the floor is not held.
  Points3 up = normals;
  solver.step(m, h, Vec3(0, 0, g), ws, x, v, &up);
  EXPECT_NEAR(v.col(2).mean(), g * h, 1e-3 * g * h);
}

TEST(StrainLimit, JoinedPairsMoveAsOneAndBodyContactsAreNotPushedIn) {
  ClothModel m = build_cloth_model(hanging_square(6, 0.3), load_material("denim"));
  const double limit = 0.05;
  // Joined: particles 0 and 1 (neighbours, brought together) end at one position, and the
  // cloth within the limit around them.
  Points3 x = m.x * 1.2;
  x.row(1) = x.row(0);
  Segments joined(1, 2);
  joined << 0, 1;
  StrainLimitConstraints c;
  c.joined = &joined;
  limit_strain(m, limit, x, 500, 1e-6, c);
  EXPECT_EQ(Vec3(x.row(0)), Vec3(x.row(1)));
  EXPECT_LE(strain_stats(m, x).max, limit + 1e-3);
  // On the body: every particle rests on a surface with outward normal n (tilted, so that the
  // corrections of a stretched square have parts along it); none moves into it, and the
  // strain still goes down.
  Points3 y = m.x * 1.2, y0 = y;
  const Vec3 n = Vec3(1, 0, 1).normalized();
  std::vector<char> on(m.num_particles(), 1);
  Points3 normals(m.num_particles(), 3);
  normals.rowwise() = n.transpose();
  StrainLimitConstraints body;
  body.on_body = &on;
  body.body_normal = &normals;
  body.friction = 0.3;
  const double before = strain_stats(m, y).max;
  limit_strain(m, limit, y, 200, 1e-6, body);
  for (int p = 0; p < m.num_particles(); ++p) EXPECT_GE((y.row(p) - y0.row(p)).dot(n.transpose()), -1e-12) << p;
  EXPECT_LT(strain_stats(m, y).max, before);
}

namespace {
// limit_strain re-measures only springs with a moved end (and measures them on entry in
// parallel); plain Gauss–Seidel sweeps over every spring (written out here, body contacts and
// joined pairs included) must give the same positions, bit for bit. A few patches of an n×n
// square are stretched, the rest is within the limit.
void expect_full_sweeps_result(int n, int threads) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", threads = " + std::to_string(threads));
  ClothModel m = build_cloth_model(hanging_square(n, 0.3), load_material("cotton_jersey"));
  const double limit = 0.05;
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> u(-0.004, 0.004);
  Points3 x0 = m.x;
  for (int p = 0; p < m.num_particles(); p += 7) x0.row(p) += Vec3(u(rng), u(rng), u(rng)).transpose();
  Segments joined(1, 2);
  joined << 30, 31;
  std::vector<char> on(m.num_particles(), 0);
  for (int p = 0; p < m.num_particles(); p += 3) on[p] = 1;
  Points3 normals(m.num_particles(), 3);
  normals.rowwise() = Vec3(1, 0, 1).normalized().transpose();
  StrainLimitConstraints c;
  c.joined = &joined;
  c.on_body = &on;
  c.body_normal = &normals;
  c.friction = 0.3;
  Points3 x = x0;
  set_num_threads(threads);
  const StrainLimitStats st = limit_strain(m, limit, x, 50, 1e-6, c);
  set_num_threads(0);
  ASSERT_GT(st.iterations, 2);
  Points3 ref = x0;
  const Springs& S = m.springs;
  auto move = [&](int i, Vec3 dx) {
    const Vec3 n = normals.row(i);
    if (on[i] && dx.dot(n) < 0) {
      const Vec3 t = dx - dx.dot(n) * n;
      const double stick = c.friction * -dx.dot(n);
      dx = t.norm() > stick ? Vec3(t * (1 - stick / t.norm())) : Vec3::Zero();
    }
    ref.row(i) += dx.transpose();
  };
  for (int sweep = 0; sweep < 50; ++sweep) {
    double worst = 0;
    for (int s = 0; s < S.num_stretch; ++s) {
      const int a = S.ends(s, 0), b = S.ends(s, 1);
      const double wa = m.inv_mass[a], wb = m.inv_mass[b];
      const Vec3 d = (ref.row(b) - ref.row(a)).transpose();
      const double l = d.norm(), lim = (1.0 + limit) * S.rest_now[s];
      if (!(l > lim)) continue;
      worst = std::max(worst, l / S.rest_now[s] - 1.0 - limit);
      const Vec3 corr = (l - lim) / l * d / (wa + wb);
      move(a, wa * corr);
      move(b, -wb * corr);
    }
    const double wa = m.inv_mass[30], wb = m.inv_mass[31];
    ref.row(30) += (wa / (wa + wb) * (ref.row(31) - ref.row(30)).transpose()).transpose();
    ref.row(31) = ref.row(30);
    if (worst <= 1e-6) break;
  }
  EXPECT_TRUE(x == ref);
  EXPECT_NE(x, x0);
}
}  // namespace

TEST(StrainLimit, SkippingUnmovedSpringsGivesTheFullSweepsResult) {
  expect_full_sweeps_result(12, 1);
  // Over 4096 springs (about 12,500): measured on entry in parallel.
  expect_full_sweeps_result(64, 2);
}

namespace {
// Steps a square lying in the x-y plane on a floor (outward normal +z) whose contact layer's
// top is z = 0: each particle below it is a penalty contact of depth −z, found at the step's
// start as the contact stage does. Returns the smallest depth over the particles after each step.
std::vector<double> drop_on_penalty_floor(ClothModel& m, const Vec3& gravity, PenaltyContacts pc, int steps) {
  const double h = 1.0 / 120;
  ForceWorkspace ws;
  ImplicitEuler solver(m, {1e-12, 5000});
  Points3 x, v;
  std::vector<double> min_depth;
  for (int s = 0; s < steps; ++s) {
    pc.list.clear();
    for (int p = 0; p < m.num_particles(); ++p)
      if (m.x(p, 2) < 0) pc.list.push_back({{p, -1, -1}, Vec3(1, 0, 0), Vec3::UnitZ(), -m.x(p, 2)});
    solver.step(m, h, gravity, ws, x, v, nullptr, 0, &pc);
    m.x = x;
    m.v = v;
    min_depth.push_back(-m.x.col(2).maxCoeff());
  }
  return min_depth;
}
}  // namespace

TEST(Integrators, PenaltyContactsHoldTheClothInTheLayerWithoutBouncing) {
  // The square enters the layer at 10 cm/s. With the contacts' damping it stays in the layer
  // from then on and settles where the floor carries its weight: Σ stiffness · depth = M g
  // (the internal forces sum to zero).
  const double g = 9.81;
  PenaltyContacts pc;
  pc.stiffness = 3e3;
  ClothModel m = build_cloth_model(hanging_square(4, 0.2), load_material("cotton_jersey"));
  m.material.air_drag = 0;
  const ClothModel start = m;
  m.v.col(2).setConstant(-0.1);
  const std::vector<double> depth = drop_on_penalty_floor(m, Vec3(0, 0, -g), pc, 240);
  for (std::size_t s = 0; s < depth.size(); ++s) ASSERT_GT(depth[s], 0) << "step " << s;
  EXPECT_LT(m.v.cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_NEAR(pc.stiffness * (-m.x.col(2)).sum(), m.mass.sum() * g, 1e-4 * m.mass.sum() * g);

  // Undamped, implicit Euler throws it out of the layer again: it bounces.
  m = start;
  m.v.col(2).setConstant(-0.1);
  pc.damping = 0;
  const std::vector<double> bouncing = drop_on_penalty_floor(m, Vec3(0, 0, -g), pc, 240);
  EXPECT_LE(*std::min_element(bouncing.begin() + 1, bouncing.end()), 0);
}

TEST(Integrators, PenaltyContactFrictionHoldsInsideTheConeAndSlidesOutside) {
  // Gravity tilted by θ from the floor's normal: the square sticks for tan θ < μ = 0.45 and
  // slides with acceleration g (sin θ − μ cos θ) [Coulomb] for tan θ > μ.
  const double g = 9.81, mu = 0.45;
  PenaltyContacts pc;
  pc.stiffness = 3e3;
  pc.friction = mu;
  for (const double degrees : {10.0, 40.0}) {
    const double theta = degrees * M_PI / 180;
    ClothModel m = build_cloth_model(hanging_square(4, 0.2), load_material("cotton_jersey"));
    m.material.air_drag = 0;
    const Vec3 gravity(g * std::sin(theta), 0, -g * std::cos(theta));
    drop_on_penalty_floor(m, gravity, pc, 60);  // 0.5 s to settle into the layer
    const double speed_before = m.v.col(0).mean();
    drop_on_penalty_floor(m, gravity, pc, 60);
    const double speed = m.v.col(0).mean();
    if (std::tan(theta) < mu) {
      EXPECT_LT(std::abs(speed), pc.stick_speed) << degrees;
    } else {
      const double coulomb = g * (std::sin(theta) - mu * std::cos(theta));
      EXPECT_NEAR((speed - speed_before) / 0.5, coulomb, 0.05 * coulomb) << degrees;
    }
  }
}
