// Faults during a drape, end to end: SIGINT / SIGTERM end `tryon drape` with 128 + the signal
// and nothing written; a batch interrupted while a real drape runs leaves no partial files and
// `--resume` then completes it; `--time-limit` ends a drape with a report saying time_limit.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "run_tryon.hpp"
#include "test_data.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using tryon::test::quoted;
using tryon::test::read_file;
using tryon::test::run_tryon;
using Clock = std::chrono::steady_clock;

namespace {

fs::path shirt() { return tryon::test::assets() / "patterns/shirt_mean_specification.json"; }
fs::path body() { return tryon::test::assets() / "bodies/mean_all.obj"; }

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("tryon_interrupt_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

/// Starts `tryon ARGS...` with stdout to /dev/null and stderr to `err`; returns its pid.
pid_t start(const std::vector<std::string>& args, const fs::path& err) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int null = ::open("/dev/null", O_WRONLY);
  const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(null, 1);
  ::dup2(e, 2);
  std::vector<char*> argv{const_cast<char*>(TRYON_BIN)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(TRYON_BIN, argv.data());
  ::_exit(127);
}

/// Polls until `ready()` or `seconds` pass; true when ready.
template <class F>
bool wait_until(F ready, double seconds) {
  const auto t0 = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - t0).count() < seconds) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ready();
}

/// Waits for `pid` at most `seconds` (then kills it and fails); returns the wait status.
int wait_for(pid_t pid, double seconds) {
  int status = 0;
  const bool done = wait_until([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, seconds);
  if (!done) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    ADD_FAILURE() << "pid " << pid << " did not end within " << seconds << " s";
  }
  return status;
}

/// Every file under `dir` (none expected after an interrupted drape).
std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> files;
  if (fs::exists(dir))
    for (const auto& e : fs::recursive_directory_iterator(dir)) files.push_back(e.path().string());
  return files;
}

void interrupt_drape(int sig, int expected_code, const char* name) {
  const fs::path dir = scratch(name);
  const fs::path out = dir / "out", err = dir / "stderr.txt";
  // A drape far longer than the test: it can only end through the signal.
  const pid_t pid = start({"drape", shirt().string(), "--avatar", body().string(), "-o", out.string(),
                           "--max-frames", "100000", "--resolution-cm", "1", "--threads", "1"},
                          err);
  ASSERT_GT(pid, 0);
  // The progress line names the frame once the simulation runs.
  const bool simulating = wait_until([&] { return read_file(err).find("frame") != std::string::npos; }, 120);
  EXPECT_TRUE(simulating) << read_file(err);
  const auto t_signal = Clock::now();
  ::kill(pid, sig);
  const int status = wait_for(pid, 60);
  const double stop_s = std::chrono::duration<double>(Clock::now() - t_signal).count();
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), expected_code);
  const std::string log = read_file(err);
  EXPECT_NE(log.find(std::string("interrupted by ") + name), std::string::npos) << log;
  EXPECT_NE(log.find("nothing written"), std::string::npos) << log;
  EXPECT_TRUE(files_under(out).empty()) << ::testing::PrintToString(files_under(out));
  EXPECT_LT(stop_s, 30.0) << "the drape took long to stop after the signal";
  fs::remove_all(dir);
}

}  // namespace

TEST(Interrupt, SigintEndsADrapeWith130AndWritesNothing) { interrupt_drape(SIGINT, 130, "SIGINT"); }

TEST(Interrupt, SigtermEndsADrapeWith143AndWritesNothing) { interrupt_drape(SIGTERM, 143, "SIGTERM"); }

TEST(Interrupt, TimeLimitEndsADrapeWithAReportSayingSo) {
  const fs::path dir = scratch("time_limit");
  const auto t0 = Clock::now();
  const auto r =
      run_tryon("drape " + quoted(shirt()) + " --avatar " + quoted(body()) + " -o " + quoted(dir / "out") +
                " --max-frames 100000 --resolution-cm 1 --time-limit 2 --quiet");
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_EQ(r.code, 1) << r.err;
  const json report = read_json(dir / "out" / "report.json");
  EXPECT_EQ(report["run"]["status"], "time_limit");
  EXPECT_EQ(report["status"], "failed");
  EXPECT_NE(std::find(report["failures"].begin(), report["failures"].end(), "time_limit"), report["failures"].end())
      << report["failures"].dump();
  EXPECT_LT(report["simulation"]["frames"].get<int>(), 100000);
  EXPECT_TRUE(fs::exists(dir / "out" / "garment.obj"));
  EXPECT_LT(wall, 120.0);  // loading and judging come on top of the 2 s of simulation
  fs::remove_all(dir);
}

