// `tryon batch MANIFEST -o OUTDIR [--jobs N] [--resume] [--quiet]`: many drapes, each one a
// child process running `tryon drape`, so that bad input, a crash or a hang is that job's failure
// and never stops the others. Writes OUTDIR/<name>/{garment.obj, report.json, log.txt} per job and
// OUTDIR/summary.json + OUTDIR/summary.csv, rewritten whole (temporary file + rename) after every
// job, so an interrupted batch still leaves a valid summary.
//
// Manifest: JSON Lines (one object a line) or CSV with a header row, keys
//   pattern, avatar (required; relative paths are relative to the manifest's folder),
//   name, material, options (an object of drape options, in CSV a JSON object in one cell).
// A line that is not JSON / a CSV row with the wrong number of cells makes the whole manifest bad
// (exit 2: we cannot know what it meant); a readable line with a wrong key, value or name is a
// failed job, recorded in the summary, and the others run.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "apps/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/logger.hpp"
#include "core/progress.hpp"

namespace tryon::apps {
namespace {

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

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// ---------------------------------------------------------------------------------------------
// Manifest reading: text → one JSON object per job (with its line number).

struct ManifestEntry {
  int line = 0;  // 1-based line of the job in the manifest
  json fields;   // object; CSV cells become strings, "options" a parsed object when it parses
};

const std::vector<std::string>& manifest_keys() {
  static const std::vector<std::string> keys = {"pattern", "avatar", "name", "material", "options"};
  return keys;
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<ManifestEntry> parse_json_lines(const std::string& text, const std::string& where) {
  std::vector<ManifestEntry> entries;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (trim(line).empty()) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::parse_error& e) {
      throw InputError("manifest '" + where + "' line " + std::to_string(n) + " is not JSON (" + e.what() +
                       "); a JSON Lines manifest has one job object per line");
    }
    if (!j.is_object())
      throw InputError("manifest '" + where + "' line " + std::to_string(n) + " is not a JSON object");
    entries.push_back({n, std::move(j)});
  }
  return entries;
}

/// Splits CSV text (RFC 4180: commas, double-quoted cells with "" for a quote, CRLF or LF) into
/// records; each record keeps the line it starts on.
std::vector<std::pair<int, std::vector<std::string>>> split_csv(const std::string& text, const std::string& where) {
  std::vector<std::pair<int, std::vector<std::string>>> records;
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false, cell_was_quoted = false, any = false;
  int line = 1, record_line = 1;
  auto end_cell = [&] {
    cells.push_back(cell_was_quoted ? cell : trim(cell));
    cell.clear();
    cell_was_quoted = false;
  };
  auto end_record = [&] {
    end_cell();
    const bool blank = cells.size() == 1 && cells[0].empty();
    if (!blank) records.emplace_back(record_line, std::move(cells));
    cells.clear();
    any = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
      continue;
    }
    if (!any) record_line = line;
    any = true;
    if (c == '"' && trim(cell).empty()) {
      quoted = cell_was_quoted = true;
      cell.clear();
    } else if (c == ',') {
      end_cell();
    } else if (c == '\n') {
      end_record();
      ++line;
    } else if (c != '\r') {
      cell += c;
    }
  }
  if (quoted) throw InputError("manifest '" + where + "': a quoted CSV cell is never closed");
  if (any) end_record();
  return records;
}

std::vector<ManifestEntry> parse_csv(const std::string& text, const std::string& where) {
  const auto records = split_csv(text, where);
  if (records.empty()) throw InputError("manifest '" + where + "' has no jobs");
  const std::vector<std::string>& header = records[0].second;
  std::string known;
  for (const auto& k : manifest_keys()) known += (known.empty() ? "" : ", ") + k;
  for (const auto& h : header)
    if (std::find(manifest_keys().begin(), manifest_keys().end(), h) == manifest_keys().end())
      throw InputError("manifest '" + where + "' is neither JSON Lines nor CSV with a header row: column '" + h +
                       "' is not one of " + known);
  for (const char* required : {"pattern", "avatar"})
    if (std::find(header.begin(), header.end(), required) == header.end())
      throw InputError("manifest '" + where + "': the CSV header has no '" + required + "' column");
  std::vector<ManifestEntry> entries;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const auto& [line, cells] = records[r];
    if (cells.size() != header.size())
      throw InputError("manifest '" + where + "' line " + std::to_string(line) + " has " +
                       std::to_string(cells.size()) + " cells, the header " + std::to_string(header.size()));
    json fields = json::object();
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (cells[c].empty()) continue;
      if (header[c] == "options") {
        // Not JSON: kept as a string, which the job check refuses (a failed job, not a failed batch).
        json parsed = json::parse(cells[c], nullptr, false);
        fields["options"] = parsed.is_discarded() ? json(cells[c]) : parsed;
      } else {
        fields[header[c]] = cells[c];
      }
    }
    entries.push_back({line, std::move(fields)});
  }
  return entries;
}

