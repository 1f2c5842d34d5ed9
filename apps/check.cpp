// `tryon check CLOTH --avatar BODY [--rest REST.obj] [--previous PREV.obj]`: the quality
// metrics of any cloth mesh (ours or a peer's) against a body, as JSON on stdout, and a verdict
// line on stderr. Clean: no body or self intersection, no vertex inside the body, seams closed
// (gap < 1 mm) and, only when --previous gives the cloth 1/60 s earlier, at rest. One mesh alone
// cannot show motion: without --previous the verdict leaves it out and says so.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "avatars/avatar.hpp"
#include "outputs/fit_maps.hpp"
#include "outputs/preview.hpp"
#include "tryon/tryon.hpp"

namespace tryon::apps {
namespace {

struct CheckCommand {
  std::string cloth, avatar, rest, previous, preview, up = "auto", facing = "auto";
};

/// What the checker found against a clean drape, in the drape report's words.
struct Verdict {
  std::vector<std::string> failures;  ///< body_intersection, ..., not_static (only when motion is judged)
  std::vector<std::string> reasons;   ///< the same, for people ("3 body intersections")
  std::string motion;                 ///< "static", "moving" or "not judged (no --previous)"
  bool clean() const { return failures.empty(); }
};

Verdict judge(const quality::Quality& q) {
  Verdict v;
  auto fail = [&](const char* failure, const std::string& reason) {
    v.failures.emplace_back(failure);
    v.reasons.push_back(reason);
  };
  if (q.body_intersections > 0)
    fail("body_intersection", std::to_string(q.body_intersections) + " cloth edges through the body");
  if (q.vertices_inside_body > 0)
    fail("vertices_inside_body", std::to_string(q.vertices_inside_body) + " vertices inside the body");
  if (q.self_intersections > 0)
    fail("self_intersection", std::to_string(q.self_intersections) + " cloth edges through the cloth");
  if (!(q.seam_gap_max_m < 1e-3)) {
    char gap[64];
    std::snprintf(gap, sizeof gap, "seams open by up to %.1f mm", q.seam_gap_max_m * 1000);
    fail("seam_gap", gap);
  }
  if (!q.is_static) {
    v.motion = "not judged (no --previous)";
  } else if (*q.is_static) {
    v.motion = "static";
  } else {
    v.motion = "moving";
    char moving[80];
    std::snprintf(moving, sizeof moving, "still moving (%.1f %% of vertices moved over 0.3 mm)",
                  100 * q.moving_fraction.value_or(0));
    fail("not_static", moving);
  }
  return v;
}

/// "check: CLOTH on BODY: clean (at rest)", "...: NOT clean: reason, reason", and when there is
/// no --previous "(motion not judged: no --previous)".
std::string verdict_line(const std::string& cloth, const std::string& body, const Verdict& v) {
  namespace fs = std::filesystem;
  std::string line = "check: " + fs::path(cloth).filename().string() + " on " + fs::path(body).filename().string() + ": ";
  if (v.clean()) {
    line += "clean";
  } else {
    line += "NOT clean:";
    for (std::size_t i = 0; i < v.reasons.size(); ++i) line += (i ? ", " : " ") + v.reasons[i];
  }
  if (v.motion == "static") return line + " (at rest)";
  if (v.motion == "moving") return line;
  return line + " (motion not judged: no --previous)";
}

// The cloth on the body, in strain colours when rest coordinates are known (else one colour).
void write_check_preview(const CheckCommand& o, const avatars::Avatar& body, const CheckResult& r, bool clean) {
  const quality::Cloth& c = r.cloth;
  const bool has_rest = c.rest.rows() == c.V.rows();
  const outputs::FitMap map = has_rest ? outputs::FitMap::strain : outputs::FitMap::none;
  std::vector<outputs::Rgb> colors;
  outputs::PreviewOptions po;
  po.title = std::filesystem::path(o.cloth).filename().string() + " ON " + body.name + (clean ? "" : " (NOT CLEAN)");
  if (has_rest) {
    outputs::FitMaps maps;
    maps.strain = outputs::vertex_strain(c.V, c.F, c.rest);
    colors = outputs::fit_map_colors(maps, map);
    po.legend_note = outputs::legend_range_note(maps, map);
  }
  outputs::write_preview(o.preview, body.mesh, TriMesh{c.V, c.F, {}}, colors, map, po);
}

int run_check(const CheckCommand& o) {
  avatars::AvatarOptions aopt;
  aopt.up = parse_up_axis(o.up);
  aopt.detect_facing = o.facing == "auto";
  CheckFiles files;
  files.rest = o.rest;
  files.previous = o.previous;
  const avatars::Avatar body = avatars::load_avatar(o.avatar, aopt);
  const CheckResult r = tryon::check(o.cloth, body, files);
  const Verdict verdict = judge(r.quality);
  if (!o.preview.empty()) write_check_preview(o, body, r, verdict.clean());
  nlohmann::json doc = r.report;
  doc["avatar"] = o.avatar;
  doc["clean"] = verdict.clean();
  doc["verdict"] = verdict.clean() ? "clean" : "not clean";
  doc["failures"] = verdict.failures;
  doc["motion"] = verdict.motion;
  std::cout << doc.dump(2) << "\n";
  std::fprintf(stderr, "%s\n", verdict_line(o.cloth, o.avatar, verdict).c_str());
  return verdict.clean() ? kExitOk : kExitNotClean;
}

}  // namespace

void add_check_command(CLI::App& app, std::function<int()>& run) {
  auto opts = std::make_shared<CheckCommand>();
  CLI::App* cmd = app.add_subcommand("check", "quality metrics of a cloth mesh on a body, as JSON, and a verdict "
                                              "(exit 0 clean, 1 not clean, 2 bad input)");
  cmd->add_option("cloth", opts->cloth, "cloth OBJ in the body's frame (metres, feet at y = 0); "
                                        "vt = rest 2D coordinates, l = seam pairs")->required();
  cmd->add_option("--avatar", opts->avatar, "body mesh")->required();
  cmd->add_option("--rest", opts->rest, "OBJ with the same vertices whose vt and l give rest coordinates and seams "
                                        "(e.g. the placed mesh of tryon inspect -o)");
  cmd->add_option("--previous", opts->previous, "the cloth 1/60 s earlier: judges whether it is at rest (without it, motion is not judged)");
  cmd->add_option("--preview", opts->preview, "also write a preview PNG (front, side, back; strain colours with rest "
                                              "coordinates)");
  add_frame_options(*cmd, opts->up, opts->facing);
  cmd->callback([opts, &run] { run = [opts] { return run_check(*opts); }; });
}

}  // namespace tryon::apps
