// End-to-end: `tryon batch` runs each job as a child `tryon drape`; bad, broken, crashing and
// hanging jobs are recorded as failures while the others finish; summaries are written whole;
// --resume re-runs nothing that finished; bad manifests are refused with exit 2.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "run_tryon.hpp"
#include "test_data.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using tryon::test::quoted;
using tryon::test::run_tryon;

namespace {

// Built with AddressSanitizer (scripts/sanitize.sh; GCC and Clang define this macro).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
// The bundled two-panel skirt (the same file as the shared copy).
fs::path skirt_pattern() { return tryon::test::assets() / "patterns/skirt_2_panels.json"; }

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::vector<std::string> read_lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

/// A fresh folder per test under the temporary directory.
fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("tryon_batch_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::map<std::string, json> by_name(const json& summary) {
  std::map<std::string, json> m;
  for (const json& j : summary["jobs"]) m[j["name"].get<std::string>()] = j;
  return m;
}

/// No temporary or partial file is left anywhere under `dir`.
void expect_no_temporaries(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    EXPECT_NE(e.path().filename().string()[0], '.') << "left behind: " << e.path();
}

/// The good job's summary entry matches the report its drape wrote.
void expect_consistent_with_report(const json& entry, const fs::path& job_dir) {
  ASSERT_TRUE(fs::exists(job_dir / "report.json")) << entry.dump();
  const json report = read_json(job_dir / "report.json");
  EXPECT_EQ(entry["status"], report["status"] == "ok" ? "ok" : "not_clean") << entry.dump();
  EXPECT_EQ(entry["failures"], report["failures"]);
  EXPECT_EQ(entry["report_status"], report["status"]);
  EXPECT_EQ(entry["timings_s"]["total"], report["timings_s"]["total"]);
  EXPECT_GT(entry["timings_s"]["wall"].get<double>(), 0.0);
  // The job's options reached the drape: its coarse resolution (3 or 5 cm; the 1 cm default gives
  // about 9 times as many vertices) and its frame limit (at most 900).
  EXPECT_LT(report["mesh"]["vertices"].get<int>(), 2000);
  EXPECT_LE(report["simulation"]["frames"].get<int>(), 900);
  EXPECT_TRUE(fs::exists(job_dir / "garment.obj"));
  EXPECT_TRUE(fs::exists(job_dir / "log.txt"));
}

}  // namespace

