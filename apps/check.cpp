// `tryon check CLOTH --avatar BODY [--rest REST.obj] [--previous PREV.obj]`: the quality
// metrics of any cloth mesh (ours or a peer's) against a body, as JSON.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "avatars/avatar.hpp"
#include "outputs/fit_maps.hpp"
#include "outputs/preview.hpp"
#include "tryon/tryon.hpp"

namespace tryon::apps {
namespace {

struct CheckCommand {
  std::string cloth, avatar, rest, previous, preview, up = "y";
};

int run_check(const CheckCommand& o) {
  avatars::AvatarOptions aopt;
  aopt.up = parse_up_axis(o.up);
  CheckFiles files;
  files.rest = o.rest;
  files.previous = o.previous;
  const avatars::Avatar body = avatars::load_avatar(o.avatar, aopt);
  const CheckResult r = tryon::check(o.cloth, body, files);
  if (!o.preview.empty()) {
    // Strain colouring needs rest coordinates; without them the cloth keeps one colour.
    const quality::Cloth& c = r.cloth;
    const bool has_rest = c.rest.rows() == c.V.rows();
    const outputs::FitMap map = has_rest ? outputs::FitMap::strain : outputs::FitMap::none;
    std::vector<outputs::Rgb> colors;
    outputs::PreviewOptions po;
    po.title = std::filesystem::path(o.cloth).filename().string() + " ON " + body.name + (r.clean ? "" : " (NOT CLEAN)");
    if (has_rest) {
      outputs::FitMaps maps;
      maps.strain = outputs::vertex_strain(c.V, c.F, c.rest);
      colors = outputs::fit_map_colors(maps, map);
      po.legend_note = outputs::legend_range_note(maps, map);
    }
    outputs::write_preview(o.preview, body.mesh, TriMesh{c.V, c.F, {}}, colors, map, po);
  }
  nlohmann::json doc = r.report;
  doc["avatar"] = o.avatar;
  std::cout << doc.dump(2) << "\n";
  return r.clean ? kExitOk : kExitNotClean;
}

}  // namespace

void add_check_command(CLI::App& app, std::function<int()>& run) {
  auto opts = std::make_shared<CheckCommand>();
  CLI::App* cmd = app.add_subcommand("check", "quality metrics of a cloth mesh on a body, as JSON "
                                              "(exit 0 clean, 1 not clean, 2 bad input)");
  cmd->add_option("cloth", opts->cloth, "cloth OBJ in the body's frame (metres, feet at y = 0); "
                                        "vt = rest 2D coordinates, l = seam pairs")->required();
  cmd->add_option("--avatar", opts->avatar, "body mesh")->required();
  cmd->add_option("--rest", opts->rest, "OBJ with the same vertices whose vt and l give rest coordinates and seams "
                                        "(e.g. the placed mesh of tryon inspect -o)");
  cmd->add_option("--previous", opts->previous, "the cloth 1/60 s earlier, for moving_fraction");
  cmd->add_option("--preview", opts->preview, "also write a preview PNG (front, side, back; strain colours with rest "
                                              "coordinates)");
  add_up_option(*cmd, opts->up);
  cmd->callback([opts, &run] { run = [opts] { return run_check(*opts); }; });
}

}  // namespace tryon::apps
