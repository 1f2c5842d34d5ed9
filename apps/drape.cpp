// `tryon drape PATTERN --avatar BODY -o OUTDIR`: sews and drapes a garment on a body and
// writes OUTDIR/garment.obj and OUTDIR/report.json (DESIGN.md's schema).
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "apps/report.hpp"
#include "avatars/avatar.hpp"
#include "cloth/cloth_model.hpp"
#include "cloth/contact.hpp"
#include "cloth/simulator.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/logger.hpp"
#include "core/mesh_io.hpp"
#include "core/parallel.hpp"
#include "core/progress.hpp"
#include "garments/garment_builder.hpp"
#include "garments/garmentcode_reader.hpp"
#include "outputs/fit_maps.hpp"
#include "outputs/glb.hpp"
#include "outputs/preview.hpp"
#include "quality/quality.hpp"

namespace tryon::apps {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

struct DrapeCommand {
  std::string pattern, avatar, outdir, material = "cotton_jersey", integrator = "implicit_euler", up = "y";
  double resolution_cm = 1.0;
  int threads = 0;
  int max_frames = 600;
  double time_limit_s = 0;
  bool self_collision = true;
  bool contact = true;
  std::string seams = "sew";
  bool preview = false;
  std::string fit_map = "strain", format = "obj";
  bool with_body = false;
  bool quiet = false;
};

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int run_drape(const DrapeCommand& o) {
  const auto t_start = Clock::now();
  if (o.threads > 0) set_num_threads(o.threads);
  if (o.quiet) logger().set_level(spdlog::level::err);

  // Everything that can be refused is checked before any output is written.
  const garments::Pattern pattern = garments::read_garmentcode(o.pattern);
  avatars::AvatarOptions aopt;
  aopt.up = parse_up_axis(o.up);
  const avatars::Avatar body = avatars::load_avatar(o.avatar, aopt);
  const cloth::Material material = cloth::load_material(o.material);
  const cloth::IntegratorKind integrator = cloth::parse_integrator(o.integrator);
  const outputs::FitMap fit_map = outputs::parse_fit_map(o.fit_map);
  const double t_load = since(t_start);

  const auto t_mesh0 = Clock::now();
  garments::BuildOptions bopt;
  bopt.resolution_m = o.resolution_cm / 100.0;
  bopt.body_height_m = body.height_m;
  const garments::GarmentBuild build = garments::build_garment(pattern, bopt);
  for (const auto& w : build.warnings) logger().warn("{}", w);
  const garments::GarmentMesh& garment = build.mesh;
  // Seams: "sew" keeps the panels apart and pulls the seam pairs together while the body
  // holds the cloth out (the start is then free of intersections); "merge" joins them at
  // once at their mean position, as GarmentCode does.
  cloth::ModelOptions mopt;
  mopt.merge_seams = o.seams == "merge";
  cloth::ClothModel model = cloth::build_cloth_model(garment, material, mopt);
  Segments seam_particles(mopt.merge_seams ? 0 : garment.seam_pairs.rows(), 2);
  for (Eigen::Index i = 0; i < seam_particles.rows(); ++i)
    seam_particles.row(i) << model.particle_of_vertex[garment.seam_pairs(i, 0)],
        model.particle_of_vertex[garment.seam_pairs(i, 1)];

  if (seam_particles.rows() > 0) {
    // Sewing springs as stiff as the fabric's stretch springs on average.
    const double k = model.springs.stiffness.head(model.springs.num_stretch).mean();
    cloth::add_sewing_springs(model, seam_particles, k);
  }

  cloth::ContactSettings csettings;
  csettings.friction = material.friction;
  csettings.self_collision = o.self_collision;
  cloth::Contact contact(body.mesh, model, csettings, seam_particles);
  const int pushed = contact.push_out(model);
  if (pushed > 0) logger().info("{} cloth vertices started inside or against the body and were pushed out", pushed);
  const double t_mesh = since(t_mesh0);

  cloth::SimulatorSettings ssettings;
  ssettings.integrator = integrator;
  ssettings.temporary_pins =
      cloth::labelled_particles(model, garment, {"lower_interface", "left_collar", "right_collar", "strapless_top"});
  ssettings.pin_frames = ssettings.temporary_pins.empty() ? 0 : 90;
  ssettings.seam_close_speed = 0.5;
  ssettings.zero_gravity_frames = mopt.merge_seams ? 60 : 0;

  ProgressBar bar("drape " + pattern.name, o.max_frames, !o.quiet);
  std::atomic<bool> cancel{false};
  Points3 previous = model.x, current = model.x;
  int frames_done = 0;
  auto on_frame = [&](const cloth::FrameReport& f, const char* phase, const Points3& x) {
    previous = current;
    current = x;
    char status[128];
    std::snprintf(status, sizeof status, "%s, frame %d, moving %.1f %%", phase, frames_done + f.frame,
                  100 * f.moving_fraction);
    bar.update(frames_done + f.frame, status);
    if (o.time_limit_s > 0 && since(t_start) > o.time_limit_s) cancel = true;
  };
  const auto t_sim0 = Clock::now();
  cloth::RunResult run, sewing_run;
  // Phase 1, sewing: no gravity and no self-collision (the panels' edges must meet), until
  // every seam pair is closed or the sewing budget is spent.
  if (!mopt.merge_seams && seam_particles.rows() > 0) {
    cloth::SimulatorSettings sewing = ssettings;
    sewing.gravity = Vec3::Zero();
    sewing.min_frames = 1000000;  // never "static": sewing ends when the seams are closed
    contact.set_self_collision(false);
    contact.set_friction(0.0);
    cloth::Simulator sew(std::move(model), sewing);
    if (o.contact) sew.set_contact(&contact);
    std::atomic<bool> sewn{false};
    const int sew_frames = std::min(o.max_frames / 2, 240);
    sewing_run = sew.run(sew_frames, [&](const cloth::FrameReport& f) {
      on_frame(f, "sewing", sew.model().x);
      if (contact.closed_seam_pairs() == contact.num_seam_pairs() || cancel) sewn = true;
    }, &sewn);
    frames_done = sewing_run.frames;
    model = sew.model();
    model.v.setZero();
    logger().info("sewing: {} of {} seam pairs closed after {} frames, gap {:.1f} mm", contact.closed_seam_pairs(),
                  contact.num_seam_pairs(), sewing_run.frames, 1000 * contact.seam_gap(model.x));
    // Name the seams still open: a pattern maker can see which ones did not close.
    std::vector<double> open_gap(pattern.stitches.size(), 0.0);
    for (Eigen::Index i = 0; i < seam_particles.rows(); ++i)
      open_gap[garment.stitch_of_pair[i]] = std::max(
          open_gap[garment.stitch_of_pair[i]], (model.x.row(seam_particles(i, 0)) - model.x.row(seam_particles(i, 1))).norm());
    for (std::size_t st = 0; st < open_gap.size(); ++st)
      if (open_gap[st] >= csettings.sew_distance)
        logger().info("seam {} ({} edge {} to {} edge {}) still open by {:.1f} mm", st,
                      pattern.panels[pattern.stitches[st].a.panel].name, pattern.stitches[st].a.edge,
                      pattern.panels[pattern.stitches[st].b.panel].name, pattern.stitches[st].b.edge, 1000 * open_gap[st]);
    contact.set_self_collision(o.self_collision);
    contact.set_friction(material.friction);
  }
  // Phase 2, drape: gravity, self-collision, until static or the frame limit.
  cloth::Simulator sim(std::move(model), ssettings);
  if (o.contact) sim.set_contact(&contact);
  run = sim.run(std::max(1, o.max_frames - frames_done), [&](const cloth::FrameReport& f) {
    on_frame(f, "drape", sim.model().x);
  }, &cancel);
  run.frames += frames_done;
  run.steps += sewing_run.steps;
  run.sim_time += sewing_run.sim_time;
  const double t_sim = since(t_sim0);
  bar.finish(cloth::run_status_name(run.status) + " after " + std::to_string(run.frames) + " frames");

  // Judge the result with the checker, which knows nothing of the simulator.
  const auto t_write0 = Clock::now();
  const cloth::ClothModel& m = sim.model();
  quality::Cloth result;
  result.V = cloth::garment_positions(m);
  result.F = garment.F;
  result.rest = garment.rest;
  result.seam_pairs = garment.seam_pairs;
  {
    Points3 prev(garment.num_vertices(), 3);
    for (int v = 0; v < garment.num_vertices(); ++v) prev.row(v) = previous.row(m.particle_of_vertex[v]);
    result.previous = prev;
  }
  if (!result.V.allFinite()) throw std::runtime_error("the simulation produced non-finite positions");
  const quality::Quality q = quality::check(result, body.mesh);

  json failures = json::array();
  if (run.status == cloth::RunStatus::failed) failures.push_back("simulation_failed");
  if (q.body_intersections > 0) failures.push_back("body_intersection");
  if (q.vertices_inside_body > 0) failures.push_back("vertices_inside_body");
  if (q.self_intersections > 0) failures.push_back("self_intersection");
  if (!(q.seam_gap_max_m < 1e-3)) failures.push_back("seam_gap");
  if (!q.is_static.value_or(false)) failures.push_back("not_static");
  const bool clean = failures.empty();

  fs::create_directories(o.outdir);
  TriMesh out;
  out.V = result.V;
  out.F = garment.F;
  out.UV = garment.rest;
  const outputs::FitMaps maps = outputs::compute_fit_maps(out.V, out.F, garment.rest, body.mesh);
  if (o.format == "glb") {
    outputs::GlbOptions go;
    go.body = o.with_body ? &body.mesh : nullptr;
    go.fit_maps = &maps;
    outputs::write_glb(fs::path(o.outdir) / "garment.glb", out, garment.rest,
                       outputs::fit_map_colors(maps, fit_map == outputs::FitMap::none ? outputs::FitMap::strain : fit_map), go);
  } else {
    write_garment_obj(fs::path(o.outdir) / "garment.obj", garment, out.V,
                      "tryon drape: '" + pattern.name + "' on '" + body.name + "'");
  }
  if (o.preview) {
    outputs::PreviewOptions po;
    po.title = pattern.name + " ON " + body.name + (clean ? "" : " (NOT CLEAN)");
    po.legend_note = outputs::legend_range_note(maps, fit_map);
    outputs::write_preview(fs::path(o.outdir) / "preview.png", body.mesh, out, outputs::fit_map_colors(maps, fit_map),
                           fit_map, po);
  }
  const double t_write = since(t_write0);

  json report = {
      {"status", clean ? "ok" : "failed"},
      {"failures", failures},
      {"pattern", o.pattern},
      {"avatar", o.avatar},
      {"mesh", {{"vertices", garment.num_vertices()}, {"triangles", garment.num_triangles()},
                {"panels", static_cast<int>(pattern.panels.size())}, {"stitches", static_cast<int>(pattern.stitches.size())}}},
      {"simulation", {{"integrator", cloth::integrator_name(integrator)}, {"dt_s", run.dt}, {"steps", run.steps},
                      {"frames", run.frames}, {"sim_time_s", run.sim_time}, {"static", q.is_static.value_or(false)}}},
      {"timings_s", {{"load", t_load}, {"mesh", t_mesh}, {"simulate", t_sim}, {"collision", contact.stats().seconds},
                     {"write", t_write}, {"total", since(t_start)}}},
      {"quality", quality_json(q)}};
  report["material"] = material.name;
  auto range = [](const Eigen::VectorXd& v) {
    const outputs::Range r = outputs::range_of(v);
    return nlohmann::json{{"min", std::isfinite(r.min) ? json(r.min) : json(nullptr)},
                          {"max", std::isfinite(r.max) ? json(r.max) : json(nullptr)}};
  };
  report["fit_maps"] = {{"strain", range(maps.strain)}, {"distance_m", range(maps.distance_m)}};
  report["run"] = {{"status", cloth::run_status_name(run.status)}, {"reason", run.reason}, {"rollbacks", run.rollbacks},
                   {"pushed_out", pushed}, {"body_contacts", contact.stats().body_contacts},
                   {"self_contacts", contact.stats().self_contacts}, {"failsafe_reverts", contact.stats().failsafe_reverts}};
  write_file_atomic(fs::path(o.outdir) / "report.json", report.dump(2) + "\n");
  if (!o.quiet)
    std::printf("%s: %s in %.1f s (%d frames); body %d, inside %d, self %d, seam gap %.2f mm, strain max %.1f %%\n",
                pattern.name.c_str(), clean ? "clean" : "NOT clean", since(t_start), run.frames, q.body_intersections,
                q.vertices_inside_body, q.self_intersections, q.seam_gap_max_m * 1000, 100 * q.strain_max.value_or(0));
  return clean ? kExitOk : kExitNotClean;
}

}  // namespace