TEST(Batch, MissingPatternAndBrokenBodyFailWhileTheGoodJobFinishesAndResumeRerunsNothingFinished) {
  const fs::path dir = scratch("mixed");
  const fs::path skirt = skirt_pattern();
  const fs::path body = tryon::test::assets() / "bodies/mean_all.obj";
  write_text(dir / "in/broken.obj", "v 1 2\nf 1 2 7\nthis is not a mesh\n");
  // Paths relative to the manifest's folder (broken.obj) and absolute ones; the last job has no name.
  // The good job drapes the bundled skirt to its clean rest (472 frames at 3 cm, about 40 s). Under
  // the sanitizers that takes over 20 minutes, so there the job is 5 frames at 5 cm and only the
  // batch machinery is checked (its outcome, ok or not clean, is then whatever the report says).
  const std::string good_options = kSanitized ? "{\"resolution_cm\": 5, \"max_frames\": 5}"
                                              : "{\"resolution_cm\": 3, \"max_frames\": 900}";
  write_text(dir / "in/jobs.jsonl",
             "{\"name\": \"missing\", \"pattern\": \"no_such_pattern.json\", \"avatar\": \"" + body.string() + "\"}\n"
             "\n"
             "{\"name\": \"broken\", \"pattern\": \"" + skirt.string() + "\", \"avatar\": \"broken.obj\","
             " \"options\": {\"resolution_cm\": 5, \"max_frames\": 5}}\n"
             "{\"pattern\": \"" + skirt.string() + "\", \"avatar\": \"" + body.string() + "\","
             " \"material\": \"cotton_jersey\", \"options\": " + good_options + "}\n");
  const fs::path out = dir / "out";
  const auto r = run_tryon("batch " + quoted(dir / "in/jobs.jsonl") + " -o " + quoted(out) + " --jobs 2");
  EXPECT_EQ(r.code, 1) << r.err;  // not every job ok

  const json summary = read_json(out / "summary.json");
  EXPECT_TRUE(summary["finished"].get<bool>());
  EXPECT_FALSE(summary["interrupted"].get<bool>());
  EXPECT_EQ(summary["launched"], 3);
  ASSERT_EQ(summary["jobs"].size(), 3u);
  // Manifest order, whatever order the children finished in.
  EXPECT_EQ(summary["jobs"][0]["name"], "missing");
  EXPECT_EQ(summary["jobs"][1]["name"], "broken");
  EXPECT_EQ(summary["jobs"][2]["name"], "skirt_2_panels-mean_all");  // default: pattern and body stems
  EXPECT_EQ(summary["jobs"][0]["line"], 1);
  EXPECT_EQ(summary["jobs"][1]["line"], 3);
  auto jobs = by_name(summary);
  for (const char* bad : {"missing", "broken"}) {
    EXPECT_EQ(jobs[bad]["status"], "failed");
    EXPECT_EQ(jobs[bad]["exit_code"], 2);  // the drape refused its input
    EXPECT_TRUE(jobs[bad]["failures"].empty());
    EXPECT_TRUE(fs::exists(out / bad / "log.txt"));
    EXPECT_FALSE(fs::exists(out / bad / "report.json"));
  }
  const std::string missing_reason = jobs["missing"]["reason"];
  EXPECT_NE(missing_reason.find("bad input"), std::string::npos) << missing_reason;
  EXPECT_NE(missing_reason.find("no_such_pattern.json"), std::string::npos) << missing_reason;
  const std::string broken_reason = jobs["broken"]["reason"];
  EXPECT_NE(broken_reason.find("bad input"), std::string::npos) << broken_reason;
  EXPECT_NE(broken_reason.find("broken.obj"), std::string::npos) << broken_reason;
  const json good = jobs["skirt_2_panels-mean_all"];
  expect_consistent_with_report(good, out / "skirt_2_panels-mean_all");
  EXPECT_EQ(summary["counts"]["failed"], 2);
  if (kSanitized) {
    EXPECT_EQ(summary["counts"]["ok"].get<int>() + summary["counts"]["not_clean"].get<int>(), 1);
  } else {
    EXPECT_EQ(summary["counts"]["ok"], 1);  // the skirt drapes clean (as in Drape.BundledSkirtDrapesClean...)
    EXPECT_EQ(jobs["skirt_2_panels-mean_all"]["status"], "ok");
  }

  // summary.csv: a header and one row per job, same statuses.
  const auto csv = read_lines(out / "summary.csv");
  ASSERT_EQ(csv.size(), 4u);
  EXPECT_EQ(csv[0].rfind("name,status,reason,failures", 0), 0u);
  EXPECT_EQ(csv[1].rfind("missing,failed,", 0), 0u) << csv[1];
  EXPECT_EQ(csv[2].rfind("broken,failed,", 0), 0u) << csv[2];
  EXPECT_EQ(csv[3].rfind("skirt_2_panels-mean_all," + good["status"].get<std::string>() + ",", 0), 0u) << csv[3];
  expect_no_temporaries(out);

  // --resume: the finished job is skipped (its files untouched), only the two failures run again.
  const fs::path good_dir = out / "skirt_2_panels-mean_all";
  const auto report_time = fs::last_write_time(good_dir / "report.json");
  const auto log_time = fs::last_write_time(good_dir / "log.txt");
  const auto missing_log_time = fs::last_write_time(out / "missing/log.txt");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto again = run_tryon("batch " + quoted(dir / "in/jobs.jsonl") + " -o " + quoted(out) + " --resume --quiet");
  EXPECT_EQ(again.code, 1) << again.err;
  const json resumed = read_json(out / "summary.json");
  EXPECT_EQ(resumed["launched"], 2);
  jobs = by_name(resumed);
  EXPECT_EQ(jobs["skirt_2_panels-mean_all"]["status"], "skipped");
  EXPECT_FALSE(jobs["skirt_2_panels-mean_all"]["launched"].get<bool>());
  EXPECT_EQ(jobs["skirt_2_panels-mean_all"]["report_status"], good["report_status"]);
  EXPECT_EQ(jobs["skirt_2_panels-mean_all"]["failures"], good["failures"]);
  EXPECT_EQ(jobs["missing"]["status"], "failed");
  EXPECT_TRUE(jobs["missing"]["launched"].get<bool>());
  EXPECT_EQ(fs::last_write_time(good_dir / "report.json"), report_time);
  EXPECT_EQ(fs::last_write_time(good_dir / "log.txt"), log_time);
  EXPECT_NE(fs::last_write_time(out / "missing/log.txt"), missing_log_time);
  EXPECT_EQ(resumed["counts"]["skipped"], 1);
  expect_no_temporaries(out);
  fs::remove_all(dir);
}

