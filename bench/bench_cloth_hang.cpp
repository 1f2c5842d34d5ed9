// Measures the integrators on a square cloth (default 100×100 = 10k vertices, 1 m side) held
// horizontal and pinned at the two corners of one edge: released, it swings down and hangs.
// Prints time per step, steps and frames to rest (static), wall time.
//   bench_cloth_hang [vertices_per_side] [max_frames] [material] [threads] [integrator]
//   environment: CLOTH_CG_TOL (CG tolerance), CLOTH_SUBSTEPS, CLOTH_JACOBI=1 or CLOTH_IC=1
//   (preconditioner: diagonal or incomplete Cholesky instead of the default block Jacobi)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cloth/simulator.hpp"
#include "cloth_fixtures.hpp"
#include "core/parallel.hpp"

using namespace tryon;
using namespace tryon::cloth;

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::stoi(argv[1]) : 100;
  const int max_frames = argc > 2 ? std::stoi(argv[2]) : 1200;
  const std::string material = argc > 3 ? argv[3] : "cotton_poplin";
  if (argc > 4) set_num_threads(std::stoi(argv[4]));
  garments::GarmentMesh g;
  const int first = test::add_grid_panel(g, "square", n, n, 1.0, 1.0, Vec3(0, 1.5, 0),
                                         Vec3::UnitX(), Vec3::UnitZ());
  g.labelled_vertices["top_left"] = {first};
  g.labelled_vertices["top_right"] = {first + n - 1};
  const Material mat = load_material(material);
  std::printf("hanging cloth %d x %d = %d vertices, %s, %d threads\n", n, n, n * n,
              material.c_str(), num_threads());
  std::vector<IntegratorKind> kinds = {IntegratorKind::implicit_euler, IntegratorKind::explicit_euler};
  if (argc > 5) kinds = {parse_integrator(argv[5])};
  for (auto kind : kinds) {
    ClothModel m = build_cloth_model(g, mat);
    for (int p : labelled_particles(m, g, {"top_left", "top_right"})) m.set_pinned(p, true);
    SimulatorSettings s;
    s.integrator = kind;
    if (const char* e = std::getenv("CLOTH_CG_TOL")) s.cg.cg_tolerance = std::atof(e);
    if (std::getenv("CLOTH_IC")) s.cg.preconditioner = Preconditioner::incomplete_cholesky;
    if (std::getenv("CLOTH_JACOBI")) s.cg.preconditioner = Preconditioner::jacobi;
    if (const char* e = std::getenv("CLOTH_SUBSTEPS")) s.implicit_substeps = std::atoi(e);
    Simulator sim(std::move(m), s);
    long long cg = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const RunResult r = sim.run(max_frames, [&](const FrameReport& f) {
      cg += f.cg_iterations;
      if (f.frame % 60 == 0)
        std::printf("  %s frame %d moving %.4f dt %.3g s\n", integrator_name(kind).c_str(),
                    f.frame, f.moving_fraction, f.dt);
    });
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const StrainStats st = strain_stats(sim.model(), sim.model().x);
    std::printf("%s: status %s, frames %d (%.2f s simulated), steps %lld, dt %.3g s, "
                "%.3f ms/step, wall %.2f s, CG iterations/step %.1f, strain max %.4f mean %.4f, "
                "moving %.4f, rollbacks %d\n",
                integrator_name(kind).c_str(), run_status_name(r.status).c_str(), r.frames,
                r.sim_time, r.steps, r.dt, 1e3 * wall / std::max(1LL, r.steps), wall,
                static_cast<double>(cg) / std::max(1LL, r.steps), st.max, st.mean,
                r.moving_fraction, r.rollbacks);
    std::fflush(stdout);
  }
  return 0;
}
