// The drape pipeline: drape() runs the stages of stages.hpp in order, with a coarse start
// first when the drape is fine; save_drape() writes the result.
#include "tryon/drape.hpp"

#include <cmath>
#include <optional>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/logger.hpp"
#include "core/mesh_io.hpp"
#include "outputs/glb.hpp"
#include "outputs/preview.hpp"
#include "tryon/materials.hpp"
#include "tryon/stages.hpp"

namespace tryon {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace stages {

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void Run::on_frame(const cloth::FrameReport& f, const char* phase, const Points3& x) {
  phase_steps_ += f.steps;
  phase_cg_ += f.cg_iterations;
  previous = current;
  current = x;
  if (progress_)
    progress_(DrapeProgress{frames_discarded + frames_done + f.frame, frames_discarded + o.max_frames,
                            f.moving_fraction, phase, since(shared.started)});
  if (o.time_limit_s > 0 && since(shared.started) > o.time_limit_s) timed_out = true;
  if (timed_out || (user_cancel_ && user_cancel_->load())) cancel = true;
}

void Run::on_motion_frame(int frame, int frames, double moving_fraction) {
  if (progress_) progress_(DrapeProgress{frame, frames, moving_fraction, "motion", since(shared.started)});
  if (o.time_limit_s > 0 && since(shared.started) > o.time_limit_s) timed_out = true;
  if (timed_out || (user_cancel_ && user_cancel_->load())) cancel = true;
}

void Run::log_phase(const char* phase, double collision_s) {
  const double coll = collision_s - collision_at_start_;
  logger().debug("{}: {} steps, {:.1f} CG iterations a step, {:.2f} s ({:.2f} s in contact)", phase, phase_steps_,
                 static_cast<double>(phase_cg_) / std::max(1LL, phase_steps_), since(phase_start_), coll);
  phase_steps_ = phase_cg_ = 0;
  phase_start_ = Clock::now();
  collision_at_start_ = collision_s;
}

void Run::start(const Points3& x, double collision_s) {
  previous = current = x;
  phase_start_ = Clock::now();
  collision_at_start_ = collision_s;
}

}  // namespace stages

json quality_json(const quality::Quality& q) {
  auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  return {{"body_intersections", q.body_intersections},
          {"vertices_inside_body", q.vertices_inside_body},
          {"self_intersections", q.self_intersections},
          {"seam_gap_max_m", q.seam_gap_max_m},
          {"strain_max", opt(q.strain_max)},
          {"strain_mean", opt(q.strain_mean)},
          {"moving_fraction", opt(q.moving_fraction)}};
}

json body_frame_json(const avatars::Avatar& body) {
  const avatars::BodyFrameGuess& f = body.frame;
  return {{"up", f.up.name()},         {"up_detected", f.up_detected},         {"up_how", f.up_how},
          {"facing", f.facing.name()}, {"facing_detected", f.facing_detected}, {"facing_how", f.facing_how}};
}

void write_garment_obj(const fs::path& path, const garments::GarmentMesh& g, const Points3& V,
                       const std::string& title) {
  ObjExtras extras;
  extras.lines = g.seam_pairs;
  extras.lines_group = "seams";
  extras.normals = vertex_normals(V, g.F);
  extras.groups = g.panel_names;
  extras.group_of = g.panel_of_triangle;
  extras.comment = title + "\nuv = 2D panel coordinates (m); 'l' elements (group seams) = seam vertex pairs";
  write_obj(path, TriMesh{V, g.F, g.rest}, extras);
}

namespace {

using stages::Clock;
using stages::since;

// Coarse start: only for a drape at least this many times finer than the coarse resolution.
constexpr double kCoarseRatio = 1.5;

// Refuses options out of range, before any work.
void check_options(const DrapeOptions& o) {
  if (o.seams != "sew" && o.seams != "merge")
    throw InputError("unknown seam mode '" + o.seams + "' (use sew or merge)");
  if (!(o.resolution_cm >= 0.2 && o.resolution_cm <= 50.0))
    throw InputError("resolution_cm must be between 0.2 and 50");
  if (o.max_frames < 1) throw InputError("max_frames must be at least 1");
  if (o.substeps < 1 || o.substeps > 64) throw InputError("substeps must be between 1 and 64");
  if (!(o.time_limit_s >= 0)) throw InputError("time_limit_s must be 0 (none) or positive");
  if (!(o.body_inset_m >= 0 && o.body_inset_m <= 0.1)) throw InputError("body_inset_m must be between 0 and 0.1");
  if (!(o.coarse_start_cm == 0 || (o.coarse_start_cm >= 0.2 && o.coarse_start_cm <= 50.0)))
    throw InputError("coarse_start_cm must be 0 (off) or between 0.2 and 50");
}

DrapeResult drape_with(const garments::Pattern& pattern, const avatars::Avatar& body, const stages::Shared& shared,
                       const DrapeOptions& o, const DrapeProgressCallback& progress,
                       const std::atomic<bool>* user_cancel, const stages::AfterDrape& after = {});

// A coarse drape with at most this many cloth edges through cloth still starts the fine mesh:
// the fine mesh's untangling stage undoes a fold or two, but keeps a tangle of tens of edges,
// from which a fine mesh sewn itself does better.
constexpr int kCoarseCrossingsKept = 10;

// Whether the fine drape starts from the coarse one: sewn and out of the body (its report's
// failures, if any, are not_static, and self_intersection with at most kCoarseCrossingsKept
// edges; a cancelled, timed out or failed run, cloth in the body or an open seam each add their
// own failure).
bool sewn_outside_the_body(const DrapeResult& coarse) {
  for (const auto& failure : coarse.report["failures"])
    if (failure != "not_static" && failure != "self_intersection") return false;
  return coarse.report["quality"].value("self_intersections", 0) <= kCoarseCrossingsKept;
}

// Whether the coarse drape was stopped (cancelled, or out of time).
bool stopped(const DrapeResult& coarse) {
  const std::string status = coarse.report["run"]["status"];
  return status == cloth::run_status_name(cloth::RunStatus::cancelled) ||
         status == cloth::run_status_name(cloth::RunStatus::time_limit);
}

// The coarse stage: sewing and the first of the drape on a coarse mesh, which the fine one
// starts from (see DrapeOptions::coarse_start_cm); nothing when the drape is not fine enough.
std::optional<DrapeResult> coarse_start(const garments::Pattern& pattern, const avatars::Avatar& body,
                                        const stages::Shared& shared, const DrapeOptions& o,
                                        const DrapeProgressCallback& progress, const std::atomic<bool>* user_cancel) {
  if (!(o.coarse_start_cm > 0 && o.seams == "sew" && o.contact && kCoarseRatio * o.resolution_cm <= o.coarse_start_cm))
    return std::nullopt;
  DrapeOptions co = o;
  co.resolution_cm = o.coarse_start_cm;
  co.coarse_start_cm = 0;
  return drape_with(
      pattern, body, shared, co,
      [&](const DrapeProgress& p) {
        if (!progress) return;
        DrapeProgress q = p;
        q.phase = "coarse " + p.phase;
        progress(q);
      },
      user_cancel);
}

// Stopped in the coarse drape: the drape ends where it stopped, the coarse cloth, at once.
// Meshing the fine garment and running a frame of it before looking at the stop took longer
// than a batch's 2 s between SIGTERM and SIGKILL under the sanitizers, and left an unsewn fine
// garment behind.
DrapeResult stopped_in_coarse_start(DrapeResult coarse, const DrapeOptions& o) {
  logger().info("coarse start: stopped in the drape at {} cm ({}); it is the result", o.coarse_start_cm,
                coarse.report["run"]["status"].get<std::string>());
  coarse.report["run"]["coarse_start"] = {{"resolution_cm", o.coarse_start_cm},
                                          {"used", false},
                                          {"stopped_in_it", true},
                                          {"status", coarse.report["status"]},
                                          {"failures", coarse.report["failures"]},
                                          {"frames", coarse.report["simulation"]["frames"]},
                                          {"simulate_s", coarse.report["timings_s"].value("simulate", 0.0)}};
  return coarse;
}

// The stages of stages.hpp in order, for one resolution, then `after` (if any) on the cloth.
DrapeResult drape_with(const garments::Pattern& pattern, const avatars::Avatar& body, const stages::Shared& shared,
                       const DrapeOptions& o, const DrapeProgressCallback& progress,
                       const std::atomic<bool>* user_cancel, const stages::AfterDrape& after) {
  const auto t_start = Clock::now();
  std::optional<DrapeResult> coarse = coarse_start(pattern, body, shared, o, progress, user_cancel);
  bool coarse_used = false;
  if (coarse) {
    if (stopped(*coarse)) return stopped_in_coarse_start(std::move(*coarse), o);
    coarse_used = sewn_outside_the_body(*coarse);
    logger().info("coarse start: the drape at {} cm is {}{}", o.coarse_start_cm,
                  coarse->clean ? "clean" : "not clean (" + coarse->report["failures"].dump() + ")",
                  coarse_used ? "; the fine mesh starts from it" : "; the fine mesh is sewn itself");
  }
  stages::Run run(o, shared, progress, user_cancel);
  stages::Cloth cloth =
      stages::place(run, stages::mesh_garment(pattern, body, o), body, coarse_used ? &*coarse : nullptr);
  auto coarse_timing = [&](const char* key) { return coarse ? coarse->report["timings_s"].value(key, 0.0) : 0.0; };
  cloth.mesh_s = since(t_start) - coarse_timing("total") + coarse_timing("mesh");
  run.start(cloth.model.x, cloth.collision_s());
  const auto t_sim0 = Clock::now();
  stages::sew(run, cloth, pattern, body);
  stages::untangle(run, cloth);
  stages::sew_again_untangled(run, cloth, pattern, body);
  stages::settle(run, cloth);
  cloth.simulate_s = since(t_sim0);
  DrapeResult result = stages::judge(run, cloth, pattern, body, coarse, t_start);
  if (after) after(run, cloth, result);
  return result;
}

}  // namespace

DrapeResult drape(const garments::Pattern& pattern, const avatars::Avatar& body, const DrapeOptions& o,
                  const DrapeProgressCallback& progress, const std::atomic<bool>* user_cancel) {
  return stages::drape_then(pattern, body, o, progress, user_cancel, {});
}

DrapeResult stages::drape_then(const garments::Pattern& pattern, const avatars::Avatar& body, const DrapeOptions& o,
                               const DrapeProgressCallback& progress, const std::atomic<bool>* user_cancel,
                               const AfterDrape& after) {
  // Everything that can be refused is checked before any work.
  check_options(o);
  const auto t_start = Clock::now();
  const stages::Shared shared{cloth::load_material(resolve_material(o.material)),
                              cloth::parse_integrator(o.integrator), avatars::find_landmarks(body.mesh), t_start};
  const double t_shared = since(t_start);
  DrapeResult result = drape_with(pattern, body, shared, o, progress, user_cancel, after);
  json& timings = result.report["timings_s"];
  timings["mesh"] = timings.value("mesh", 0.0) + t_shared;
  timings["total"] = timings.value("total", 0.0) + t_shared;
  return result;
}

json save_drape(const DrapeResult& result, const avatars::Avatar& body, const fs::path& outdir,
                const SaveOptions& o) {
  if (o.format != "obj" && o.format != "glb" && o.format != "both")
    throw InputError("unknown format '" + o.format + "' (use obj, glb or both)");
  const outputs::FitMap fit_map = outputs::parse_fit_map(o.fit_map);
  const auto t0 = Clock::now();
  const garments::GarmentMesh& garment = result.garment;
  const std::string& name = result.name;
  const bool clean = result.clean;
  fs::create_directories(outdir);
  TriMesh out{result.positions, garment.F, garment.rest};
  if (o.format != "obj") {
    outputs::GlbOptions go;
    go.body = o.with_body ? &body.mesh : nullptr;
    go.fit_maps = &result.fit_maps;
    const outputs::GlbPanels panels{garment.panel_of_triangle, garment.panel_names, garment.panel_labels,
                                    garment.seam_pairs, garment.stitch_of_pair};
    go.panels = &panels;
    go.extras_json = json{{"report", result.report}}.dump();
    outputs::write_glb(outdir / "garment.glb", out, garment.rest,
                       outputs::fit_map_colors(result.fit_maps,
                                               fit_map == outputs::FitMap::none ? outputs::FitMap::strain : fit_map),
                       go);
  }
  if (o.format != "glb")
    write_garment_obj(outdir / "garment.obj", garment, out.V, "tryon drape: '" + name + "' on '" + body.name + "'");
  if (o.preview) {
    outputs::PreviewOptions po;
    po.title = name + " ON " + body.name + (clean ? "" : " (NOT CLEAN)");
    po.legend_note = outputs::legend_range_note(result.fit_maps, fit_map);
    outputs::write_preview(outdir / "preview.png", body.mesh, out, outputs::fit_map_colors(result.fit_maps, fit_map),
                           fit_map, po);
  }
  json report = result.report;
  const double t_write = since(t0);
  report["timings_s"]["write"] = t_write;
  report["timings_s"]["total"] = report["timings_s"].value("total", 0.0) + t_write;
  write_file_atomic(outdir / "report.json", report.dump(2) + "\n");
  return report;
}

}  // namespace tryon
