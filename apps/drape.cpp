// `tryon drape PATTERN --avatar BODY -o OUTDIR`: sews and drapes a garment on a body and
// writes OUTDIR/garment.obj and OUTDIR/report.json (the schema of docs/report.md).
//
// SIGINT / SIGTERM stop the drape at the next frame; nothing is written (the outputs are written
// only after the drape, each whole under a temporary name, report.json last), and the exit code is
// 128 + the signal (130 / 143), as a shell reports a process ended by it. A second signal ends
// the process at once (the handler is reset after the first). A signal that comes once the
// writing has begun lets it finish: the outputs are then whole, and the exit code is the drape's.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "avatars/avatar.hpp"
#include "core/error.hpp"
#include "core/logger.hpp"
#include "core/parallel.hpp"
#include "core/progress.hpp"
#include "garments/pattern_loader.hpp"
#include "garments/validate.hpp"
#include "outputs/fit_maps.hpp"
#include "tryon/drape.hpp"

namespace tryon::apps {
namespace {

using Clock = std::chrono::steady_clock;

struct DrapeCommand {
  std::string size, seam_file;  // DXF: graded size, seam file
  std::string pattern, avatar, outdir, material = "cotton_jersey", integrator = "implicit_euler", up = "auto", facing = "auto";
  double resolution_cm = 1.0;
  int threads = 0;
  int max_frames = 600;
  int substeps = 2;
  double time_limit_s = 0;
  bool self_collision = true;
  bool contact = true;
  std::string seams = "sew";
  double body_inset_cm = 0;
  double coarse_start_cm = DrapeOptions{}.coarse_start_cm;
  bool preview = false;
  std::string fit_map = "strain", format = "obj";
  bool with_body = false;
  bool quiet = false;
};

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Set by the signal handler (a lock-free atomic store is async-signal-safe); drape() polls it once a frame.
std::atomic<bool> g_cancel{false};
volatile std::sig_atomic_t g_signal = 0;
static_assert(std::atomic<bool>::is_always_lock_free);
extern "C" void on_drape_stop_signal(int sig) {
  g_signal = sig;
  g_cancel.store(true);
}

/// Installs the SIGINT / SIGTERM handler for its lifetime (one-shot: a second signal kills).
class StopSignals {
 public:
  StopSignals() {
    struct sigaction act {};
    act.sa_handler = on_drape_stop_signal;
    act.sa_flags = SA_RESETHAND;
    sigemptyset(&act.sa_mask);
    ::sigaction(SIGINT, &act, &old_int_);
    ::sigaction(SIGTERM, &act, &old_term_);
  }
  ~StopSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  bool stopped() const { return g_cancel.load(); }
  /// 128 + the signal, as a shell reports it (130 for SIGINT, 143 for SIGTERM).
  int exit_code() const { return 128 + static_cast<int>(g_signal); }
  std::string name() const { return g_signal == SIGINT ? "SIGINT" : g_signal == SIGTERM ? "SIGTERM" : "a signal"; }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// The pattern, arranged around the body when it is a DXF, and checked: throws InputError naming
// the file and every error when it cannot be sewn.
garments::LoadedPattern load_sewable_pattern(const DrapeCommand& o, const avatars::Avatar& body) {
  garments::PatternOptions popt;
  popt.size = o.size;
  popt.seams = o.seam_file;
  popt.body = &body.mesh;
  garments::LoadedPattern loaded = garments::load_pattern(o.pattern, popt);
  for (const auto& note : loaded.notes) logger().info("{}", note);
  if (const garments::Diagnostics diag = garments::validate_pattern(loaded.pattern); !diag.ok()) {
    std::string msg = "pattern '" + o.pattern + "' cannot be sewn:";
    for (const auto& e : diag.errors) msg += "\n  - " + e;
    throw InputError(msg);
  }
  return loaded;
}

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

DrapeOptions drape_options(const DrapeCommand& o) {
  DrapeOptions d;
  d.material = o.material;
  d.integrator = o.integrator;
  d.resolution_cm = o.resolution_cm;
  d.max_frames = o.max_frames;
  d.substeps = o.substeps;
  d.time_limit_s = o.time_limit_s;
  d.self_collision = o.self_collision;
  d.contact = o.contact;
  d.seams = o.seams;
  d.body_inset_m = o.body_inset_cm / 100.0;
  d.coarse_start_cm = o.coarse_start_cm;
  return d;
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
    }, &g_cancel);
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
  cmd->add_option("--size", o->size, "DXF: graded size (default: the sample size)");
  cmd->add_option("--seam-file", o->seam_file, "DXF: seam file (default: NAME.seams.json beside the DXF, else the matcher's proposal)");
  cmd->add_option("--avatar", o->avatar, "body mesh")->required();
  cmd->add_option("-o,--output", o->outdir, "output folder (garment.obj, report.json)")->required();
  cmd->add_option("--material", o->material, "preset name (see cloth/materials.json) or a JSON file");
  cmd->add_option("--integrator", o->integrator, "implicit_euler or explicit_euler");
  cmd->add_option("--threads", o->threads, "threads (0: all cores)")->check(CLI::Range(0, 1024));
  cmd->add_option("--resolution-cm", o->resolution_cm, "target triangle edge length in cm")->check(CLI::Range(0.2, 50.0));
  cmd->add_option("--max-frames", o->max_frames, "frame limit (1/60 s each)")->check(CLI::Range(1, 100000));
  cmd->add_option("--substeps", o->substeps, "implicit Euler steps per frame (more: stiffer contact, slower)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--time-limit", o->time_limit_s, "wall-clock limit in seconds (0: none)")->check(CLI::Range(0.0, 1e7));
  // Callbacks rather than "!" flags, which --help would show as "--no-contact{false}".
  cmd->add_flag_callback("--no-self-collision", [o] { o->self_collision = false; }, "skip cloth self-collision");
  cmd->add_option("--seams", o->seams, "sew (pull seams shut around the body) or merge (join at once)")
      ->check(CLI::IsMember({"sew", "merge"}));
  cmd->add_option("--body-inset-cm", o->body_inset_cm,
                  "sew around a body this much slimmer (limbs at most 40 % thinner) that grows back once sewn")
      ->check(CLI::Range(0.0, 10.0));
  cmd->add_option(
         "--coarse-start-cm", o->coarse_start_cm,
         "sew and drape at this resolution first when --resolution-cm is at least 1.5x finer, and drape "
         "the fine mesh on from there (0: off)")
      ->check(CLI::Range(0.0, 50.0));
  cmd->add_flag_callback("--no-contact", [o] { o->contact = false; },
                         "no body or self contact at all (diagnostics: the cloth alone)");
  cmd->add_flag("--preview", o->preview, "also write preview.png (front, side, back, legend)");
  cmd->add_option("--fit-map", o->fit_map, "garment colouring of the preview and the GLB: strain, distance or none")
      ->check(CLI::IsMember({"strain", "distance", "none"}));
  cmd->add_option("--format", o->format, "garment file: obj, glb (panels, seams, fit maps, report; what tryon view shows) or both")
      ->check(CLI::IsMember({"obj", "glb", "both"}));
  cmd->add_flag("--with-body", o->with_body, "glb: include the body as a second mesh");
  cmd->add_flag("--quiet", o->quiet, "no progress bar or summary");
  add_frame_options(*cmd, o->up, o->facing);
  cmd->callback([o, &run] { run = [o] { return run_drape(*o); }; });
}

}  // namespace tryon::apps
