#pragma once
// `tryon batch`'s parts, internal to the program:
//   batch_manifest.cpp  the manifest read into entries, the entries checked and planned as jobs;
//   batch_run.cpp       the jobs run as child processes (`tryon drape`), at most --jobs at once;
//   batch_summary.cpp   each job's outcome, and OUTDIR/summary.json and summary.csv;
//   batch.cpp           the command: its options, --plan, and the run from manifest to exit code.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tryon::apps::batch {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

struct BatchCommand {
  std::string manifest, outdir;
  int jobs = 1;
  bool resume = false, quiet = false;
  bool plan = false;         // print the jobs as JSON and run nothing (for other runners: tryon.dask)
  double time_limit_s = 0;   // default per-job drape --time-limit (0: none)
  double kill_grace_s = 30;  // a job still running this long after its time limit is killed
};

inline double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// ---------------------------------------------------------------------------------------------
// batch_manifest.cpp

struct ManifestEntry {
  int line = 0;  // 1-based line of the job in the manifest
  json fields;   // object; CSV cells become strings, "options" a parsed object when it parses
};

/// A manifest entry checked and turned into `tryon drape` arguments.
struct Job {
  int line = 0;
  std::string name;                   // folder under OUTDIR
  std::string pattern, avatar;        // as resolved (absolute when relative to the manifest)
  std::vector<std::string> options;   // drape flags after PATTERN --avatar BODY -o DIR
  double time_limit_s = 0;            // the drape's own --time-limit (0: none)
  std::string error;                  // refused before launch: recorded as failed, never run
};

/// `s` without leading and trailing white space.
std::string trim(const std::string& s);

/// The manifest's entries: JSON Lines when its first non-blank character opens an object, CSV
/// otherwise. Throws InputError for a manifest that cannot be read as either (exit 2).
std::vector<ManifestEntry> read_manifest(const fs::path& path);

/// Checks every entry and names every job (relative paths resolved against `base`, the
/// manifest's folder). A bad entry is a job with `error` set, never a throw.
std::vector<Job> make_jobs(const std::vector<ManifestEntry>& entries, const fs::path& base);

// ---------------------------------------------------------------------------------------------
// batch_summary.cpp

struct Outcome {
  std::string status = "pending";  // pending, running, ok, not_clean, failed, skipped, not_run
  std::string reason;
  std::optional<int> exit_code;
  std::string signal;
  double wall_s = 0;
  bool launched = false;
  std::optional<json> report;
};

struct Counts {
  int ok = 0, not_clean = 0, failed = 0, skipped = 0, not_run = 0, pending = 0;  // pending: not finished yet
};

Counts count(const std::vector<Outcome>& outcomes);

/// "SIGINT" for SIGINT, "signal N" for a signal without a name.
std::string signal_name(int sig);

/// report.json at `path` when it is a readable JSON object.
std::optional<json> read_report(const fs::path& path);

/// Rewrites OUTDIR/summary.json and summary.csv whole (each to a temporary name, then renamed).
void write_summary(const fs::path& outdir, const fs::path& manifest, const std::vector<Job>& jobs,
                   const std::vector<Outcome>& outcomes, bool finished, bool interrupted, double wall_s);

// ---------------------------------------------------------------------------------------------
// batch_run.cpp

/// Runs the jobs `queue` lists (indices into `jobs`), each as `tryon drape` in its own process
/// group in OUTDIR/<name>/, at most `o.jobs` at once with `threads_per_job` threads each, and
/// records their outcomes, rewriting the summary whenever one changes. On SIGINT / SIGTERM it
/// launches nothing more and stops the running children; the jobs never started are `not_run`.
/// Draws the progress bar and a line per finished job unless `o.quiet`. Ends with the final
/// summary; returns whether the batch was stopped by a signal.
bool run_jobs(const BatchCommand& o, const fs::path& manifest, const fs::path& outdir, const std::vector<Job>& jobs,
              const std::vector<std::size_t>& queue, int threads_per_job, std::vector<Outcome>& outcomes,
              Clock::time_point t_start);

// ---------------------------------------------------------------------------------------------
// batch.cpp

/// The command: reads and plans the manifest, prints the plan (--plan) or runs the jobs; returns
/// the exit code (0 all ok, 1 any not ok). Throws InputError for a bad manifest or output folder.
int run_batch(const BatchCommand& o);

}  // namespace tryon::apps::batch
