// `tryon view OUTDIR [--port N] [--host ADDR] [--html FILE]`: the fit viewer (web/viewer.js,
// three.js) on a drape's or a batch's output folder, served by a small local HTTP server
// (cpp-httplib, bound to 127.0.0.1 unless told otherwise, serving only OUTDIR and the viewer),
// or written as one self-contained HTML page.
#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace tryon::apps {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct ViewCommand {
  std::string outdir, html, host = "127.0.0.1";
  int port = 8765;
};

/// One drape's output: a folder with garment.glb (and report.json).
struct Job {
  std::string name;  ///< the folder's name
  fs::path dir;
  bool top = false;  ///< OUTDIR itself (a drape's folder), not one of its jobs (a batch's)
};

std::string read_whole(const fs::path& p) { return read_text_file(p, "viewer file"); }

// OUTDIR itself when it holds garment.glb, else its sub-folders that do (a batch), by name.
std::vector<Job> find_jobs(const fs::path& outdir) {
  if (!fs::is_directory(outdir)) throw InputError("view: no such folder: " + outdir.string());
  if (fs::is_regular_file(outdir / "garment.glb")) {
    fs::path p = fs::absolute(outdir).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();  // "out/"
    return {{p.filename().string(), outdir, true}};
  }
  std::vector<Job> jobs;
  for (const auto& e : fs::directory_iterator(outdir))
    if (e.is_directory() && fs::is_regular_file(e.path() / "garment.glb"))
      jobs.push_back({e.path().filename().string(), e.path(), false});
  std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.name < b.name; });
  if (jobs.empty()) {
    const bool obj = fs::is_regular_file(outdir / "garment.obj");
    throw InputError("view: no garment.glb in " + outdir.string() + " or its job folders" +
                     (obj ? " (it holds garment.obj: drape with --format glb for the viewer)" : ""));
  }
  return jobs;
}

// The folder of viewer.html and viewer.js: $TRYON_WEB_DIR, else beside an installed tryon
// (PREFIX/share/tryon/web), else the build tree's web/.
fs::path web_dir() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("TRYON_WEB_DIR")) candidates.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share" / "tryon" / "web");
  candidates.emplace_back(TRYON_WEB_BUILD_DIR);
  for (const fs::path& d : candidates)
    if (fs::is_regular_file(d / "viewer.html") && fs::is_regular_file(d / "viewer.js")) return d;
  throw InputError("view: the viewer page is not built (viewer.js and viewer.html not found in $TRYON_WEB_DIR, "
                   "PREFIX/share/tryon/web or " TRYON_WEB_BUILD_DIR "); run scripts/setup.sh, which installs "
                   "three.js with npm ci --prefix web and builds it");
}

std::string with_scripts(std::string page, const std::string& scripts) {
  const std::string marker = "<!-- TRYON_SCRIPTS -->";
  const std::size_t at = page.find(marker);
  if (at == std::string::npos) throw InputError("view: viewer.html has no " + marker + " marker");
  return page.replace(at, marker.size(), scripts);
}

// Text that may sit inside a <script> element: "</" cannot end it early.
std::string script_safe(std::string text) {
  for (std::size_t at = 0; (at = text.find("</", at)) != std::string::npos; at += 3) text.replace(at, 2, "<\\/");
  return text;
}