/// JSON Lines when the first non-blank character opens an object, CSV otherwise.
std::vector<ManifestEntry> read_manifest(const fs::path& path) {
  const std::string text = read_text_file(path, "manifest", std::size_t{64} << 20);
  const std::string where = path.string();
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw InputError("manifest '" + where + "' is empty: no jobs");
  std::vector<ManifestEntry> entries =
      text[first] == '{' ? parse_json_lines(text, where) : parse_csv(text, where);
  if (entries.empty()) throw InputError("manifest '" + where + "' has no jobs");
  return entries;
}

// ---------------------------------------------------------------------------------------------
// Jobs: a manifest entry checked and turned into `tryon drape` arguments.

struct Job {
  int line = 0;
  std::string name;                   // folder under OUTDIR
  std::string pattern, avatar;        // as resolved (absolute when relative to the manifest)
  std::vector<std::string> options;   // drape flags after PATTERN --avatar BODY -o DIR
  double time_limit_s = 0;            // the drape's own --time-limit (0: none)
  std::string error;                  // refused before launch: recorded as failed, never run
};

enum class OptionKind { number, integer, text, path_or_name, flag_if_true, flag_if_false };
struct OptionSpec {
  const char* key;
  const char* flag;
  OptionKind kind;
};
// The drape options a job may set (apps/drape.cpp); anything else is refused.
constexpr OptionSpec kOptions[] = {
    {"resolution_cm", "--resolution-cm", OptionKind::number},
    {"max_frames", "--max-frames", OptionKind::integer},
    {"substeps", "--substeps", OptionKind::integer},
    {"integrator", "--integrator", OptionKind::text},
    {"material", "--material", OptionKind::path_or_name},
    {"threads", "--threads", OptionKind::integer},
    {"time_limit", "--time-limit", OptionKind::number},
    {"preview", "--preview", OptionKind::flag_if_true},
    {"format", "--format", OptionKind::text},
    {"fit_map", "--fit-map", OptionKind::text},
    {"seams", "--seams", OptionKind::text},
    {"coarse_start_cm", "--coarse-start-cm", OptionKind::number},
    {"self_collision", "--no-self-collision", OptionKind::flag_if_false},
    {"contact", "--no-contact", OptionKind::flag_if_false},
    {"with_body", "--with-body", OptionKind::flag_if_true},
    {"up", "--up", OptionKind::text},
    {"size", "--size", OptionKind::text},                    // DXF: graded size
    {"seam_file", "--seam-file", OptionKind::path_or_name},  // DXF: seam file (relative to the manifest)
};

// The option a key names, or null.
const OptionSpec* option_spec(const std::string& key) {
  const auto it = std::find_if(std::begin(kOptions), std::end(kOptions), [&](const OptionSpec& s) { return key == s.key; });
  return it == std::end(kOptions) ? nullptr : &*it;
}

/// Relative paths are relative to the manifest's folder.
std::string resolve(const std::string& p, const fs::path& base) {
  const fs::path path(p);
  return (path.is_absolute() ? path : base / path).lexically_normal().string();
}

/// A material is a preset name or a JSON file; only what looks like a file is resolved.
std::string resolve_material(const std::string& m, const fs::path& base) {
  const bool file_like = m.find('/') != std::string::npos || fs::path(m).extension() == ".json";
  return file_like ? resolve(m, base) : m;
}

/// Turns one option value into drape arguments; throws InputError naming the problem.
void add_option(const OptionSpec& spec, const json& v, const fs::path& base, std::vector<std::string>& args) {
  const std::string key = spec.key;
  switch (spec.kind) {
    case OptionKind::number:
      if (!v.is_number()) throw InputError("option '" + key + "' must be a number, not " + v.dump());
      args.insert(args.end(), {spec.flag, v.dump()});
      return;
    case OptionKind::integer:
      if (!v.is_number_integer()) throw InputError("option '" + key + "' must be an integer, not " + v.dump());
      args.insert(args.end(), {spec.flag, v.dump()});
      return;
    case OptionKind::text:
    case OptionKind::path_or_name:
      if (!v.is_string() || v.get<std::string>().empty())
        throw InputError("option '" + key + "' must be a non-empty string, not " + v.dump());
      args.insert(args.end(), {spec.flag, spec.kind == OptionKind::path_or_name
                                              ? resolve_material(v.get<std::string>(), base)
                                              : v.get<std::string>()});
      return;
    case OptionKind::flag_if_true:
    case OptionKind::flag_if_false:
      if (!v.is_boolean()) throw InputError("option '" + key + "' must be true or false, not " + v.dump());
      if (v.get<bool>() == (spec.kind == OptionKind::flag_if_true)) args.emplace_back(spec.flag);
      return;
  }
}

