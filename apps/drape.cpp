// `tryon drape PATTERN --avatar BODY -o OUTDIR`: sews and drapes a garment on a body and
// writes OUTDIR/garment.obj and OUTDIR/report.json (the schema of docs/report.md).
//
// SIGINT / SIGTERM stop the drape at the next frame; nothing is written (the outputs are written
// only after the drape, each whole under a temporary name, report.json last), and the exit code is
// 128 + the signal (130 / 143), as a shell reports a process ended by it. A second signal ends
// the process at once (the handler is reset after the first). A signal that comes once the
// writing has begun lets it finish: the outputs are then whole, and the exit code is the drape's.
#include <chrono>
#include <cstdio>

#include "apps/commands.hpp"
#include "apps/drape_common.hpp"
#include "apps/options.hpp"
#include "core/error.hpp"
#include "core/logger.hpp"
#include "core/parallel.hpp"
#include "core/progress.hpp"
#include "outputs/fit_maps.hpp"

namespace tryon::apps {
namespace {

using Clock = std::chrono::steady_clock;

// What to write; throws InputError for an unknown fit map before anything is draped.
SaveOptions save_options(const DrapeCommand& o) {
  SaveOptions save;
  save.format = o.format;
  save.preview = o.preview;
  save.fit_map = o.fit_map;
  save.with_body = o.with_body;
  outputs::parse_fit_map(o.fit_map);
  return save;
}

// "NAME: clean in 9.8 s (214 frames); body 0, inside 0, ..." on stdout.
void print_drape_summary(const std::string& name, const DrapeResult& result, double seconds) {
  const quality::Quality& q = result.quality;
  std::printf("%s: %s in %.1f s (%d frames); body %d, inside %d, self %d, seam gap %.2f mm, strain max %.1f %%\n",
              name.c_str(), result.clean ? "clean" : "NOT clean", seconds,
              result.report["simulation"]["frames"].get<int>(), q.body_intersections, q.vertices_inside_body,
              q.self_intersections, q.seam_gap_max_m * 1000, 100 * q.strain_max.value_or(0));
}

int run_drape(const DrapeCommand& o) {
  const auto t_start = Clock::now();
  if (o.threads > 0) set_num_threads(o.threads);
  if (o.quiet) logger().set_level(spdlog::level::err);
  const StopSignals signals;
  auto interrupted = [&](const char* when) {
    logger().error("drape interrupted by {} {}; nothing written to '{}'", signals.name(), when, o.outdir);
    return signals.exit_code();
  };

  // Everything that can be refused is checked before any output is written.
  avatars::AvatarOptions aopt;
  aopt.up = parse_up_axis(o.up);
  aopt.detect_facing = o.facing == "auto";
  const avatars::Avatar body = avatars::load_avatar(o.avatar, aopt);
  const garments::LoadedPattern loaded = load_sewable_pattern(o, body);
  const garments::Pattern& pattern = loaded.pattern;
  const SaveOptions save = save_options(o);
  const double t_load = since(t_start);
  if (signals.stopped()) return interrupted("while loading");

  ProgressBar bar("drape " + pattern.name, o.max_frames, !o.quiet);
  DrapeResult result;
  try {
    result = drape(pattern, body, drape_options(o), [&](const DrapeProgress& p) {
      char status[128];
      std::snprintf(status, sizeof status, "%s, frame %d, moving %.1f %%", p.phase.c_str(), p.frame,
                    100 * p.moving_fraction);
      bar.update(p.frame, status);
    }, &stop_requested());
  } catch (const InputError& e) {  // name the files: the library knows the pattern by its name only
    throw InputError("drape of '" + o.pattern + "' on '" + o.avatar + "': " + e.what());
  }
  if (signals.stopped()) {
    bar.finish("interrupted");
    return interrupted("during the drape");
  }
  bar.finish(result.report["run"]["status"].get<std::string>() + " after " +
             std::to_string(result.report["simulation"]["frames"].get<int>()) + " frames");
  result.report["pattern"] = o.pattern;
  result.report["avatar"] = o.avatar;
  result.report["timings_s"]["load"] = t_load;
  result.report["timings_s"]["total"] = result.report["timings_s"]["total"].get<double>() + t_load;
  save_drape(result, body, o.outdir, save);
  if (!o.quiet) print_drape_summary(pattern.name, result, since(t_start));
  return result.clean ? kExitOk : kExitNotClean;
}

}  // namespace

void add_drape_command(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<DrapeCommand>();
  CLI::App* cmd = app.add_subcommand("drape", "sew and drape a garment on a body (exit 0 clean, 1 not clean, 2 bad input)");
  cmd->add_option("pattern", o->pattern, "GarmentCode specification JSON or DXF-AAMA / ASTM D6673 file")->required();
  cmd->add_option("--avatar", o->avatar, "body mesh")->required();
  cmd->add_option("-o,--output", o->outdir, "output folder (garment.obj, report.json)")->required();
  add_drape_options(*cmd, *o);
  cmd->add_flag("--preview", o->preview, "also write preview.png (front, side, back, legend)");
  cmd->add_option("--fit-map", o->fit_map, "garment colouring of the preview and the GLB: strain, distance or none")
      ->check(CLI::IsMember({"strain", "distance", "none"}));
  cmd->add_option("--format", o->format, "garment file: obj, glb (panels, seams, fit maps, report; what tryon view shows) or both")
      ->check(CLI::IsMember({"obj", "glb", "both"}));
  cmd->add_flag("--with-body", o->with_body, "glb: include the body as a second mesh");
  cmd->callback([o, &run] { run = [o] { return run_drape(*o); }; });
}

}  // namespace tryon::apps
