// `tryon batch`: the jobs run as child processes, each `tryon drape` in its own process group, so
// that bad input, a crash or a hang is that job's failure and never stops the others.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "apps/batch.hpp"
#include "apps/commands.hpp"
#include "core/files.hpp"
#include "core/logger.hpp"
#include "core/progress.hpp"

namespace tryon::apps::batch {
namespace {

// ---------------------------------------------------------------------------------------------
// Child processes.

volatile std::sig_atomic_t g_stop_signal = 0;
extern "C" void on_stop_signal(int sig) { g_stop_signal = sig; }

/// Test hook (TRYON_BATCH_TEST_FAULT="crash:NAME" or "hang:NAME"): the child of job NAME starts
/// a temporary output file and kills itself with SIGSEGV, or sleeps forever, instead of running
/// the drape. It exercises the batch's handling of crashes and hangs without a drape that crashes.
enum class Fault { none, crash, hang };
Fault test_fault(const std::string& name) {
  const char* env = std::getenv("TRYON_BATCH_TEST_FAULT");
  if (!env) return Fault::none;
  const std::string v = env;
  if (v == "crash:" + name) return Fault::crash;
  if (v == "hang:" + name) return Fault::hang;
  return Fault::none;
}

/// Starts `/proc/self/exe args...` in its own process group with stdin from /dev/null and
/// stdout + stderr into `log`. Returns the pid, or -1 with `error` set.
pid_t spawn(const std::vector<std::string>& args, const fs::path& log, Fault fault, std::string& error) {
  const std::string half_written = (log.parent_path() / ".garment.obj.tmp0").string();  // crash hook only
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot create '" + log.string() + "': " + std::strerror(errno);
    return -1;
  }
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {  // child: only async-signal-safe calls until exec
    ::setpgid(0, 0);
    // Dies with the batch even when the batch is killed outright (SIGKILL) and cannot clean up.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    const int in = ::open("/dev/null", O_RDONLY);
    if (in >= 0) ::dup2(in, STDIN_FILENO);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    if (fault == Fault::crash) {
      const int partial = ::open(half_written.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (partial >= 0) {
        [[maybe_unused]] const auto w = ::write(partial, "v 0 0", 5);
      }
      const rlimit no_core{0, 0};
      ::setrlimit(RLIMIT_CORE, &no_core);
      ::signal(SIGSEGV, SIG_DFL);
      ::raise(SIGSEGV);
    }
    if (fault == Fault::hang)
      for (;;) ::pause();
    ::execv("/proc/self/exe", argv.data());
    static const char msg[] = "tryon batch: cannot start /proc/self/exe\n";
    [[maybe_unused]] const auto w = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(fd);
  if (pid < 0) {
    error = std::string("cannot start a process: ") + std::strerror(errno);
    return -1;
  }
  ::setpgid(pid, pid);  // also here, so the group exists before we may signal it
  return pid;
}

/// The error a failed drape gave: its last "[error]" log line, else the last meaningful line.
std::string reason_from_log(const fs::path& log) {
  std::string text;
  try {
    text = read_text_file(log, "log");
  } catch (const std::exception&) {
    return {};
  }
  std::istringstream in(text);
  std::string line, last_error, last;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line.rfind("Run with --help", 0) == 0) continue;
    if (const auto at = line.find("[error] "); at != std::string::npos) last_error = line.substr(at + 8);
    last = line;
  }
  return last_error.empty() ? last : last_error;
}

// ---------------------------------------------------------------------------------------------
// One job's child.

struct Running {
  std::size_t job = 0;
  pid_t pid = -1;
  Clock::time_point start;
  double deadline_s = 0;  // hard kill after this many seconds (0: never)
  enum class Kill { none, timeout, interrupt } killed = Kill::none;
  Clock::time_point kill_time;
};

/// Records a finished child's outcome from its exit status, report and log.
void finish_job(const Running& r, int wstatus, const fs::path& dir, const BatchCommand& o, Outcome& out) {
  out.wall_s = since(r.start);
  std::error_code ec;
  fs::rename(dir / ".log.txt.partial", dir / "log.txt", ec);
  // A child killed while writing leaves its temporary files (".garment.obj.tmp<pid>"): the
  // outputs are written whole or not at all, so these are never worth keeping.
  std::vector<fs::path> temporaries;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string file = entry.path().filename().string();
    if (file[0] == '.' && file.find(".tmp") != std::string::npos) temporaries.push_back(entry.path());
  }
  for (const auto& t : temporaries) fs::remove(t, ec);
  const fs::path log = dir / "log.txt";
  out.report = read_report(dir / "report.json");
  out.status = "failed";
  if (WIFSIGNALED(wstatus)) out.signal = signal_name(WTERMSIG(wstatus));
  if (WIFEXITED(wstatus)) out.exit_code = WEXITSTATUS(wstatus);
  char buf[160];
  if (r.killed == Running::Kill::timeout) {
    std::snprintf(buf, sizeof buf, "timeout: killed after %.1f s (time limit + %.1f s grace)", out.wall_s,
                  o.kill_grace_s);
    out.reason = buf;
    out.report.reset();  // a report left by an earlier run would not be this run's
    return;
  }
  if (r.killed == Running::Kill::interrupt) {
    out.reason = "interrupted: the batch was stopped by " + signal_name(g_stop_signal);
    out.report.reset();
    return;
  }
  if (WIFSIGNALED(wstatus)) {
    out.reason = "crashed: " + out.signal + " (" + ::strsignal(WTERMSIG(wstatus)) + ")";
    return;
  }
  const int code = out.exit_code.value_or(-1);
  const std::string why = reason_from_log(log);
  if ((code == kExitOk || code == kExitNotClean) && out.report) {
    out.status = code == kExitOk ? "ok" : "not_clean";
    if ((out.status == "ok") != ((*out.report).value("status", "") == "ok"))
      out.reason = "the exit code and report.json's status disagree";
    return;
  }
  if (code == kExitOk || code == kExitNotClean)
    out.reason = "exit " + std::to_string(code) + " but no readable report.json";
  else if (code == kExitBadInput)
    out.reason = "bad input: " + why;
  else if (code == kExitInternal)
    out.reason = "internal error: " + why;
  else if (code == 127)
    out.reason = "could not start the drape: " + why;
  else
    out.reason = "exit code " + std::to_string(code) + ": " + why;
}

