// contact_queries: the four collision queries of a cloth step, timed on a draped garment.
//
//   contact_queries CLOTH.obj BODY [--reps N] [--threads N] [--move-mm X] [--only QUERY]
//
// CLOTH is a drape's garment.obj (in the body's frame, as `tryon drape` writes it), BODY the body
// it was draped on. The step's motion is the cloth moved by a deterministic pseudo-random
// smooth displacement of up to --move-mm per vertex (default 0.5 mm, about a resting cloth's
// step).
// Times, each the median of --reps runs: the cloth tree's refit, body proximity (the drape's
// reach: 2.5 mm plus each vertex's displacement), self proximity at 3 mm, continuous body and
// self collisions. Prints one JSON line with the medians (ms) and the result counts, so that
// two builds can be compared on equal results. --only runs one query (the others report 0), for
// a profiler (valgrind --tool=callgrind counts the same instructions however busy the machine).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "avatars/avatar.hpp"
#include "collision/proximity.hpp"
#include "core/error.hpp"
#include "core/mesh_io.hpp"
#include "core/trimesh.hpp"
#include "core/parallel.hpp"

using namespace tryon;
using namespace tryon::collision;
using Clock = std::chrono::steady_clock;

namespace {

double median_ms(int reps, const std::function<void()>& body) {
  if (reps == 0) return 0;
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    body();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Times the cloth step's collision queries on a draped garment"};
  std::string cloth_path, body_path;
  int reps = 21, threads = 1;
  double move_mm = 0.5;
  std::string only;
  double skin_mm = 1.0;
  app.add_option("cloth", cloth_path, "draped garment (OBJ)")->required();
  app.add_option("body", body_path, "the body it was draped on")->required();
  app.add_option("--reps", reps, "runs per query (median)")->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "threads")->check(CLI::PositiveNumber);
  app.add_option("--move-mm", move_mm, "largest displacement of a vertex in the step (mm)")->check(CLI::NonNegativeNumber);
  app.add_option("--only", only, "run only this query (for a profiler)")
      ->check(CLI::IsMember({"body_proximity", "self_proximity", "body_ccd", "self_ccd", "walk"}));
  app.add_option("--skin-mm", skin_mm, "the walk's LeafPairCache skin (mm)")->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    set_num_threads(threads);
    // The drape writes a merged seam's particle once per panel: weld them back into one.
    TriMesh cloth = read_mesh(cloth_path);
    const int welded = weld_vertices(cloth, 1e-9);
    const avatars::Avatar body = avatars::load_avatar(body_path);
    const Points3& x0 = cloth.V;
    // A smooth displacement field (wavelength about 20 cm), the same on every run and build:
    // coincident vertices move together, as sewn ones do.
    Points3 x1 = x0;
    for (Eigen::Index i = 0; i < x1.rows(); ++i) {
      const Vec3 p = x0.row(i);
      const Vec3 d(std::sin(31 * p.y() + 1), std::sin(29 * p.z() + 2), std::sin(37 * p.x() + 3));
      x1.row(i) += (1e-3 * move_mm / std::sqrt(3.0)) * d.transpose();
    }

    const Triangles& F = cloth.F;
    const MeshTopology cloth_topo = MeshTopology::build(F, cloth.num_vertices());
    const MeshTopology body_topo = MeshTopology::build(body.mesh.F, body.mesh.num_vertices());
    Bvh<Aabb> body_bvh, cloth_bvh, swept_bvh;
    body_bvh.build(body.mesh.V, body.mesh.F);
    cloth_bvh.build(x0, F);
    swept_bvh.build(x0, F);
    const Eigen::VectorXd extra = (x1 - x0).rowwise().norm();
    const NodeContours cloth_contours(cloth_bvh, F, cloth_topo), swept_contours(swept_bvh, F, cloth_topo);

    ProximityResult body_prox, self_prox;
    ContinuousResult body_ccd, self_ccd;
    const ProximityMesh body_mesh{body.mesh.V, body.mesh.F, body_topo, body_bvh};
    const double refit = median_ms(reps, [&] { refit_inflated(cloth_bvh, x1, F, extra); });
    auto reps_of = [&](const char* name) { return only.empty() || only == name ? reps : 0; };
    const double t_body = median_ms(reps_of("body_proximity"), [&] {
      body_prox = proximity(ProximityMesh{x1, F, cloth_topo, cloth_bvh}, body_mesh,
                            ProximityReach{2.5e-3, 2.5e-3, 2.5e-3, &extra});
    });
    cloth_bvh.refit(x1, F);
    const double t_self = median_ms(reps_of("self_proximity"), [&] { self_prox = self_proximity(ProximityMesh{x1, F, cloth_topo, cloth_bvh, &cloth_contours}, 3e-3); });
    refit_swept(swept_bvh, x0, x1, F);
    const MovingMesh moving{x0, x1, F, cloth_topo, swept_bvh, &swept_contours};
    const MovingMesh body_static{body.mesh.V, body.mesh.V, body.mesh.F, body_topo, body_bvh};
    const double t_body_ccd = median_ms(reps_of("body_ccd"), [&] { body_ccd = continuous_collisions(moving, body_static); });
    const double t_self_ccd = median_ms(reps_of("self_ccd"), [&] { self_ccd = continuous_self_collisions(moving); });