void add_drape_command(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<DrapeCommand>();
  CLI::App* cmd = app.add_subcommand("drape", "sew and drape a garment on a body (exit 0 clean, 1 not clean, 2 bad input)");
  cmd->add_option("pattern", o->pattern, "GarmentCode specification JSON")->required();
  cmd->add_option("--avatar", o->avatar, "body mesh")->required();
  cmd->add_option("-o,--output", o->outdir, "output folder (garment.obj, report.json)")->required();
  cmd->add_option("--material", o->material, "preset name (see cloth/materials.json) or a JSON file");
  cmd->add_option("--integrator", o->integrator, "implicit_euler (default) or explicit_euler");
  cmd->add_option("--threads", o->threads, "threads (default: all cores)")->check(CLI::Range(0, 1024));
  cmd->add_option("--resolution-cm", o->resolution_cm, "target triangle edge length in cm")->check(CLI::Range(0.2, 50.0));
  cmd->add_option("--max-frames", o->max_frames, "frame limit (1/60 s each)")->check(CLI::Range(1, 100000));
  cmd->add_option("--time-limit", o->time_limit_s, "wall-clock limit in seconds (0: none)")->check(CLI::Range(0.0, 1e7));
  cmd->add_flag("!--no-self-collision", o->self_collision, "skip cloth self-collision");
  cmd->add_option("--seams", o->seams, "sew (pull seams shut around the body, default) or merge (join at once)")
      ->check(CLI::IsMember({"sew", "merge"}));
  cmd->add_flag("!--no-contact", o->contact, "no body or self contact at all (diagnostics: the cloth alone)");
  cmd->add_flag("--preview", o->preview, "also write preview.png (front, side, back, legend)");
  cmd->add_option("--fit-map", o->fit_map, "garment colouring of the preview and the GLB: strain (default), distance, none")
      ->check(CLI::IsMember({"strain", "distance", "none"}));
  cmd->add_option("--format", o->format, "garment file: obj (default) or glb (normals, UVs, COLOR_0 fit map)")
      ->check(CLI::IsMember({"obj", "glb"}));
  cmd->add_flag("--with-body", o->with_body, "glb: include the body as a second mesh");
  cmd->add_flag("--quiet", o->quiet, "no progress bar or summary");
  add_up_option(*cmd, o->up);
  cmd->callback([o, &run] { run = [o] { return run_drape(*o); }; });
}

}  // namespace tryon::apps