/// Starts job `i` as `tryon drape ...` in OUTDIR/<name>/, first removing an earlier run's outputs
/// there (they must not pass for this run's: --resume trusts report.json). pid -1 with `error` set
/// when it could not start.
Running start_job(std::size_t i, const Job& job, const fs::path& outdir, const BatchCommand& o, int threads,
                  std::string& error) {
  const fs::path dir = outdir / job.name;
  std::error_code ec;
  fs::create_directories(dir, ec);
  for (const char* f : {"report.json", "garment.obj", "garment.glb", "preview.png", "log.txt"}) fs::remove(dir / f, ec);
  std::vector<std::string> args = {"tryon", "drape", job.pattern, "--avatar", job.avatar, "-o", dir.string()};
  args.insert(args.end(), job.options.begin(), job.options.end());
  if (std::find(job.options.begin(), job.options.end(), "--threads") == job.options.end())
    args.insert(args.end(), {"--threads", std::to_string(threads)});
  double limit = job.time_limit_s;
  if (limit <= 0 && o.time_limit_s > 0) {
    limit = o.time_limit_s;
    args.insert(args.end(), {"--time-limit", json(limit).dump()});
  }
  Running r;
  r.job = i;
  r.start = Clock::now();
  r.deadline_s = limit > 0 ? limit + o.kill_grace_s : 0;
  r.pid = spawn(args, dir / ".log.txt.partial", test_fault(job.name), error);
  return r;
}

// ---------------------------------------------------------------------------------------------
// The batch loop.

/// SIGINT / SIGTERM stop the batch (on_stop_signal) while it lives; children stay waitable.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction act {};
    act.sa_handler = on_stop_signal;
    sigemptyset(&act.sa_mask);
    ::sigaction(SIGINT, &act, &old_int_);
    ::sigaction(SIGTERM, &act, &old_term_);
    // Children must stay waitable: an inherited SIGCHLD = SIG_IGN would have them reaped unseen.
    struct sigaction chld {};
    chld.sa_handler = SIG_DFL;
    sigemptyset(&chld.sa_mask);
    ::sigaction(SIGCHLD, &chld, &old_chld_);
    g_stop_signal = 0;
  }
  ~StopSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    ::sigaction(SIGCHLD, &old_chld_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {}, old_term_ {}, old_chld_ {};
};

/// The queued jobs' children: launched while there is room, watched until they end.
class Runner {
 public:
  Runner(const BatchCommand& o, const fs::path& manifest, const fs::path& outdir, const std::vector<Job>& jobs,
         const std::vector<std::size_t>& queue, int threads_per_job, std::vector<Outcome>& outcomes,
         Clock::time_point t_start)
      : o_(o), manifest_(manifest), outdir_(outdir), jobs_(jobs), queue_(queue), threads_per_job_(threads_per_job),
        outcomes_(outcomes), t_start_(t_start),
        bar_("batch", static_cast<double>(std::max<std::size_t>(queue.size(), 1)), !o.quiet),
        tty_(::isatty(STDERR_FILENO) != 0) {}

