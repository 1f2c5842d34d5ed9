#include "apps/drape_common.hpp"

#include "apps/options.hpp"
#include "core/error.hpp"
#include "core/logger.hpp"
#include "garments/validate.hpp"

namespace tryon::apps {

namespace {

// Set by the signal handler (a lock-free atomic store is async-signal-safe); the drape polls it once a frame.
std::atomic<bool> g_cancel{false};
volatile std::sig_atomic_t g_signal = 0;
static_assert(std::atomic<bool>::is_always_lock_free);
extern "C" void on_drape_stop_signal(int sig) {
  g_signal = sig;
  g_cancel.store(true);
}

}  // namespace

std::atomic<bool>& stop_requested() { return g_cancel; }

StopSignals::StopSignals() {
  struct sigaction act {};
  act.sa_handler = on_drape_stop_signal;
  act.sa_flags = SA_RESETHAND;
  sigemptyset(&act.sa_mask);
  ::sigaction(SIGINT, &act, &old_int_);
  ::sigaction(SIGTERM, &act, &old_term_);
}

StopSignals::~StopSignals() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
}

bool StopSignals::stopped() const { return g_cancel.load(); }
int StopSignals::exit_code() const { return 128 + static_cast<int>(g_signal); }
std::string StopSignals::name() const {
  return g_signal == SIGINT ? "SIGINT" : g_signal == SIGTERM ? "SIGTERM" : "a signal";
}

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

void add_drape_options(CLI::App& cmd, DrapeCommand& o) {
  cmd.add_option("--size", o.size, "DXF: graded size (default: the sample size)");
  cmd.add_option("--seam-file", o.seam_file, "DXF: seam file (default: NAME.seams.json beside the DXF, else the matcher's proposal)");
  cmd.add_option("--material", o.material, "preset name (see cloth/materials.json) or a JSON file");
  cmd.add_option("--integrator", o.integrator, "implicit_euler or explicit_euler");
  cmd.add_option("--threads", o.threads, "threads (0: all cores)")->check(CLI::Range(0, 1024));
  cmd.add_option("--resolution-cm", o.resolution_cm, "target triangle edge length in cm")->check(CLI::Range(0.2, 50.0));
  cmd.add_option("--max-frames", o.max_frames, "frame limit of the drape (1/60 s each)")->check(CLI::Range(1, 100000));
  cmd.add_option("--substeps", o.substeps, "implicit Euler steps per frame (more: stiffer contact, slower)")
      ->check(CLI::Range(1, 64));
  cmd.add_option("--time-limit", o.time_limit_s, "wall-clock limit in seconds (0: none)")->check(CLI::Range(0.0, 1e7));
  // Callbacks rather than "!" flags, which --help would show as "--no-contact{false}".
  cmd.add_flag_callback("--no-self-collision", [&o] { o.self_collision = false; }, "skip cloth self-collision");
  cmd.add_option("--seams", o.seams, "sew (pull seams shut around the body) or merge (join at once)")
      ->check(CLI::IsMember({"sew", "merge"}));
  cmd.add_option("--body-inset-cm", o.body_inset_cm,
                 "sew around a body this much slimmer (limbs at most 40 % thinner) that grows back once sewn")
      ->check(CLI::Range(0.0, 10.0));
  cmd.add_option("--coarse-start-cm", o.coarse_start_cm,
                 "sew and drape at this resolution first when --resolution-cm is at least 1.5x finer, and drape "
                 "the fine mesh on from there (0: off)")
      ->check(CLI::Range(0.0, 50.0));
  cmd.add_flag_callback("--no-contact", [&o] { o.contact = false; },
                        "no body or self contact at all (diagnostics: the cloth alone)");
  cmd.add_flag("--quiet", o.quiet, "no progress bar or summary");
  add_frame_options(cmd, o.up, o.facing);
}

}  // namespace tryon::apps
