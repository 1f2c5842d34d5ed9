// The motion: the drape on the motion's first frame (drape_then), then the follow stage, which
// moves the body frame by frame with the cloth following it, and the checker on every frame.
#include "tryon/animate.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/logger.hpp"
#include "outputs/glb.hpp"
#include "outputs/preview.hpp"
#include "tryon/follow_steps.hpp"
#include "tryon/stages.hpp"

namespace tryon {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using stages::Clock;
using stages::since;

// At most this many steps a frame: a motion faster than max_step_travel × this a frame is
// followed with longer steps (the report says how many were used).
constexpr int kMaxStepsPerFrame = 256;
// A frame is clean with at most this share of the garment's vertices in self intersections
// (the rule for motion: folds pressed together by a moving body touch for a frame).
constexpr double kSelfIntersectingShare = 0.001;

// Cloth this far from a body triangle at a frame's start can meet it in the frame: besides the
// cloth's own longest edge, its contact thickness and how far it moves in a frame.
constexpr double kFollowMargin = 0.02;

// Steps for frame k-1 → k: neither the fastest body triangle that can reach the cloth (at
// positions `cloth`, cloth edges up to `cloth_edge` long) nor the cloth itself, as fast as in
// the frame before (`cloth_travel`, m), moves more than max_step_travel_m a step.
int steps_for_frame(const avatars::BodyMotion& m, int k, const Points3& cloth, double cloth_edge,
                    double cloth_travel, const AnimateOptions& o) {
  const double body_travel =
      travel_near_cloth(m.frames[k - 1], m.frames[k], m.body.mesh.F, cloth, cloth_edge + kFollowMargin);
  const double travel = std::max(body_travel, cloth_travel);
  const int steps = static_cast<int>(std::ceil(travel / o.max_step_travel_m - 1e-9));
  return std::clamp(steps, std::max(1, o.drape.substeps), kMaxStepsPerFrame);
}

// The farthest a garment vertex moved between two frames (m).
double garment_travel(const Points3& from, const Points3& to) { return (to - from).rowwise().norm().maxCoeff(); }

// Vertices of the garment's cloth edges that pass through a cloth triangle: at most two an edge.
int self_intersecting_vertices(const quality::Quality& q) { return 2 * q.self_intersections; }

MotionFrameQuality judge_frame(const garments::GarmentMesh& g, const Points3& V, const Points3& previous,
                               const avatars::BodyMotion& motion, int k) {
  quality::Cloth cloth{V, g.F, g.rest, g.seam_pairs, previous, {}};  // frames are not grouped by panel
  MotionFrameQuality f;
  f.frame = k;
  f.time_s = k / motion.fps;
  f.quality = quality::check(cloth, TriMesh{motion.frames[k], motion.body.mesh.F, {}});
  f.self_intersecting_vertices = self_intersecting_vertices(f.quality);
  return f;
}

// Whether a frame is clean by the motion's rule: nothing in or through the body, at most
// kSelfIntersectingShare of the vertices in self intersections, seams closed. (A moving
// garment is not at rest: rest is not asked.)
bool frame_clean(const MotionFrameQuality& f, int vertices) {
  return f.quality.body_intersections == 0 && f.quality.vertices_inside_body == 0 &&
         f.self_intersecting_vertices <= kSelfIntersectingShare * vertices && f.quality.seam_gap_max_m < 1e-3;
}

// The follow stage's settings: the drape's, with the motion's frame length, nothing pinned or
// attached, never taken for rest. Its step is set frame by frame (follow_step).
cloth::SimulatorSettings follow_settings(const stages::Cloth& c, const avatars::BodyMotion& motion) {
  cloth::SimulatorSettings s = c.settings;
  s.frame_dt = 1.0 / motion.fps;
  s.zero_gravity_frames = 0;
  s.temporary_pins.clear();
  s.pin_frames = 0;
  s.attachments.clear();
  s.attachment_frames = 0;
  s.max_wall_seconds = 0;  // the run's own time limit applies (Run::on_motion_frame)
  return s;
}

// A frame of `steps` steps. A step's candidate counts as an explosion when it moves a particle
// as far as in the drape's steps: the strain limiting and the contact correct positions by as
// much in a short step as in a long one, and a speed limit (the correction over the step)
// stopped the follow where the body presses cloth together (CesiumMan's walk, the skirt at
// 3 cm: 2.2 cm a step, 945 m/s at the last retry, at frame 10; with this test, frame 71).
void follow_step(cloth::Simulator& sim, const cloth::SimulatorSettings& drape, int steps) {
  const double drape_dt = drape.dt > 0 ? drape.dt : drape.frame_dt / drape.implicit_substeps;
  const double dt = sim.settings().frame_dt / steps;
  sim.set_step(dt, drape.explode_speed * std::max(1.0, drape_dt / dt));
}

struct Followed {
  cloth::RunStatus status = cloth::RunStatus::frame_limit;  // frame_limit: every frame done
  std::string reason;
  int steps_per_frame_max = 0;  // as planned from the body's travel (rollbacks not counted)
  double simulate_s = 0, check_s = 0;
};

// follow: the cloth the drape left, on a body moving through the motion's frames; the garment's
// positions and the checker's verdict on every frame.
Followed follow(stages::Run& run, stages::Cloth& c, const DrapeResult& draped, const avatars::BodyMotion& motion,
                const AnimateOptions& o, AnimateResult& out) {
  Followed f;
  const int n = static_cast<int>(motion.frames.size());
  logger().info("motion: {} frames at {} fps", n, motion.fps);
  const double cloth_edge = longest_edge(draped.positions, draped.garment.F);
  c.contact->set_body_motion([&motion](double t) { return motion.at(t); });
  cloth::Simulator sim(std::move(c.model), follow_settings(c, motion));
  sim.set_contact(c.contact.get());
  auto t0 = Clock::now();
  out.frames.push_back(draped.positions);
  out.quality.push_back(judge_frame(draped.garment, draped.positions, draped.positions, motion, 0));
  f.check_s += since(t0);
  for (int k = 1; k < n; ++k) {
    if (run.cancel) {
      f.status = run.timed_out ? cloth::RunStatus::time_limit : cloth::RunStatus::cancelled;
      break;
    }
    t0 = Clock::now();
    const double cloth_travel = k >= 2 ? garment_travel(out.frames[k - 2], out.frames[k - 1]) : 0.0;
    const int steps = steps_for_frame(motion, k, sim.model().x, cloth_edge, cloth_travel, o);
    f.steps_per_frame_max = std::max(f.steps_per_frame_max, steps);
    follow_step(sim, c.settings, steps);
    cloth::FrameReport report;
    if (!sim.advance_frame(report, &f.reason)) {
      f.status = cloth::RunStatus::failed;
      logger().error("motion: {}", f.reason);
      break;
    }
    f.simulate_s += since(t0);
    t0 = Clock::now();
    out.frames.push_back(cloth::garment_positions(sim.model()));
    out.quality.push_back(judge_frame(draped.garment, out.frames.back(), out.frames[k - 1], motion, k));
    out.quality.back().steps = report.steps;
    f.check_s += since(t0);
    run.on_motion_frame(k, n - 1, report.moving_fraction);
  }
  c.model = sim.model();
  c.contact->set_body_motion({});
  return f;
}

json frame_json(const MotionFrameQuality& f) {
  json j = quality_json(f.quality);
  j.erase("moving_fraction");
  j["frame"] = f.frame;
  j["time_s"] = f.time_s;
  j["self_intersecting_vertices"] = f.self_intersecting_vertices;
  j["steps"] = f.steps;
  return j;
}

// The worst frame: the most cloth in or through the body, then the most self intersections,
// then the widest seam gap, then the largest strain.
std::size_t worst_frame(const std::vector<MotionFrameQuality>& frames) {
  auto key = [](const MotionFrameQuality& f) {
    return std::make_tuple(f.quality.body_intersections + f.quality.vertices_inside_body, f.quality.self_intersections,
                           f.quality.seam_gap_max_m, f.quality.strain_max.value_or(0.0));
  };
  std::size_t worst = 0;
  for (std::size_t k = 1; k < frames.size(); ++k)
    if (key(frames[k]) > key(frames[worst])) worst = k;
  return worst;
}

// Why the motion is not clean (empty: it is), in report.json's words.
json motion_failures(const Followed& f, const AnimateResult& r, int vertices, int frames_expected) {
  json fails = json::array();
  if (f.status == cloth::RunStatus::failed) fails.push_back("simulation_failed");
  if (f.status == cloth::RunStatus::cancelled) fails.push_back("cancelled");
  if (f.status == cloth::RunStatus::time_limit) fails.push_back("time_limit");
  if (static_cast<int>(r.frames.size()) < frames_expected && fails.empty()) fails.push_back("not_followed");
  auto any = [&](auto pred) { return std::any_of(r.quality.begin(), r.quality.end(), pred); };
  if (any([](const auto& q) { return q.quality.body_intersections > 0; })) fails.push_back("body_intersection");
  if (any([](const auto& q) { return q.quality.vertices_inside_body > 0; })) fails.push_back("vertices_inside_body");
  if (any([&](const auto& q) { return q.self_intersecting_vertices > kSelfIntersectingShare * vertices; }))
    fails.push_back("self_intersection");
  if (any([](const auto& q) { return !(q.quality.seam_gap_max_m < 1e-3); })) fails.push_back("seam_gap");
  return fails;
}

json motion_report(const Followed& f, const AnimateResult& r, const avatars::BodyMotion& motion, double total_s) {
  const int vertices = r.drape.garment.num_vertices();
  const json fails = motion_failures(f, r, vertices, static_cast<int>(motion.frames.size()));
  json frames = json::array();
  for (const auto& q : r.quality) frames.push_back(frame_json(q));
  const int followed = std::max(0, static_cast<int>(r.frames.size()) - 1);
  const auto clean_frames = std::count_if(r.quality.begin(), r.quality.end(),
                                          [&](const MotionFrameQuality& q) { return frame_clean(q, vertices); });
  json report = {{"status", fails.empty() ? "ok" : "failed"},
                 {"failures", fails},
                 {"pattern", r.drape.report.value("pattern", "")},
                 {"avatar", motion.body.name},
                 {"motion",
                  {{"source", motion.source},
                   {"fps", motion.fps},
                   {"frames", static_cast<int>(motion.frames.size())},
                   {"frames_written", static_cast<int>(r.frames.size())},
                   {"duration_s", motion.duration_s()},
                   {"frames_clean", clean_frames},
                   {"steps_per_frame", f.steps_per_frame_max},
                   {"status", f.status == cloth::RunStatus::frame_limit ? "completed" : cloth::run_status_name(f.status)},
                   {"reason", f.reason},
                   {"self_intersecting_share_max", kSelfIntersectingShare}}},
                 {"frames", frames},
                 {"drape", r.drape.report},
                 {"timings_s",
                  {{"drape", r.drape.report["timings_s"].value("total", 0.0)},
                   {"follow", f.simulate_s},
                   {"follow_per_frame", followed > 0 ? f.simulate_s / followed : 0.0},
                   {"check", f.check_s},
                   {"write", 0.0},
                   {"total", total_s}}}};
  if (!r.quality.empty()) report["worst_frame"] = frame_json(r.quality[worst_frame(r.quality)]);
  return report;
}

}  // namespace

