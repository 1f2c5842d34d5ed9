// `tryon batch`: the manifest read into entries, and the entries checked and planned as jobs.
//
// Manifest: JSON Lines (one object a line) or CSV with a header row, keys
//   pattern, avatar (required; relative paths are relative to the manifest's folder),
//   name, material, options (an object of drape options, in CSV a JSON object in one cell).
// A line that is not JSON / a CSV row with the wrong number of cells makes the whole manifest bad
// (exit 2: we cannot know what it meant); a readable line with a wrong key, value or name is a
// failed job, recorded in the summary, and the others run.
#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "apps/batch.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace tryon::apps::batch {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// ---------------------------------------------------------------------------------------------
// Manifest reading: text → one JSON object per job (with its line number).

namespace {

const std::vector<std::string>& manifest_keys() {
  static const std::vector<std::string> keys = {"pattern", "avatar", "name", "material", "options"};
  return keys;
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

}  // namespace

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

namespace {

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
    {"facing", "--facing", OptionKind::text},
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

}  // namespace

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

}  // namespace tryon::apps::batch
