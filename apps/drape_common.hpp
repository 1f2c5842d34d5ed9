#pragma once
// What `drape` and `animate` share: the drape's options on the command line, the stop signals
// (SIGINT / SIGTERM), the pattern loaded and checked.
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <signal.h>
#include <string>

#include "avatars/avatar.hpp"
#include "garments/pattern_loader.hpp"
#include "tryon/drape.hpp"

namespace tryon::apps {

/// A drape's options as given on the command line.
struct DrapeCommand {
  std::string size, seam_file;  // DXF: graded size, seam file
  std::string pattern, avatar, outdir, material = "cotton_jersey", integrator = "implicit_euler", up = "auto", facing = "auto";
  double resolution_cm = 1.0;
  int threads = 0;
  int max_frames = 1200;
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

/// Seconds from t to now.
inline double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// The drape's options (all but the pattern, the body, the output and what to write) on `cmd`.
void add_drape_options(CLI::App& cmd, DrapeCommand& o);
/// The library's options from the command line's.
DrapeOptions drape_options(const DrapeCommand& o);

/// The flag the stop signals set; the drape polls it once a frame.
std::atomic<bool>& stop_requested();

/// Installs the SIGINT / SIGTERM handler for its lifetime (one-shot: a second signal kills).
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  bool stopped() const;
  /// 128 + the signal, as a shell reports it (130 for SIGINT, 143 for SIGTERM).
  int exit_code() const;
  std::string name() const;

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// The pattern, arranged around the body when it is a DXF, and checked: throws InputError naming
// the file and every error when it cannot be sewn.
garments::LoadedPattern load_sewable_pattern(const DrapeCommand& o, const avatars::Avatar& body);

}  // namespace tryon::apps