/// A job name is a folder under OUTDIR: one path component, not hidden, not the summary.
std::string name_problem(const std::string& name) {
  if (name.empty()) return "is empty";
  if (name.size() > 200) return "is longer than 200 characters";
  if (name == "." || name == "..") return "is not a folder name";
  if (name[0] == '.') return "starts with '.' (reserved for temporary files)";
  for (const char c : name)
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return "contains '/', '\\' or a control character";
  if (name == "summary.json" || name == "summary.csv") return "is the summary's file name";
  return {};
}

/// Default name: the pattern's and the body's file stems, with anything unusual replaced by '_'.
std::string default_name(const std::string& pattern, const std::string& avatar) {
  auto clean = [](std::string s) {
    for (char& c : s)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
    while (!s.empty() && s[0] == '.') s[0] = '_';
    return s.empty() ? std::string("job") : s;
  };
  return clean(fs::path(pattern).stem().string()) + "-" + clean(fs::path(avatar).stem().string());
}

/// Checks one entry and builds its drape arguments (everything but the name, set by make_jobs).
Job make_job(const ManifestEntry& e, const fs::path& base) {
  Job job;
  job.line = e.line;
  try {
    const json& f = e.fields;
    for (const auto& [key, value] : f.items())
      if (std::find(manifest_keys().begin(), manifest_keys().end(), key) == manifest_keys().end())
        throw InputError("unknown key '" + key + "' (a job has pattern, avatar, name, material, options)");
    for (const char* key : {"pattern", "avatar"}) {
      if (!f.contains(key)) throw InputError(std::string("no '") + key + "' given");
      if (!f[key].is_string() || f[key].get<std::string>().empty())
        throw InputError(std::string("'") + key + "' must be a file path");
    }
    job.pattern = resolve(f["pattern"].get<std::string>(), base);
    job.avatar = resolve(f["avatar"].get<std::string>(), base);
    if (f.contains("material")) {
      if (f.contains("options") && f["options"].is_object() && f["options"].contains("material"))
        throw InputError("'material' given both as a key and as an option");
      add_option(*option_spec("material"), f["material"], base, job.options);
    }
    if (f.contains("options")) {
      const json& o = f["options"];
      if (!o.is_object()) throw InputError("'options' must be a JSON object, not " + o.dump());
      for (const auto& [key, value] : o.items()) {
        const OptionSpec* spec = option_spec(key);
        if (!spec) {
          std::string known;
          for (const auto& s : kOptions) known += (known.empty() ? "" : ", ") + std::string(s.key);
          throw InputError("unknown option '" + key + "' (drape options: " + known + ")");
        }
        add_option(*spec, value, base, job.options);
        if (key == "time_limit") job.time_limit_s = value.get<double>();
      }
    }
  } catch (const InputError& err) {
    job.error = err.what();
  }
  return job;
}

/// Names every job: explicit names are checked (safe, unique); default names are made unique by
/// a "-2", "-3"... suffix in manifest order.
std::vector<Job> make_jobs(const std::vector<ManifestEntry>& entries, const fs::path& base) {
  std::vector<Job> jobs;
  std::map<std::string, int> taken;  // name → line
  for (const auto& e : entries) {
    Job job = make_job(e, base);
    if (e.fields.contains("name")) {
      const json& n = e.fields["name"];
      job.name = n.is_string() ? n.get<std::string>() : n.dump();
      if (!n.is_string()) {
        if (job.error.empty()) job.error = "'name' must be a string";
      } else if (const std::string problem = name_problem(job.name); !problem.empty()) {
        if (job.error.empty()) job.error = "name '" + job.name + "' " + problem;
      } else if (taken.count(job.name)) {
        if (job.error.empty())
          job.error = "name '" + job.name + "' is already used by the job on line " + std::to_string(taken[job.name]);
      } else {
        taken[job.name] = e.line;
      }
    }
    jobs.push_back(std::move(job));
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (entries[i].fields.contains("name")) continue;
    const std::string stem = jobs[i].error.empty() || !jobs[i].pattern.empty()
                                 ? default_name(jobs[i].pattern, jobs[i].avatar)
                                 : "line" + std::to_string(jobs[i].line);
    std::string name = stem;
    for (int k = 2; taken.count(name); ++k) name = stem + "-" + std::to_string(k);
    taken[name] = jobs[i].line;
    jobs[i].name = name;
  }
  return jobs;
}

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