std::string base64(const std::string& bytes) {  // RFC 4648, with padding
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 3; ++k) v = v << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? digits[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

json report_of(const Job& job) {
  const fs::path p = job.dir / "report.json";
  if (!fs::is_regular_file(p)) return nullptr;
  json r = json::parse(read_whole(p), nullptr, false);
  return r.is_discarded() ? json(nullptr) : r;
}

// The page with the viewer, every job's GLB and report inlined.
std::string self_contained_page(const fs::path& web, const std::vector<Job>& jobs) {
  json data = {{"jobs", json::array()}};
  for (const Job& j : jobs)
    data["jobs"].push_back(
        {{"name", j.name}, {"glb_base64", base64(read_whole(j.dir / "garment.glb"))}, {"report_json", report_of(j)}});
  const std::string scripts = "<script>window.TRYON_DATA = " + script_safe(data.dump()) + ";</script>\n" +
                              "<script type=\"module\">\n" + script_safe(read_whole(web / "viewer.js")) + "\n</script>";
  return with_scripts(read_whole(web / "viewer.html"), scripts);
}

std::string url_path(const std::string& name) {  // percent-encodes all but RFC 3986 unreserved
  std::string out;
  for (const unsigned char c : name) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

json jobs_index(const std::vector<Job>& jobs) {
  json index = json::array();
  for (const Job& j : jobs) {
    const std::string base = j.top ? "files/" : "files/" + url_path(j.name) + "/";
    index.push_back({{"name", j.name},
                     {"glb", base + "garment.glb"},
                     {"report", fs::is_regular_file(j.dir / "report.json") ? json(base + "report.json") : json(nullptr)}});
  }
  return index;
}

int serve(const ViewCommand& o, const fs::path& web, const std::vector<Job>& jobs) {
  const std::string page = with_scripts(read_whole(web / "viewer.html"), "<script type=\"module\" src=\"viewer.js\"></script>");
  const std::string script = read_whole(web / "viewer.js");
  const fs::path root = fs::absolute(o.outdir);
  httplib::Server server;
  server.Get("/", [&](const httplib::Request&, httplib::Response& res) { res.set_content(page, "text/html; charset=utf-8"); });
  server.Get("/viewer.js", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(script, "text/javascript; charset=utf-8");
  });
  server.Get("/jobs.json", [&](const httplib::Request&, httplib::Response& res) {
    try {  // found again: a batch may still be adding jobs
      res.set_content(jobs_index(find_jobs(root)).dump(), "application/json");
    } catch (const InputError& e) {
      res.status = 404;
      res.set_content(e.what(), "text/plain; charset=utf-8");
    }
  });
  if (!server.set_mount_point("/files", root.string())) throw InputError("view: cannot serve " + root.string());
  server.set_file_extension_and_mimetype_mapping("glb", "model/gltf-binary");
  const int port = o.port == 0 ? server.bind_to_any_port(o.host) : (server.bind_to_port(o.host, o.port) ? o.port : -1);
  if (port < 0) throw InputError("view: cannot listen on " + o.host + ":" + std::to_string(o.port) + " (in use? try --port 0)");
  std::printf("tryon view: %zu job%s of %s at http://%s:%d/ (Ctrl-C stops)\n", jobs.size(), jobs.size() == 1 ? "" : "s",
              root.string().c_str(), o.host.c_str(), port);
  std::fflush(stdout);
  return server.listen_after_bind() ? kExitOk : kExitInternal;
}

int run_view(const ViewCommand& o) {
  const std::vector<Job> jobs = find_jobs(o.outdir);
  const fs::path web = web_dir();
  if (!o.html.empty()) {
    write_file_atomic(o.html, self_contained_page(web, jobs));
    std::fprintf(stderr, "view: wrote %s (%zu job%s)\n", o.html.c_str(), jobs.size(), jobs.size() == 1 ? "" : "s");
    return kExitOk;
  }
  return serve(o, web, jobs);
}

}  // namespace

void add_view_command(CLI::App& app, std::function<int()>& run) {
  auto opts = std::make_shared<ViewCommand>();
  CLI::App* cmd = app.add_subcommand("view", "look at a drape (or a batch's drapes) in 3D in a web browser: "
                                             "fit maps, panels, seams, the report");
  cmd->add_option("outdir", opts->outdir, "output folder of tryon drape --format glb, or of tryon batch")->required();
  cmd->add_option("--port", opts->port, "port to serve on (0: any free port)")->check(CLI::Range(0, 65535));
  cmd->add_option("--host", opts->host, "address to listen on (127.0.0.1: this machine only)");
  cmd->add_option("--html", opts->html, "write one self-contained HTML page (viewer and data inlined) instead of serving");
  cmd->callback([opts, &run] { run = [opts] { return run_view(*opts); }; });
}

}  // namespace tryon::apps