AnimateResult animate(const garments::Pattern& pattern, const avatars::BodyMotion& motion, const AnimateOptions& o,
                      const DrapeProgressCallback& progress, const std::atomic<bool>* cancel) {
  if (motion.frames.empty()) throw InputError("the motion has no frames");
  if (!(o.max_step_travel_m > 0)) throw InputError("max_step_travel_m must be positive");
  const auto t_start = Clock::now();
  AnimateResult out;
  Followed followed;
  bool ran = false;
  out.drape = stages::drape_then(pattern, motion.body, o.drape, progress, cancel,
                                 [&](stages::Run& run, stages::Cloth& c, const DrapeResult& draped) {
                                   followed = follow(run, c, draped, motion, o, out);
                                   ran = true;
                                 });
  if (!ran) {  // stopped in the coarse start: nothing followed
    followed.status = cloth::RunStatus::cancelled;
    followed.reason = "stopped before the drape ended";
  }
  out.report = motion_report(followed, out, motion, since(t_start));
  out.clean = out.report["failures"].empty();
  return out;
}

json save_animation(const AnimateResult& r, const avatars::BodyMotion& motion, const fs::path& outdir,
                    const SaveOptions& o, int preview_every) {
  if (r.frames.empty()) throw InputError("nothing to write: the motion has no frames");
  const auto t0 = Clock::now();
  fs::create_directories(outdir);
  const garments::GarmentMesh& g = r.drape.garment;
  outputs::GlbMotion gm;
  gm.frames = r.frames;
  gm.fps = motion.fps;
  if (o.with_body) gm.body_frames.assign(motion.frames.begin(), motion.frames.begin() + r.frames.size());
  outputs::GlbOptions go;
  go.body = o.with_body ? &motion.body.mesh : nullptr;
  go.fit_maps = &r.drape.fit_maps;
  const outputs::GlbPanels panels{g.panel_of_triangle, g.panel_names, g.panel_labels, g.seam_pairs, g.stitch_of_pair};
  go.panels = &panels;
  go.motion = &gm;
  go.extras_json = json{{"report", r.report}}.dump();
  const TriMesh garment{r.frames.front(), g.F, g.rest};
  outputs::write_glb(outdir / "garment.glb", garment, g.rest,
                     outputs::fit_map_colors(r.drape.fit_maps, outputs::FitMap::strain), go);
  if (preview_every > 0)
    for (std::size_t k = 0; k < r.frames.size(); k += preview_every) {
      outputs::PreviewOptions po;
      char name[48];
      std::snprintf(name, sizeof name, "preview_%04zu.png", k);
      po.title = r.drape.name + " ON " + motion.body.name + " FRAME " + std::to_string(k);
      const TriMesh body{motion.frames[k], motion.body.mesh.F, {}};
      outputs::write_preview(outdir / name, body, TriMesh{r.frames[k], g.F, g.rest}, {}, outputs::FitMap::none, po);
    }
  json report = r.report;
  report["timings_s"]["write"] = since(t0);
  report["timings_s"]["total"] = report["timings_s"].value("total", 0.0) + since(t0);
  write_file_atomic(outdir / "report.json", report.dump(2) + "\n");
  return report;
}

}  // namespace tryon