std::optional<json> read_report(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  try {
    json j = json::parse(read_text_file(path, "report"));
    if (j.is_object()) return j;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Per-job outcome and the summary files.

struct Outcome {
  std::string status = "pending";  // pending, running, ok, not_clean, failed, skipped, not_run
  std::string reason;
  std::optional<int> exit_code;
  std::string signal;
  double wall_s = 0;
  bool launched = false;
  std::optional<json> report;
};

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

json summary_entry(const Job& job, const Outcome& o) {
  json timings = o.report && (*o.report).contains("timings_s") ? (*o.report)["timings_s"] : json::object();
  if (o.launched) timings["wall"] = o.wall_s;
  json e = {{"name", job.name},
            {"line", job.line},
            {"status", o.status},
            {"reason", o.reason},
            {"failures", o.report && (*o.report).contains("failures") ? (*o.report)["failures"] : json::array()},
            {"timings_s", timings},
            {"exit_code", o.exit_code ? json(*o.exit_code) : json(nullptr)},
            {"signal", o.signal.empty() ? json(nullptr) : json(o.signal)},
            {"launched", o.launched},
            {"pattern", job.pattern},
            {"avatar", job.avatar},
            {"report_status", o.report && (*o.report).contains("status") ? (*o.report)["status"] : json(nullptr)}};
  return e;
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string summary_csv(const json& jobs) {
  auto number = [](const json& t, const char* key) {
    return t.contains(key) && t[key].is_number() ? t[key].dump() : std::string();
  };
  std::string out = "name,status,reason,failures,exit_code,signal,wall_s,total_s,pattern,avatar\n";
  for (const json& j : jobs) {
    std::string failures;
    for (const json& f : j["failures"]) {
      if (!failures.empty()) failures += ';';
      failures += f.get<std::string>();
    }
    const std::vector<std::string> cells = {
        j["name"].get<std::string>(),  j["status"].get<std::string>(),
        j["reason"].get<std::string>(), failures,
        j["exit_code"].is_null() ? std::string() : j["exit_code"].dump(),
        j["signal"].is_null() ? std::string() : j["signal"].get<std::string>(),
        number(j["timings_s"], "wall"), number(j["timings_s"], "total"),
        j["pattern"].get<std::string>(), j["avatar"].get<std::string>()};
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += ',';
      out += csv_cell(cells[c]);
    }
    out += '\n';
  }
  return out;
}

struct Counts {
  int ok = 0, not_clean = 0, failed = 0, skipped = 0, not_run = 0, pending = 0;  // pending: not finished yet
};

Counts count(const std::vector<Outcome>& outcomes) {
  Counts c;
  for (const auto& o : outcomes) {
    if (o.status == "ok") ++c.ok;
    else if (o.status == "not_clean") ++c.not_clean;
    else if (o.status == "failed") ++c.failed;
    else if (o.status == "skipped") ++c.skipped;
    else if (o.status == "not_run") ++c.not_run;
    else ++c.pending;
  }
  return c;
}

void write_summary(const fs::path& outdir, const fs::path& manifest, const std::vector<Job>& jobs,
                   const std::vector<Outcome>& outcomes, bool finished, bool interrupted, double wall_s) {
  json list = json::array();
  int launched = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    list.push_back(summary_entry(jobs[i], outcomes[i]));
    launched += outcomes[i].launched;
  }
  const Counts c = count(outcomes);
  const json summary = {
      {"manifest", manifest.string()},
      {"finished", finished},
      {"interrupted", interrupted},
      {"launched", launched},
      {"counts", {{"ok", c.ok}, {"not_clean", c.not_clean}, {"failed", c.failed}, {"skipped", c.skipped},
                  {"not_run", c.not_run}, {"pending", c.pending}}},
      {"wall_s", wall_s},
      {"jobs", list}};
  write_file_atomic(outdir / "summary.json", summary.dump(2) + "\n");
  write_file_atomic(outdir / "summary.csv", summary_csv(list));
}

// ---------------------------------------------------------------------------------------------
// The batch loop.

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
  {
    std::error_code ec;
    fs::create_directories(outdir, ec);
    if (ec || !fs::is_directory(outdir))
      throw InputError("cannot create the output folder '" + outdir.string() + "'" + (ec ? ": " + ec.message() : ""));
  }

  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int threads_per_job = std::max(1, cores / o.jobs);
  std::vector<Outcome> outcomes(jobs.size());
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
  logger().info("batch: {} jobs from '{}', {} to run, {} at once with {} threads each", jobs.size(), manifest.string(),
                queue.size(), o.jobs, threads_per_job);

  struct sigaction act {}, old_int{}, old_term{};
  act.sa_handler = on_stop_signal;
  sigemptyset(&act.sa_mask);
  ::sigaction(SIGINT, &act, &old_int);
  ::sigaction(SIGTERM, &act, &old_term);
  // Children must stay waitable: an inherited SIGCHLD = SIG_IGN would have them reaped unseen.
  struct sigaction chld {}, old_chld{};
  chld.sa_handler = SIG_DFL;
  sigemptyset(&chld.sa_mask);
  ::sigaction(SIGCHLD, &chld, &old_chld);
  g_stop_signal = 0;

  ProgressBar bar("batch", static_cast<double>(std::max<std::size_t>(queue.size(), 1)), !o.quiet);
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  std::vector<Running> running;
  std::size_t next = 0, done = 0;
  double finished_wall_s = 0;  // summed wall time of the jobs finished so far, for the ETA
  auto status_text = [&] {
    const Counts c = count(outcomes);
    char text[200];
    std::snprintf(text, sizeof text, "%zu/%zu done: %d ok, %d not clean, %d failed, %zu running", done, queue.size(),
                  c.ok, c.not_clean, c.failed, running.size());
    std::string s = text;
    const std::size_t left = queue.size() - done;
    if (!tty && done > 0 && left > 0 && g_stop_signal == 0) {  // a terminal's bar shows its own
      // Mean job time so far, times the rounds of --jobs parallel jobs still to come.
      const double rounds = std::ceil(static_cast<double>(left) / o.jobs);
      std::snprintf(text, sizeof text, ", ETA %.0f s", finished_wall_s / static_cast<double>(done) * rounds);
      s += text;
    }
    return s;
  };
  auto save = [&](bool finished) {
    try {
      write_summary(outdir, manifest, jobs, outcomes, finished, g_stop_signal != 0, since(t_start));
    } catch (const std::exception& e) {
      logger().error("batch: {}", e.what());
    }
  };
  save(false);

  while (true) {
    while (g_stop_signal == 0 && running.size() < static_cast<std::size_t>(o.jobs) && next < queue.size()) {
      const std::size_t i = queue[next++];
      Outcome& out = outcomes[i];
      std::string error;
      const Running r = start_job(i, jobs[i], outdir, o, threads_per_job, error);
      out.launched = r.pid > 0;
      if (r.pid < 0) {
        out.status = "failed";
        out.reason = error;
        ++done;
        save(false);
        continue;
      }
      out.status = "running";
      running.push_back(r);
      save(false);
    }
    if (running.empty()) break;

    bool changed = false;
    for (std::size_t k = 0; k < running.size();) {
      Running& r = running[k];
      int wstatus = 0;
      const pid_t w = ::waitpid(r.pid, &wstatus, WNOHANG);
      if (w == r.pid) {
        Outcome& out = outcomes[r.job];
        finish_job(r, wstatus, outdir / jobs[r.job].name, o, out);
        finished_wall_s += out.wall_s;
        ++done;
        changed = true;
        if (!o.quiet) {
          const std::string line = jobs[r.job].name + ": " + out.status + (out.reason.empty() ? "" : " (" + out.reason + ")");
          std::fprintf(stderr, "%s%s\n", tty ? "\r\033[K" : "", line.c_str());
        }
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
        continue;
      }
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
      ++k;
    }
    if (changed) save(false);
    bar.update(static_cast<double>(done), status_text());
    if (!changed) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  for (std::size_t i = 0; i < outcomes.size(); ++i)
    if (outcomes[i].status == "pending") {
      outcomes[i].status = "not_run";
      outcomes[i].reason = "the batch was stopped by " + signal_name(g_stop_signal) + " before this job started";
    }
  const bool interrupted = g_stop_signal != 0;
  bar.finish(status_text());
  save(true);
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  ::sigaction(SIGCHLD, &old_chld, nullptr);

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

void add_batch_command(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<BatchCommand>();
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
  cmd->callback([o, &run] { run = [o] { return run_batch(*o); }; });
}

}  // namespace tryon::apps