TEST(Interrupt, BatchInterruptedDuringARealDrapeIsCompletedByResume) {
  const fs::path dir = scratch("batch");
  // Two real drapes, each ended by its own time limit (a finished, not clean job with a report):
  // at 1 cm the shirt needs about 10 s on 2 threads (at 3 cm it came to rest within the limit).
  std::ofstream(dir / "jobs.jsonl")
      << "{\"name\": \"first\", \"pattern\": \"" << shirt().string() << "\", \"avatar\": \""
      << body().string()
      << "\", \"options\": {\"time_limit\": 3, \"max_frames\": 100000, \"resolution_cm\": 1}}\n"
      << "{\"name\": \"second\", \"pattern\": \"" << shirt().string() << "\", \"avatar\": \""
      << body().string()
      << "\", \"options\": {\"time_limit\": 3, \"max_frames\": 100000, \"resolution_cm\": 1}}\n";
  const fs::path out = dir / "out";
  const pid_t pid = start({"batch", (dir / "jobs.jsonl").string(), "-o", out.string(), "--quiet"}, dir / "err1.txt");
  ASSERT_GT(pid, 0);
  // Interrupt once the first job's drape is simulating (its log shows a frame).
  const bool simulating = wait_until(
      [&] {
        const fs::path log = out / "first" / ".log.txt.partial";
        return fs::exists(log) && read_file(log).find("frame") != std::string::npos;
      },
      120);
  EXPECT_TRUE(simulating);
  ::kill(pid, SIGINT);
  const int status = wait_for(pid, 60);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  json summary = read_json(out / "summary.json");
  EXPECT_TRUE(summary["interrupted"].get<bool>());
  EXPECT_EQ(summary["jobs"][0]["status"], "failed");
  EXPECT_NE(summary["jobs"][0]["reason"].get<std::string>().find("interrupted"), std::string::npos);
  // The batch stops its children with SIGTERM; the drape ended through its handler (128 + 15).
  EXPECT_EQ(summary["jobs"][0]["exit_code"], 143) << summary["jobs"][0].dump();
  EXPECT_EQ(summary["jobs"][1]["status"], "not_run");
  // The interrupted drape wrote nothing but its log.
  for (const auto& f : files_under(out / "first")) EXPECT_EQ(fs::path(f).filename(), "log.txt") << f;

  // --resume runs both jobs to their end.
  const auto r = run_tryon("batch " + quoted(dir / "jobs.jsonl") + " -o " + quoted(out) + " --resume --quiet");
  EXPECT_EQ(r.code, 1) << r.err;  // finished, not clean (time limit)
  summary = read_json(out / "summary.json");
  EXPECT_FALSE(summary["interrupted"].get<bool>());
  EXPECT_TRUE(summary["finished"].get<bool>());
  for (const json& job : summary["jobs"]) {
    EXPECT_EQ(job["status"], "not_clean") << job.dump();
    const fs::path jd = out / job["name"].get<std::string>();
    ASSERT_TRUE(fs::exists(jd / "report.json")) << job.dump();
    EXPECT_EQ(read_json(jd / "report.json")["run"]["status"], "time_limit");
    EXPECT_TRUE(fs::exists(jd / "garment.obj"));
  }
  for (const auto& f : files_under(out)) EXPECT_NE(fs::path(f).filename().string()[0], '.') << "left behind: " << f;
  fs::remove_all(dir);
}

// SIGINT while `tryon animate` follows a motion (the body standing still for 3 s, the same mesh
// listed 90 times): 130, and the frames followed so far are written, the report saying so.
TEST(Interrupt, SigintDuringAMotionWritesTheFramesFollowed) {
  const fs::path dir = scratch("animate");
  const fs::path out = dir / "out", err = dir / "stderr.txt", list = dir / "still.txt";
  {
    std::ofstream l(list);
    for (int k = 0; k < 90; ++k) l << body().string() << "\n";
  }
  const pid_t pid = start({"animate", shirt().string(), "--avatar", list.string(), "-o", out.string(),
                           "--resolution-cm", "3", "--threads", "1"},
                          err);
  ASSERT_GT(pid, 0);
  const bool following = wait_until([&] { return read_file(err).find("motion, frame") != std::string::npos; }, 120);
  EXPECT_TRUE(following) << read_file(err);
  ::kill(pid, SIGINT);
  const int status = wait_for(pid, 60);
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 130) << read_file(err);
  ASSERT_TRUE(fs::exists(out / "report.json")) << read_file(err);
  EXPECT_TRUE(fs::exists(out / "garment.glb"));
  const json report = read_json(out / "report.json");
  EXPECT_EQ(report["motion"]["status"], "cancelled");
  const int written = report["motion"]["frames_written"];
  EXPECT_GE(written, 2);
  EXPECT_LT(written, 90);
  EXPECT_EQ(report["frames"].size(), static_cast<std::size_t>(written));
  fs::remove_all(dir);
}