    // A walk: `reps` steps of the displacement field, each query on the body with and without
    // remembered leaf pairs (LeafPairCache, skin --skin-mm) at every step, both timed, their
    // results compared.
    std::vector<double> walk_plain, walk_cached, walk_ccd_plain, walk_ccd_cached;
    bool walk_same = true;
    LeafPairCache prox_cache(1e-3 * skin_mm), ccd_cache(1e-3 * skin_mm);
    if (only.empty() || only == "walk") {
      auto ms = [](Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); };
      for (int k = 0; k < reps; ++k) {
        const Points3 xa = x0 + k * (x1 - x0), xb = x0 + (k + 1) * (x1 - x0);
        const Eigen::VectorXd step = (xb - xa).rowwise().norm();
        refit_inflated(cloth_bvh, xb, F, step);
        const ProximityMesh cloth_k{xb, F, cloth_topo, cloth_bvh};
        const ProximityReach reach{2.5e-3, 2.5e-3, 2.5e-3, &step};
        auto t0 = Clock::now();
        const ProximityResult plain = proximity(cloth_k, body_mesh, reach);
        walk_plain.push_back(ms(t0));
        t0 = Clock::now();
        const ProximityResult cached = proximity(cloth_k, body_mesh, reach, prox_cache);
        walk_cached.push_back(ms(t0));
        walk_same = walk_same && plain.vertex_triangle.size() == cached.vertex_triangle.size() &&
                    plain.triangle_vertex.size() == cached.triangle_vertex.size() &&
                    plain.edge_edge.size() == cached.edge_edge.size();
        for (std::size_t h = 0; walk_same && h < plain.vertex_triangle.size(); ++h)
          walk_same = plain.vertex_triangle[h].vertex == cached.vertex_triangle[h].vertex &&
                      plain.vertex_triangle[h].triangle == cached.vertex_triangle[h].triangle &&
                      plain.vertex_triangle[h].distance == cached.vertex_triangle[h].distance;
        refit_swept(swept_bvh, xa, xb, F);
        const MovingMesh moving_k{xa, xb, F, cloth_topo, swept_bvh};
        t0 = Clock::now();
        const ContinuousResult ccd_plain = continuous_collisions(moving_k, body_static);
        walk_ccd_plain.push_back(ms(t0));
        t0 = Clock::now();
        const ContinuousResult ccd_cached = continuous_collisions(moving_k, body_static, 1e-9, ccd_cache);
        walk_ccd_cached.push_back(ms(t0));
        walk_same = walk_same && ccd_plain.vertex_face.size() == ccd_cached.vertex_face.size() &&
                    ccd_plain.face_vertex.size() == ccd_cached.face_vertex.size() &&
                    ccd_plain.edge_edge.size() == ccd_cached.edge_edge.size();
      }
    }
    auto median = [](std::vector<double> v) {
      if (v.empty()) return 0.0;
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };

    nlohmann::json j;
    j["walk"] = {{"body_proximity_ms", median(walk_plain)},
                 {"body_proximity_cached_ms", median(walk_cached)},
                 {"body_ccd_ms", median(walk_ccd_plain)},
                 {"body_ccd_cached_ms", median(walk_ccd_cached)},
                 {"lookups_per_step", static_cast<double>(prox_cache.lookups() + ccd_cache.lookups()) / std::max(1, 2 * reps)},
                 {"same_results", walk_same}};
    j["cloth"] = {{"vertices", cloth.num_vertices()}, {"triangles", cloth.num_triangles()}, {"welded", welded}};
    j["body_triangles"] = body.mesh.num_triangles();
    j["threads"] = threads;
    j["median_ms"] = {{"refit_inflated", refit},
                      {"body_proximity", t_body},
                      {"self_proximity", t_self},
                      {"body_ccd", t_body_ccd},
                      {"self_ccd", t_self_ccd}};
    j["found"] = {{"body_vt", body_prox.vertex_triangle.size()},
                  {"body_tv", body_prox.triangle_vertex.size()},
                  {"body_ee", body_prox.edge_edge.size()},
                  {"self_vt", self_prox.vertex_triangle.size()},
                  {"self_ee", self_prox.edge_edge.size()},
                  {"body_ccd", body_ccd.vertex_face.size() + body_ccd.face_vertex.size() + body_ccd.edge_edge.size()},
                  {"self_ccd", self_ccd.vertex_face.size() + self_ccd.edge_edge.size()}};
    std::cout << j.dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "contact_queries: " << e.what() << "\n";
    return 2;
  }
}