TEST(Batch, CsvManifestWithOptionsAndRefusedJobs) {
  const fs::path dir = scratch("csv");
  const fs::path skirt = skirt_pattern();
  const fs::path body = tryon::test::assets() / "bodies/mean_all.obj";
  // Columns in any order; a quoted cell holds the options object; empty cells are absent.
  write_text(dir / "jobs.csv",
             "name, avatar ,pattern,options\r\n"
             "good," + body.string() + "," + skirt.string() + ",\"{\"\"resolution_cm\"\": 5, \"\"max_frames\"\": 5}\"\r\n"
             "typo," + body.string() + "," + skirt.string() + ",\"{\"\"max_frame\"\": 5}\"\r\n"
             "wrongtype," + body.string() + "," + skirt.string() + ",\"{\"\"preview\"\": \"\"yes\"\"}\"\r\n"
             "..," + body.string() + "," + skirt.string() + ",\r\n"
             "a/b," + body.string() + "," + skirt.string() + ",\r\n"
             "good," + body.string() + "," + skirt.string() + ",\r\n"
             "noavatar,," + skirt.string() + ",\r\n");
  const fs::path out = dir / "out";
  const auto r = run_tryon("batch " + quoted(dir / "jobs.csv") + " -o " + quoted(out) + " --quiet");
  EXPECT_EQ(r.code, 1) << r.err;
  const json summary = read_json(out / "summary.json");
  ASSERT_EQ(summary["jobs"].size(), 7u);
  EXPECT_EQ(summary["launched"], 1);  // the refused jobs never start a process
  const json& j = summary["jobs"];
  expect_consistent_with_report(j[0], out / "good");
  auto expect_refused = [&](const json& e, const std::string& words) {
    EXPECT_EQ(e["status"], "failed") << e.dump();
    EXPECT_FALSE(e["launched"].get<bool>());
    EXPECT_NE(e["reason"].get<std::string>().find(words), std::string::npos) << e["reason"];
  };
  expect_refused(j[1], "unknown option 'max_frame'");
  expect_refused(j[2], "option 'preview' must be true or false");
  expect_refused(j[3], "name '..' is not a folder name");
  expect_refused(j[4], "name 'a/b' contains '/'");
  expect_refused(j[5], "name 'good' is already used by the job on line 2");
  expect_refused(j[6], "no 'avatar' given");
  EXPECT_EQ(j[1]["line"], 3);
  EXPECT_FALSE(fs::exists(out / "typo"));
  EXPECT_FALSE(fs::exists(dir / "b"));
  expect_no_temporaries(out);
  fs::remove_all(dir);
}

