// The judge stage (stages.hpp): the checker, which knows nothing of the simulator, measures the
// draped cloth; its verdict, the fit maps and report.json (docs/report.md) make the result.
#include <cmath>

#include "core/logger.hpp"
#include "tryon/stages.hpp"

namespace tryon::stages {
namespace {

using json = nlohmann::json;

json range_json(const Eigen::VectorXd& v) {
  const outputs::Range r = outputs::range_of(v);
  return json{{"min", std::isfinite(r.min) ? json(r.min) : json(nullptr)},
              {"max", std::isfinite(r.max) ? json(r.max) : json(nullptr)}};
}

/// The cloth as the checker sees it: the garment's vertices at the last frame and the one before.
quality::Cloth judged_cloth(const Run& run, const Cloth& c) {
  const cloth::ClothModel& m = c.model;
  quality::Cloth judged;
  judged.V = cloth::garment_positions(m);
  judged.F = c.garment.F;
  judged.rest = c.garment.rest;
  judged.seam_pairs = c.garment.seam_pairs;
  judged.panel_of_vertex = c.garment.panel_of_vertex;
  Points3 prev(c.garment.num_vertices(), 3);
  for (int v = 0; v < c.garment.num_vertices(); ++v) prev.row(v) = run.previous.row(m.particle_of_vertex[v]);
  judged.previous = prev;
  if (!judged.V.allFinite()) throw std::runtime_error("the simulation produced non-finite positions");
  return judged;
}

/// report.json's "crossings": where the garment's cloth crosses the body or itself, by panel,
/// the kMaxCrossingGroups with the most edges.
constexpr std::size_t kMaxCrossingGroups = 10;
json crossings_json(const quality::Quality& q, const std::vector<std::string>& panel_names) {
  json out = json::array();
  for (std::size_t i = 0; i < q.crossings.size() && i < kMaxCrossingGroups; ++i) {
    const quality::Crossing& c = q.crossings[i];
    out.push_back({{"panels", {panel_names[c.panel], c.other < 0 ? "body" : panel_names[c.other]}},
                   {"edges", c.edges},
                   {"at_m", {c.at.x(), c.at.y(), c.at.z()}}});
  }
  return out;
}

/// The three crossing groups with the most edges, in the log.
void log_crossings(const quality::Quality& q, const std::vector<std::string>& panel_names) {
  for (std::size_t i = 0; i < q.crossings.size() && i < 3; ++i) {
    const quality::Crossing& c = q.crossings[i];
    const std::string where = c.other < 0 ? "of '" + panel_names[c.panel] + "' through the body"
                                          : "between '" + panel_names[c.panel] + "' and '" + panel_names[c.other] + "'";
    logger().info("crossing: {} edge{} {}, at ({:.2f}, {:.2f}, {:.2f}) m", c.edges, c.edges > 1 ? "s" : "", where,
                  c.at.x(), c.at.y(), c.at.z());
  }
}

/// Why the drape is not clean (empty: it is), in report.json's words.
json failures(const cloth::RunResult& run, const quality::Quality& q) {
  json f = json::array();
  if (run.status == cloth::RunStatus::failed) f.push_back("simulation_failed");
  if (run.status == cloth::RunStatus::cancelled) f.push_back("cancelled");
  if (run.status == cloth::RunStatus::time_limit) f.push_back("time_limit");
  if (q.body_intersections > 0) f.push_back("body_intersection");
  if (q.vertices_inside_body > 0) f.push_back("vertices_inside_body");
  if (q.self_intersections > 0) f.push_back("self_intersection");
  if (!(q.seam_gap_max_m < 1e-3)) f.push_back("seam_gap");
  // At rest by the checker (nothing moved in the last frame) and by the simulator (the fail-safe
  // did not stop the cloth for want of a resolution during that frame).
  if (!(q.is_static.value_or(false) && run.status == cloth::RunStatus::static_reached)) f.push_back("not_static");
  return f;
}

/// report.json's "run": what the simulator and the contact did.
json run_json(const Cloth& c, const std::optional<DrapeResult>& coarse, double coarse_simulate_s,
              double coarse_start_cm) {
  const cloth::ContactStats& s = c.contact->stats();
  json r = {{"status", cloth::run_status_name(c.run.status)}, {"reason", c.run.reason},
            {"rollbacks", c.run.rollbacks}, {"pushed_out", c.pushed},
            {"body_contacts", s.body_contacts}, {"self_contacts", s.self_contacts},
            {"failsafe_reverts", s.failsafe_reverts}, {"failsafe_unsettled_steps", s.failsafe_unsettled},
            {"resting_contacts", s.resting}, {"resting_contacts_kept", s.resting_kept}};
  if (!c.sewing.order_kept.empty())
    r["sewing"] = {{"orders_tried", c.sewing.orders_tried},
                   {"order_kept", c.sewing.order_kept},
                   {"seam_pairs", c.sewing.seam_pairs},
                   {"closed_pairs", c.sewing.closed_pairs},
                   {"frames", c.sewing_run.frames}};
  if (c.review) r["rest_review"] = {{"frame", c.review->frame}, {"went_on", c.review->went_on}};
  if (coarse)
    r["coarse_start"] = {{"resolution_cm", coarse_start_cm},
                         {"used", c.coarse_used},
                         {"stopped_in_it", false},
                         {"status", coarse->report["status"]},
                         {"failures", coarse->report["failures"]},
                         {"frames", coarse->report["simulation"]["frames"]},
                         {"sewing", coarse->report["run"].value("sewing", json())},
                         {"simulate_s", coarse_simulate_s}};
  return r;
}

}  // namespace

DrapeResult judge(Run& run, Cloth& c, const garments::Pattern& pattern, const avatars::Avatar& body,
                  const std::optional<DrapeResult>& coarse, Clock::time_point t_start) {
  const auto t_judge0 = Clock::now();
  // The coarse start's figures go into the timings (its judging with the judging).
  auto coarse_timing = [&](const char* key) { return coarse ? coarse->report["timings_s"].value(key, 0.0) : 0.0; };
  DrapeResult result;
  result.name = pattern.name;
  const quality::Cloth judged = judged_cloth(run, c);
  result.quality = quality::check(judged, body.mesh);
  result.positions = judged.V;
  result.fit_maps = outputs::compute_fit_maps(judged.V, c.garment.F, c.garment.rest, body.mesh);
  const json fails = failures(c.run, result.quality);
  result.clean = fails.empty();
  const bool at_rest = result.quality.is_static.value_or(false) && c.run.status == cloth::RunStatus::static_reached;

  json& report = result.report;
  report = {{"status", result.clean ? "ok" : "failed"},
            {"failures", fails},
            {"pattern", pattern.name},
            {"avatar", body.name},
            {"mesh",
             {{"vertices", c.garment.num_vertices()},
              {"triangles", c.garment.num_triangles()},
              {"panels", static_cast<int>(pattern.panels.size())},
              {"stitches", static_cast<int>(pattern.stitches.size())}}},
            {"simulation",
             {{"integrator", cloth::integrator_name(run.shared.integrator)},
              {"dt_s", c.run.dt},
              {"steps", c.run.steps},
              {"frames", c.run.frames},
              {"sim_time_s", c.run.sim_time},
              {"static", at_rest}}},
            {"timings_s",
             {{"load", 0.0},
              {"mesh", c.mesh_s},
              {"simulate", c.simulate_s + coarse_timing("simulate")},
              {"collision", c.collision_s() + coarse_timing("collision")},
              {"judge", since(t_judge0) + coarse_timing("judge")},
              {"write", 0.0},
              {"total", since(t_start)}}},
            {"quality", quality_json(result.quality)}};
  report["crossings"] = crossings_json(result.quality, c.garment.panel_names);
  log_crossings(result.quality, c.garment.panel_names);
  report["material"] = run.shared.material.name;
  report["avatar_frame"] = body_frame_json(body);
  report["fit_maps"] = {{"strain", range_json(result.fit_maps.strain)},
                        {"distance_m", range_json(result.fit_maps.distance_m)}};
  report["run"] = run_json(c, coarse, coarse_timing("simulate"), run.o.coarse_start_cm);
  result.garment = std::move(c.garment);
  return result;
}

}  // namespace tryon::stages
