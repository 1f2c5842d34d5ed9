// `tryon batch`: each job's outcome, and the summary files OUTDIR/summary.json and summary.csv.
#include <signal.h>

#include <cstring>
#include <string>
#include <vector>

#include "apps/batch.hpp"
#include "core/files.hpp"

namespace tryon::apps::batch {

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
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

namespace {

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

}  // namespace

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

}  // namespace tryon::apps::batch