TEST(Batch, CrashingAndHangingChildrenAreThatJobsFailure) {
  const fs::path dir = scratch("crash");
  const fs::path body = tryon::test::assets() / "bodies/mean_all.obj";
  // Test hook: the child of job "crasher" dies of SIGSEGV before running the drape. "sleeper"
  // never ends and is killed after its time limit plus the grace; "refused" fails with bad input.
  write_text(dir / "jobs.jsonl",
             "{\"name\": \"crasher\", \"pattern\": \"p.json\", \"avatar\": \"" + body.string() + "\"}\n"
             "{\"name\": \"refused\", \"pattern\": \"p.json\", \"avatar\": \"" + body.string() + "\"}\n");
  // The hook is set through the shell for the batch (and so its children) only.
  const std::string bin = TRYON_BIN;
  auto run_with = [&](const std::string& env, const fs::path& manifest, const fs::path& o, const std::string& extra) {
    const std::string cmd = env + " " + bin + " batch " + quoted(manifest) + " -o " + quoted(o) + " --quiet " + extra +
                            " >/dev/null 2>&1";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(run_with("TRYON_BATCH_TEST_FAULT=crash:crasher", dir / "jobs.jsonl", dir / "out_crash", "--jobs 2"), 1);
  json summary = read_json(dir / "out_crash/summary.json");
  auto jobs = by_name(summary);
  EXPECT_EQ(jobs["crasher"]["status"], "failed");
  EXPECT_EQ(jobs["crasher"]["signal"], "SIGSEGV");
  EXPECT_TRUE(jobs["crasher"]["exit_code"].is_null());
  EXPECT_NE(jobs["crasher"]["reason"].get<std::string>().find("crashed: SIGSEGV"), std::string::npos)
      << jobs["crasher"]["reason"];
  EXPECT_EQ(jobs["refused"]["status"], "failed");  // the other job ran to its own end
  EXPECT_EQ(jobs["refused"]["exit_code"], 2);
  EXPECT_TRUE(summary["finished"].get<bool>());
  // The hook's child began an output file before it crashed: the batch removed the temporary.
  EXPECT_TRUE(fs::exists(dir / "out_crash/crasher/log.txt"));
  expect_no_temporaries(dir / "out_crash");

  write_text(dir / "hang.jsonl",
             "{\"name\": \"sleeper\", \"pattern\": \"p.json\", \"avatar\": \"" + body.string() +
                 "\", \"options\": {\"time_limit\": 0.2}}\n"
             "{\"name\": \"refused\", \"pattern\": \"p.json\", \"avatar\": \"" + body.string() + "\"}\n");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(run_with("TRYON_BATCH_TEST_FAULT=hang:sleeper", dir / "hang.jsonl", dir / "out_hang", "--kill-grace 0.3"), 1);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, 10.0);
  summary = read_json(dir / "out_hang/summary.json");
  jobs = by_name(summary);
  EXPECT_EQ(jobs["sleeper"]["status"], "failed");
  EXPECT_EQ(jobs["sleeper"]["signal"], "SIGKILL");
  EXPECT_NE(jobs["sleeper"]["reason"].get<std::string>().find("timeout"), std::string::npos) << jobs["sleeper"]["reason"];
  EXPECT_GE(jobs["sleeper"]["timings_s"]["wall"].get<double>(), 0.5);
  EXPECT_EQ(jobs["refused"]["status"], "failed");
  EXPECT_EQ(jobs["refused"]["exit_code"], 2);
  expect_no_temporaries(dir / "out_hang");
  fs::remove_all(dir);
}

TEST(Batch, InterruptStopsLaunchingKillsChildrenAndWritesTheSummary) {
  const fs::path dir = scratch("interrupt");
  const fs::path body = tryon::test::assets() / "bodies/mean_all.obj";
  write_text(dir / "jobs.jsonl",
             "{\"name\": \"sleeper\", \"pattern\": \"p.json\", \"avatar\": \"" + body.string() + "\"}\n"
             "{\"name\": \"later\", \"pattern\": \"p.json\", \"avatar\": \"" + body.string() + "\"}\n");
  const fs::path out = dir / "out";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("TRYON_BATCH_TEST_FAULT", "hang:sleeper", 1);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    const std::string m = (dir / "jobs.jsonl").string(), o = out.string();
    ::execl(TRYON_BIN, TRYON_BIN, "batch", m.c_str(), "-o", o.c_str(), "--quiet", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait until the first job is running (the summary says so), then stop the batch.
  bool running = false;
  for (int i = 0; i < 500 && !running; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!fs::exists(out / "summary.json")) continue;
    try {
      running = read_json(out / "summary.json")["jobs"][0]["status"] == "running";
    } catch (const json::exception&) {
      ADD_FAILURE() << "summary.json was not valid JSON while the batch ran";
    }
  }
  ASSERT_TRUE(running);
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const json summary = read_json(out / "summary.json");
  EXPECT_TRUE(summary["interrupted"].get<bool>());
  EXPECT_TRUE(summary["finished"].get<bool>());
  EXPECT_EQ(summary["jobs"][0]["status"], "failed");
  EXPECT_NE(summary["jobs"][0]["reason"].get<std::string>().find("interrupted"), std::string::npos);
  EXPECT_EQ(summary["jobs"][1]["status"], "not_run");
  EXPECT_FALSE(summary["jobs"][1]["launched"].get<bool>());
  EXPECT_FALSE(fs::exists(out / "later"));
  expect_no_temporaries(out);
  fs::remove_all(dir);
}

