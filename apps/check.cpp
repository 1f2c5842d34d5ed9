// `tryon check CLOTH --avatar BODY [--rest REST.obj] [--previous PREV.obj]`: the quality
// metrics of any cloth mesh (ours or a peer's) against a body, as JSON.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "avatars/avatar.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/obj_reader.hpp"
#include "outputs/fit_maps.hpp"
#include "outputs/preview.hpp"
#include "quality/quality.hpp"
#include "tryon/drape.hpp"

namespace tryon::apps {
namespace {

namespace fs = std::filesystem;

struct CheckCommand {
  std::string cloth, avatar, rest, previous, preview, up = "y";
};

ObjContents read_obj(const std::string& path, const char* what) {
  return parse_obj(read_text_file(path, what, std::size_t{2} << 30), path);
}

int run_check(const CheckCommand& o) {
  ObjContents cloth = read_obj(o.cloth, "cloth");
  if (cloth.mesh.num_triangles() == 0) throw InputError("cloth '" + o.cloth + "' has no triangles");
  quality::Cloth c;
  c.V = cloth.mesh.V;
  c.F = cloth.mesh.F;
  c.rest = cloth.mesh.UV;
  c.seam_pairs = cloth.lines;
  if (!o.rest.empty()) {
    const ObjContents rest = read_obj(o.rest, "rest mesh");
    if (rest.mesh.num_vertices() != cloth.mesh.num_vertices())
      throw InputError("rest mesh '" + o.rest + "' has " + std::to_string(rest.mesh.num_vertices()) +
                       " vertices, the cloth " + std::to_string(cloth.mesh.num_vertices()) + ": not the same cloth");
    c.rest = rest.mesh.UV;
    if (c.seam_pairs.rows() == 0) c.seam_pairs = rest.lines;
  }
  if (!o.previous.empty()) {
    const ObjContents prev = read_obj(o.previous, "previous cloth");
    if (prev.mesh.num_vertices() != cloth.mesh.num_vertices())
      throw InputError("previous cloth '" + o.previous + "' does not have the cloth's vertices");
    c.previous = prev.mesh.V;
  }
  avatars::AvatarOptions aopt;
  aopt.up = parse_up_axis(o.up);
  const avatars::Avatar body = avatars::load_avatar(o.avatar, aopt);
  const quality::Quality q = quality::check(c, body.mesh);
  if (!o.preview.empty()) {
    // Strain colouring needs rest coordinates; without them the cloth keeps one colour.
    const bool has_rest = c.rest.rows() == c.V.rows();
    const outputs::FitMap map = has_rest ? outputs::FitMap::strain : outputs::FitMap::none;
    std::vector<outputs::Rgb> colors;
    outputs::PreviewOptions po;
    po.title = fs::path(o.cloth).filename().string() + " ON " + body.name + (q.clean() ? "" : " (NOT CLEAN)");
    if (has_rest) {
      outputs::FitMaps maps;
      maps.strain = outputs::vertex_strain(c.V, c.F, c.rest);
      colors = outputs::fit_map_colors(maps, map);
      po.legend_note = outputs::legend_range_note(maps, map);
    }
    outputs::write_preview(o.preview, body.mesh, TriMesh{c.V, c.F, {}}, colors, map, po);
  }
  const nlohmann::json doc = {{"cloth", o.cloth},
                              {"avatar", o.avatar},
                              {"mesh", {{"vertices", c.V.rows()}, {"triangles", c.F.rows()}, {"seam_pairs", c.seam_pairs.rows()}}},
                              {"quality", quality_json(q)},
                              {"clean", q.clean()}};
  std::cout << doc.dump(2) << "\n";
  return q.clean() ? kExitOk : kExitNotClean;
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
