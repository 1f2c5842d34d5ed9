#include "tryon/tryon.hpp"

#include <algorithm>

#include "cloth/material.hpp"
#include "core/logger.hpp"
#include "core/files.hpp"
#include "core/obj_reader.hpp"
#include "core/parallel.hpp"
#include "garments/garmentcode_reader.hpp"

#ifndef TRYON_VERSION
#error "TRYON_VERSION must be defined by the build"
#endif

namespace tryon {
namespace {

ObjContents read_obj(const std::filesystem::path& path, const char* what) {
  return parse_obj(read_text_file(path, what, std::size_t{2} << 30), path.string());
}

}  // namespace

std::string version() { return TRYON_VERSION; }

Pattern load_pattern(const std::filesystem::path& path) { return garments::read_garmentcode(path); }

Avatar load_avatar(const std::filesystem::path& path, const AvatarOptions& options) {
  return avatars::load_avatar(path, options);
}

void set_threads(int threads) {
  if (threads < 0) throw InputError("threads must be 0 (all cores) or positive, not " + std::to_string(threads));
  set_num_threads(threads);
}

void set_log_level(const std::string& level) {
  static const std::vector<std::string> levels = {"trace", "debug", "info", "warn", "error", "off"};
  if (std::find(levels.begin(), levels.end(), level) == levels.end())
    throw InputError("log level must be trace, debug, info, warn, error or off, not '" + level + "'");
  logger().set_level(spdlog::level::from_str(level));
}

std::vector<std::string> material_names() { return cloth::material_names(materials_file().string()); }

CheckResult check(const std::filesystem::path& cloth_path, const Avatar& avatar, const CheckFiles& files) {
  ObjContents cloth = read_obj(cloth_path, "cloth");
  if (cloth.mesh.num_triangles() == 0) throw InputError("cloth '" + cloth_path.string() + "' has no triangles");
  quality::Cloth c;
  c.V = cloth.mesh.V;
  c.F = cloth.mesh.F;
  c.rest = cloth.mesh.UV;
  c.seam_pairs = cloth.lines;
  if (!files.rest.empty()) {
    const ObjContents rest = read_obj(files.rest, "rest mesh");
    if (rest.mesh.num_vertices() != cloth.mesh.num_vertices())
      throw InputError("rest mesh '" + files.rest.string() + "' has " + std::to_string(rest.mesh.num_vertices()) +
                       " vertices, the cloth " + std::to_string(cloth.mesh.num_vertices()) + ": not the same cloth");
    c.rest = rest.mesh.UV;
    if (c.seam_pairs.rows() == 0) c.seam_pairs = rest.lines;
  }
  if (!files.previous.empty()) {
    const ObjContents prev = read_obj(files.previous, "previous cloth");
    if (prev.mesh.num_vertices() != cloth.mesh.num_vertices())
      throw InputError("previous cloth '" + files.previous.string() + "' does not have the cloth's vertices");
    c.previous = prev.mesh.V;
  }
  CheckResult r;
  r.quality = quality::check(c, avatar.mesh);
  r.cloth = c;
  r.clean = r.quality.clean();
  r.report = {{"cloth", cloth_path.string()},
              {"avatar", avatar.name},
              {"mesh", {{"vertices", c.V.rows()}, {"triangles", c.F.rows()}, {"seam_pairs", c.seam_pairs.rows()}}},
              {"quality", quality_json(r.quality)},
              {"clean", r.clean}};
  return r;
}

}  // namespace tryon