  /// Until every queued job has ended (or, once stopped by a signal, every running one).
  void run() {
    save(false);
    while (true) {
      launch_ready();
      if (running_.empty()) break;
      const bool changed = watch_running();
      if (changed) save(false);
      bar_.update(static_cast<double>(done_), status_text());
      if (!changed) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  /// The jobs never started are not_run; the bar's last line and the final summary. Returns
  /// whether a signal stopped the batch.
  bool finish() {
    for (Outcome& out : outcomes_)
      if (out.status == "pending") {
        out.status = "not_run";
        out.reason = "the batch was stopped by " + signal_name(g_stop_signal) + " before this job started";
      }
    const bool interrupted = g_stop_signal != 0;
    bar_.finish(status_text());
    save(true);
    return interrupted;
  }

 private:
  /// Starts queued jobs while fewer than --jobs run and no signal came.
  void launch_ready() {
    while (g_stop_signal == 0 && running_.size() < static_cast<std::size_t>(o_.jobs) && next_ < queue_.size()) {
      const std::size_t i = queue_[next_++];
      Outcome& out = outcomes_[i];
      std::string error;
      const Running r = start_job(i, jobs_[i], outdir_, o_, threads_per_job_, error);
      out.launched = r.pid > 0;
      if (r.pid < 0) {
        out.status = "failed";
        out.reason = error;
        ++done_;
        save(false);
        continue;
      }
      out.status = "running";
      running_.push_back(r);
      save(false);
    }
  }

  /// Records the children that ended and stops those out of time or stopped by a signal.
  /// Returns whether any ended.
  bool watch_running() {
    bool changed = false;
    for (std::size_t k = 0; k < running_.size();) {
      Running& r = running_[k];
      int wstatus = 0;
      if (::waitpid(r.pid, &wstatus, WNOHANG) == r.pid) {
        Outcome& out = outcomes_[r.job];
        finish_job(r, wstatus, outdir_ / jobs_[r.job].name, o_, out);
        finished_wall_s_ += out.wall_s;
        ++done_;
        changed = true;
        print_ended(jobs_[r.job], out);
        running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(k));
        continue;
      }
      stop_if_due(r);
      ++k;
    }
    return changed;
  }

  /// A job past its time limit and grace is killed; on a signal, every job is sent SIGTERM and,
  /// 2 s later, SIGKILL.
  static void stop_if_due(Running& r) {
    if (r.killed == Running::Kill::none && r.deadline_s > 0 && since(r.start) > r.deadline_s) {
      ::kill(-r.pid, SIGKILL);
      r.killed = Running::Kill::timeout;
    } else if (r.killed == Running::Kill::none && g_stop_signal != 0) {
      ::kill(-r.pid, SIGTERM);
      r.killed = Running::Kill::interrupt;
      r.kill_time = Clock::now();
    } else if (r.killed == Running::Kill::interrupt && since(r.kill_time) > 2.0) {
      ::kill(-r.pid, SIGKILL);
    }
  }

  /// "NAME: status (reason)" on a line of its own (above the bar).
  void print_ended(const Job& job, const Outcome& out) const {
    if (o_.quiet) return;
    const std::string line = job.name + ": " + out.status + (out.reason.empty() ? "" : " (" + out.reason + ")");
    const std::lock_guard<std::mutex> lock(progress_output_mutex());
    end_progress_line(stderr);
    std::fprintf(stderr, "%s\n", line.c_str());
  }

  std::string status_text() const {
    const Counts c = count(outcomes_);
    char text[200];
    std::snprintf(text, sizeof text, "%zu/%zu done: %d ok, %d not clean, %d failed, %zu running", done_,
                  queue_.size(), c.ok, c.not_clean, c.failed, running_.size());
    std::string s = text;
    const std::size_t left = queue_.size() - done_;
    if (!tty_ && done_ > 0 && left > 0 && g_stop_signal == 0) {  // a terminal's bar shows its own
      // Mean job time so far, times the rounds of --jobs parallel jobs still to come.
      const double rounds = std::ceil(static_cast<double>(left) / o_.jobs);
      std::snprintf(text, sizeof text, ", ETA %.0f s", finished_wall_s_ / static_cast<double>(done_) * rounds);
      s += text;
    }
    return s;
  }

  void save(bool finished) {
    try {
      write_summary(outdir_, manifest_, jobs_, outcomes_, finished, g_stop_signal != 0, since(t_start_));
    } catch (const std::exception& e) {
      logger().error("batch: {}", e.what());
    }
  }

  const BatchCommand& o_;
  const fs::path& manifest_;
  const fs::path& outdir_;
  const std::vector<Job>& jobs_;
  const std::vector<std::size_t>& queue_;
  const int threads_per_job_;
  std::vector<Outcome>& outcomes_;
  const Clock::time_point t_start_;
  ProgressBar bar_;
  const bool tty_;
  std::vector<Running> running_;
  std::size_t next_ = 0, done_ = 0;
  double finished_wall_s_ = 0;  // summed wall time of the jobs finished so far, for the ETA
};

}  // namespace

bool run_jobs(const BatchCommand& o, const fs::path& manifest, const fs::path& outdir, const std::vector<Job>& jobs,
              const std::vector<std::size_t>& queue, int threads_per_job, std::vector<Outcome>& outcomes,
              Clock::time_point t_start) {
  const StopSignals signals;
  Runner runner(o, manifest, outdir, jobs, queue, threads_per_job, outcomes, t_start);
  runner.run();
  return runner.finish();
}

}  // namespace tryon::apps::batch
