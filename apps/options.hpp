#pragma once
// Options shared by several subcommands.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>

#include "avatars/avatar.hpp"
#include "core/mesh_io.hpp"
#include "garments/garment_mesh.hpp"

namespace tryon::apps {

inline void add_up_option(CLI::App& cmd, std::string& up) {
  cmd.add_option("--up", up, "up axis of the body file: y (default) or z")
      ->check(CLI::IsMember({"y", "z", "Y", "Z"}));
}

inline avatars::UpAxis parse_up_axis(const std::string& up) {
  return (up == "z" || up == "Z") ? avatars::UpAxis::z : avatars::UpAxis::y;
}

/// Writes a garment as tryon check reads it: positions V (|V|×3, e.g. placed or draped),
/// uv = the 2D panel coordinates (metres), one group per panel, `l` elements = seam pairs.
inline void write_garment_obj(const std::filesystem::path& path, const garments::GarmentMesh& g,
                              const Points3& V, const std::string& title) {
  ObjExtras extras;
  extras.lines = g.seam_pairs;
  extras.groups = g.panel_names;
  extras.group_of = g.panel_of_triangle;
  extras.comment = title + "\nuv = 2D panel coordinates (m); 'l' elements = seam vertex pairs";
  write_obj(path, TriMesh{V, g.F, g.rest}, extras);
}

}  // namespace tryon::apps
