// `tryon batch MANIFEST -o OUTDIR [--jobs N] [--resume] [--quiet]`: many drapes, each one a
// child process running `tryon drape`, so that bad input, a crash or a hang is that job's failure
// and never stops the others. Writes OUTDIR/<name>/{garment.obj, report.json, log.txt} per job and
// OUTDIR/summary.json + OUTDIR/summary.csv, rewritten whole (temporary file + rename) after every
// job, so an interrupted batch still leaves a valid summary.
//
// This file holds the command: its options, --plan, and the run from manifest to exit code; the
// manifest and job planning are in batch_manifest.cpp, the children in batch_run.cpp, the
// summary files in batch_summary.cpp (apps/batch.hpp).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "apps/batch.hpp"
#include "apps/commands.hpp"
#include "core/error.hpp"
#include "core/logger.hpp"

namespace tryon::apps {
namespace batch {
namespace {

/// --plan: the jobs as this batch would run them, one JSON document on stdout, so that another
/// runner (python3 -m tryon.dask) shares the manifest rules, names and drape arguments.
/// {"manifest", "outdir", "jobs": [{"name", "line", "pattern", "avatar", "drape_args" (after
/// `tryon drape`, without --threads), "time_limit_s", "error" (refused: never run)}]}
void print_plan(const fs::path& manifest, const fs::path& outdir, const std::vector<Job>& jobs) {
  json list = json::array();
  for (const Job& job : jobs) {
    std::vector<std::string> args = {job.pattern, "--avatar", job.avatar, "-o", (outdir / job.name).string()};
    args.insert(args.end(), job.options.begin(), job.options.end());
    list.push_back({{"name", job.name},
                    {"line", job.line},
                    {"pattern", job.pattern},
                    {"avatar", job.avatar},
                    {"drape_args", job.error.empty() ? json(args) : json::array()},
                    {"time_limit_s", job.time_limit_s},
                    {"error", job.error}});
  }
  std::printf("%s\n", json({{"manifest", manifest.string()}, {"outdir", outdir.string()}, {"jobs", list}}).dump(2).c_str());
}

void create_output_folder(const fs::path& outdir) {
  std::error_code ec;
  fs::create_directories(outdir, ec);
  if (ec || !fs::is_directory(outdir))
    throw InputError("cannot create the output folder '" + outdir.string() + "'" + (ec ? ": " + ec.message() : ""));
}

/// Sets the outcome of every job that will not run (refused by the manifest check, or with a
/// report already under --resume) and returns the others, in manifest order.
std::vector<std::size_t> queue_jobs(const BatchCommand& o, const fs::path& outdir, const std::vector<Job>& jobs,
                                    std::vector<Outcome>& outcomes) {
  std::vector<std::size_t> queue;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    Outcome& out = outcomes[i];
    if (!jobs[i].error.empty()) {
      out.status = "failed";
      out.reason = "manifest line " + std::to_string(jobs[i].line) + ": " + jobs[i].error;
      continue;
    }
    if (o.resume) {
      if (auto report = read_report(outdir / jobs[i].name / "report.json")) {
        out.status = "skipped";
        out.reason = "resume: report.json exists";
        out.report = std::move(report);
        continue;
      }
    }
    queue.push_back(i);
  }
  return queue;
}

/// The batch's last line (unless --quiet) and its exit code: 0 when every job is ok (run now, or
/// skipped with an ok report) and no signal stopped it, else 1.
int batch_result(const BatchCommand& o, const fs::path& outdir, const std::vector<Job>& jobs,
                 const std::vector<Outcome>& outcomes, bool interrupted) {
  const Counts c = count(outcomes);
  bool all_ok = !interrupted;
  for (const auto& out : outcomes)
    all_ok &= out.status == "ok" || (out.status == "skipped" && out.report && (*out.report).value("status", "") == "ok");
  if (!o.quiet)
    std::printf("batch: %zu jobs: %d ok, %d not clean, %d failed, %d skipped%s; summary in %s\n", jobs.size(), c.ok,
                c.not_clean, c.failed, c.skipped, interrupted ? ", INTERRUPTED" : "",
                (outdir / "summary.json").string().c_str());
  return all_ok ? kExitOk : kExitNotClean;
}

}  // namespace

int run_batch(const BatchCommand& o) {
  const auto t_start = Clock::now();
  if (o.quiet) logger().set_level(spdlog::level::err);
  const fs::path manifest = fs::absolute(o.manifest).lexically_normal();
  const std::vector<Job> jobs = make_jobs(read_manifest(manifest), manifest.parent_path());
  const fs::path outdir = fs::absolute(o.outdir).lexically_normal();
  if (o.plan) {
    print_plan(manifest, outdir, jobs);
    return kExitOk;
  }
  create_output_folder(outdir);

  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int threads_per_job = std::max(1, cores / o.jobs);
  std::vector<Outcome> outcomes(jobs.size());
  const std::vector<std::size_t> queue = queue_jobs(o, outdir, jobs, outcomes);
  logger().info("batch: {} jobs from '{}', {} to run, {} at once with {} threads each", jobs.size(), manifest.string(),
                queue.size(), o.jobs, threads_per_job);
  const bool interrupted = run_jobs(o, manifest, outdir, jobs, queue, threads_per_job, outcomes, t_start);
  return batch_result(o, outdir, jobs, outcomes, interrupted);
}

}  // namespace batch

void add_batch_command(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<batch::BatchCommand>();
  CLI::App* cmd = app.add_subcommand(
      "batch", "run many drapes from a manifest, each isolated in its own process (exit 0 all ok, 1 any not ok, 2 bad manifest)");
  cmd->add_option("manifest", o->manifest,
                  "JSON Lines (one {\"pattern\", \"avatar\", \"name\", \"material\", \"options\"} a line) or CSV with a header")
      ->required();
  cmd->add_option("-o,--output", o->outdir, "output folder: <name>/ per job, summary.json, summary.csv")->required();
  cmd->add_option("--jobs", o->jobs, "drapes at once")->check(CLI::Range(1, 256));
  cmd->add_flag("--resume", o->resume, "skip jobs whose report.json exists");
  cmd->add_option("--time-limit", o->time_limit_s, "per-job drape time limit in seconds unless the job sets one (0: none)")
      ->check(CLI::Range(0.0, 1e7));
  cmd->add_option("--kill-grace", o->kill_grace_s, "seconds after a job's time limit before it is killed")
      ->check(CLI::Range(0.0, 1e7));
  cmd->add_flag("--quiet", o->quiet, "no progress bar or per-job lines");
  cmd->add_flag("--plan", o->plan, "print the jobs (names, drape arguments, refusals) as JSON; run nothing");
  cmd->callback([o, &run] { run = [o] { return batch::run_batch(*o); }; });
}

}  // namespace tryon::apps