TEST(Batch, BadManifestsAreExitTwo) {
  const fs::path dir = scratch("bad");
  const fs::path out = dir / "out";
  auto batch = [&](const fs::path& manifest) {
    return run_tryon("batch " + quoted(manifest) + " -o " + quoted(out) + " --quiet");
  };
  EXPECT_EQ(batch(dir / "does_not_exist.jsonl").code, 2);
  write_text(dir / "empty.jsonl", "\n  \n");
  EXPECT_EQ(batch(dir / "empty.jsonl").code, 2);
  write_text(dir / "garbage.txt", "\x01\x02 this is not a manifest\n");
  auto r = batch(dir / "garbage.txt");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("neither JSON Lines nor CSV"), std::string::npos) << r.err;
  write_text(dir / "bad_line.jsonl", "{\"pattern\": \"a.json\", \"avatar\": \"b.obj\"}\n{\"pattern\": \n");
  r = batch(dir / "bad_line.jsonl");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("line 2 is not JSON"), std::string::npos) << r.err;
  write_text(dir / "array.jsonl", "{\"pattern\": \"a.json\", \"avatar\": \"b.obj\"}\n[1, 2]\n");
  EXPECT_EQ(batch(dir / "array.jsonl").code, 2);
  write_text(dir / "header_only.csv", "pattern,avatar\n");
  EXPECT_EQ(batch(dir / "header_only.csv").code, 2);
  write_text(dir / "no_avatar.csv", "pattern,name\na.json,x\n");
  r = batch(dir / "no_avatar.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no 'avatar' column"), std::string::npos) << r.err;
  write_text(dir / "ragged.csv", "pattern,avatar\na.json,b.obj,extra\n");
  EXPECT_EQ(batch(dir / "ragged.csv").code, 2);
  write_text(dir / "open_quote.csv", "pattern,avatar\n\"a.json,b.obj\n");
  EXPECT_EQ(batch(dir / "open_quote.csv").code, 2);
  EXPECT_EQ(batch(dir).code, 2);  // a folder, not a file
  EXPECT_FALSE(fs::exists(out));  // nothing written for a refused manifest
  EXPECT_EQ(run_tryon("batch " + quoted(dir / "empty.jsonl")).code, 2);  // no -o
  EXPECT_EQ(run_tryon("batch " + quoted(dir / "ragged.csv") + " -o " + quoted(out) + " --jobs 0").code, 2);
  fs::remove_all(dir);
}

TEST(Batch, ResumeTrustsOnlyReadableReportsAndExitsZeroWhenEveryJobIsOk) {
  const fs::path dir = scratch("resume");
  const fs::path out = dir / "out";
  // The inputs do not exist: a job that is launched fails, so only skipped jobs can be ok.
  write_text(dir / "jobs.jsonl",
             "{\"name\": \"a\", \"pattern\": \"a.json\", \"avatar\": \"body.obj\"}\n"
             "{\"name\": \"b\", \"pattern\": \"b.json\", \"avatar\": \"body.obj\"}\n");
  const std::string ok_report = R"({"status": "ok", "failures": [], "timings_s": {"total": 1.5}})";
  write_text(out / "a/report.json", ok_report);
  write_text(out / "b/report.json", ok_report);
  const std::string cmd = "batch " + quoted(dir / "jobs.jsonl") + " -o " + quoted(out) + " --resume --quiet";
  auto r = run_tryon(cmd);
  EXPECT_EQ(r.code, 0) << r.err;
  json summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["launched"], 0);
  EXPECT_EQ(summary["counts"]["skipped"], 2);
  EXPECT_EQ(summary["jobs"][0]["timings_s"]["total"], 1.5);

  // A report that says "failed" is still a finished job: skipped, but the batch is not all ok.
  write_text(out / "b/report.json", R"({"status": "failed", "failures": ["not_static"]})");
  r = run_tryon(cmd);
  EXPECT_EQ(r.code, 1);
  summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["launched"], 0);
  EXPECT_EQ(summary["jobs"][1]["status"], "skipped");
  EXPECT_EQ(summary["jobs"][1]["failures"], json::array({"not_static"}));

  // A report that is not JSON is no report: the job runs again, and its stale outputs go.
  write_text(out / "b/report.json", "{\"status\": \"ok\", \"fail");
  write_text(out / "b/garment.obj", "v 0 0 0\n");
  r = run_tryon(cmd);
  EXPECT_EQ(r.code, 1);
  summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["launched"], 1);
  EXPECT_EQ(summary["jobs"][0]["status"], "skipped");
  EXPECT_EQ(summary["jobs"][1]["status"], "failed");
  EXPECT_FALSE(fs::exists(out / "b/report.json"));
  EXPECT_FALSE(fs::exists(out / "b/garment.obj"));

  // Without --resume every job runs again.
  r = run_tryon("batch " + quoted(dir / "jobs.jsonl") + " -o " + quoted(out) + " --quiet");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(read_json(out / "summary.json")["launched"], 2);
  EXPECT_FALSE(fs::exists(out / "a/report.json"));
  fs::remove_all(dir);
}
