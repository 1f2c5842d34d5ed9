// `tryon inspect PATTERN [--avatar BODY] [-o placed.obj] [--json] [--resolution-cm X]
//                [--size NAME] [--seams FILE] [--write-seams FILE]`:
// loads (GarmentCode or DXF), validates, triangulates and places a pattern; prints a summary
// or one JSON document. For DXF it also lists the pieces, graded sizes, notches and the
// seams (proposed by the matcher unless a seam file gives them) in the seam-file format.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "avatars/avatar.hpp"
#include "core/error.hpp"
#include "core/logger.hpp"
#include "core/mesh_io.hpp"
#include "garments/garment_builder.hpp"
#include "core/files.hpp"
#include "garments/pattern_loader.hpp"
#include "garments/validate.hpp"
#include "outputs/preview.hpp"
#include "tryon/drape.hpp"

namespace tryon::apps {
namespace {

struct InspectOptions {
  std::string pattern, avatar, output, preview;
  std::string size, seams, write_seams;
  bool json = false;
  double resolution_cm = 1.0;
  std::string up = "auto", facing = "auto";
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The DXF side of the report: pieces of every size read, the cut panels' key points, seams.
nlohmann::json describe_dxf(const garments::LoadedPattern& lp) {
  using json = nlohmann::json;
  const auto& d = *lp.dxf;
  const auto& cut = *lp.cut;
  json pieces = json::array();
  for (const garments::dxf::Piece* p : d.pieces_of_size(cut.size)) {
    Vec2 lo = Vec2::Constant(1e300), hi = Vec2::Constant(-1e300);
    for (const Vec2& q : p->boundary) lo = lo.cwiseMin(q), hi = hi.cwiseMax(q);
    json notches = json::array();
    for (const auto& n : p->notches)
      notches.push_back({{"x_cm", n.position.x() * 100}, {"y_cm", n.position.y() * 100}, {"type", garments::dxf::to_string(n.type)}});
    json jp = {{"name", p->name}, {"block", p->block}, {"quantity", p->quantity}, {"category", p->category},
               {"width_cm", (hi - lo).x() * 100}, {"height_cm", (hi - lo).y() * 100},
               {"boundary_points", p->boundary.size()}, {"notches", notches},
               {"grain_line", p->grain.has_value()}, {"fold_line", p->mirror.has_value()},
               {"internal_lines", p->internal_lines.size()}, {"sew_lines", p->sew_lines.size()},
               {"drill_holes", p->drill_holes.size()}};
    if (p->flipped >= 0) jp["flipped"] = p->flipped;
    pieces.push_back(jp);
  }
  json panels = json::array();
  for (const auto& c : cut.pieces) {
    json keys = json::object();
    for (const auto& k : c.keys) keys[k.id] = {c.outline[k.index].x() * 100, c.outline[k.index].y() * 100};
    json ranges = json::object();
    for (const auto& [label, r] : c.ranges) ranges[label] = {r.first, r.second};
    Vec2 lo = Vec2::Constant(1e300), hi = Vec2::Constant(-1e300);
    for (const Vec2& q : c.outline) lo = lo.cwiseMin(q), hi = hi.cwiseMax(q);
    panels.push_back({{"name", c.name}, {"piece", c.piece}, {"role", garments::dxf::to_string(c.role)},
                      {"unfolded", c.unfolded}, {"mirrored", c.mirrored}, {"width_cm", (hi - lo).x() * 100},
                      {"height_cm", (hi - lo).y() * 100}, {"keys_cm", keys}, {"ranges", ranges}});
  }
  json seams = garments::dxf::seams_to_json(cut, lp.seams);
  if (!lp.quantities.empty()) seams["quantities"] = lp.quantities;
  return {{"style", d.style}, {"author", d.author}, {"units", d.units}, {"units_given", d.units_given},
          {"metres_per_unit", d.metres_per_unit}, {"sample_size", d.sample_size}, {"size", cut.size},
          {"sizes", d.sizes}, {"pieces", pieces}, {"panels", panels}, {"seams", seams},
          {"seams_source", lp.seams_proposed ? "proposed" : lp.seams_file}, {"notes", lp.notes}};
}

void print_dxf(const nlohmann::json& j) {
  std::printf("DXF style '%s'%s, units %s (%g m per unit)%s, sample size %s, reading size %s\n",
              j["style"].get<std::string>().c_str(),
              j["author"].get<std::string>().empty() ? "" : (" by " + j["author"].get<std::string>()).c_str(),
              j["units"].get<std::string>().c_str(), j["metres_per_unit"].get<double>(),
              j["units_given"].get<bool>() ? "" : " (no Units: text; the standard's default)",
              j["sample_size"].get<std::string>().c_str(), j["size"].get<std::string>().c_str());
  std::string sizes;
  for (const auto& s : j["sizes"]) sizes += " " + s.get<std::string>();
  std::printf("graded sizes (%zu):%s\n", j["sizes"].size(), sizes.c_str());
  for (const auto& p : j["pieces"]) {
    std::string notches;
    for (const auto& n : p["notches"]) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " (%.1f, %.1f)", n["x_cm"].get<double>(), n["y_cm"].get<double>());
      notches += buf;
    }
    std::printf("  piece %-24s qty %d  %6.1f × %5.1f cm  %3d boundary points%s%s  %d internal, %d sew lines, %d drill holes\n",
                p["name"].get<std::string>().c_str(), p["quantity"].get<int>(), p["width_cm"].get<double>(),
                p["height_cm"].get<double>(), p["boundary_points"].get<int>(),
                p["grain_line"].get<bool>() ? ", grain" : ", NO grain", p["fold_line"].get<bool>() ? ", fold" : "",
                p["internal_lines"].get<int>(), p["sew_lines"].get<int>(), p["drill_holes"].get<int>());
    if (!p["notches"].empty()) std::printf("        %zu notches at (cm):%s\n", p["notches"].size(), notches.c_str());
  }
  for (const auto& c : j["panels"]) {
    std::string keys;
    for (auto it = c["keys_cm"].begin(); it != c["keys_cm"].end(); ++it) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " %s(%.1f,%.1f)", it.key().c_str(), it.value()[0].get<double>(), it.value()[1].get<double>());
      keys += buf;
    }
    std::printf("  panel %-30s %-12s %6.1f × %5.1f cm%s%s; points:%s\n", c["name"].get<std::string>().c_str(),
                c["role"].get<std::string>().c_str(), c["width_cm"].get<double>(), c["height_cm"].get<double>(),
                c["unfolded"].get<bool>() ? ", unfolded" : "", c["mirrored"].get<bool>() ? ", mirrored" : "", keys.c_str());
  }
  for (const auto& n : j["notes"]) std::printf("  note: %s\n", n.get<std::string>().c_str());
  std::printf("seams (%s; save as a seam file and edit, then --seams FILE):\n%s\n",
              j["seams_source"].get<std::string>().c_str(), j["seams"].dump(2).c_str());
}

// The mesh's figures, each panel's (with its edges), the labelled vertices, into `doc`.
void describe_build(const InspectOptions& o, const garments::LoadedPattern& loaded,
                    const garments::GarmentBuild& build, double elapsed, nlohmann::json& doc) {
  using json = nlohmann::json;
  const garments::Pattern& pattern = loaded.pattern;
  const garments::GarmentMesh& m = build.mesh;
  doc["panels"] = static_cast<int>(pattern.panels.size());
  doc["stitches"] = static_cast<int>(pattern.stitches.size());
  doc["vertices"] = m.num_vertices();
  doc["triangles"] = m.num_triangles();
  doc["seam_pairs"] = static_cast<int>(m.seam_pairs.rows());
  doc["min_angle_deg"] = build.min_angle_deg;
  doc["resolution_cm"] = o.resolution_cm;
  doc["format"] = loaded.format;
  doc["offset_m"] = {build.offset.x(), build.offset.y(), build.offset.z()};
  doc["height_scale"] = build.height_scale;
  doc["time_s"] = elapsed;
  json panels = json::array();
  for (std::size_t p = 0; p < build.panels.size(); ++p) {
    const auto& s = build.panels[p];
    json edges = json::array();
    for (const auto& e : pattern.panels[p].edges) {
      json je = {{"type", garments::to_string(e.kind)},
                 {"length_cm", garments::edge_length(pattern.panels[p], e) * 100}};
      if (!e.label.empty()) je["label"] = e.label;
      edges.push_back(je);
    }
    panels.push_back({{"name", s.name}, {"vertices", s.vertices}, {"triangles", s.triangles},
                      {"area_m2", s.area_m2}, {"mesh_area_m2", s.mesh_area_m2},
                      {"min_angle_deg", s.min_angle_deg}, {"edges", edges}});
  }
  doc["panel_details"] = panels;
  json labels = json::object();
  for (const auto& [label, verts] : m.labelled_vertices) labels[label] = static_cast<int>(verts.size());
  doc["labelled_vertices"] = labels;
}

// The body's figures and warnings into `doc`.
void describe_avatar(const std::string& file, const avatars::Avatar& body, nlohmann::json& doc) {
  doc["avatar"] = {{"file", file},
                   {"height_m", body.height_m},
                   {"unit", body.unit},
                   {"vertices", body.mesh.num_vertices()},
                   {"triangles", body.mesh.num_triangles()},
                   {"bbox_min", {body.bounds.min.x(), body.bounds.min.y(), body.bounds.min.z()}},
                   {"bbox_max", {body.bounds.max.x(), body.bounds.max.y(), body.bounds.max.z()}},
                   {"boundary_edges", body.topology.boundary_edges},
                   {"non_manifold_edges", body.topology.non_manifold_edges},
                   {"frame", body_frame_json(body)}};
  for (const auto& w : body.warnings) doc["warnings"].push_back(w);
}

// -o: the placed mesh (OBJ); --preview: a PNG of it, each panel in its own colour, over the body.
void write_placed(const InspectOptions& o, const garments::Pattern& pattern, const garments::GarmentMesh& m,
                  const std::optional<avatars::Avatar>& body, nlohmann::json& doc) {
  if (!o.output.empty()) {
    write_garment_obj(o.output, m, m.V, "tryon inspect: placed, not yet draped garment '" + pattern.name + "'");
    doc["output"] = o.output;
  }
  if (!o.preview.empty()) {
    const std::vector<outputs::Rgb> palette = outputs::panel_colors(static_cast<int>(m.panel_names.size()));
    std::vector<outputs::Rgb> colors;
    for (int v = 0; v < m.num_vertices(); ++v) colors.push_back(palette[m.panel_of_vertex[v]]);
    outputs::PreviewOptions po;
    for (std::size_t k = 0; k < palette.size(); ++k) po.key.emplace_back(palette[k], m.panel_names[k]);
    po.title = "PLACED " + pattern.name + (body ? " ON " + body->name : "");
    outputs::write_preview(o.preview, body ? body->mesh : TriMesh{}, TriMesh{m.V, m.F, {}}, colors,
                           outputs::FitMap::none, po);
    doc["preview"] = o.preview;
  }
}

// The summary without --json: the pattern, each panel, the mesh, the body and what was written.
void print_summary(const InspectOptions& o, const nlohmann::json& doc, const garments::Pattern& pattern,
                   const garments::GarmentBuild& build, const std::optional<avatars::Avatar>& body,
                   double elapsed) {
  const garments::GarmentMesh& m = build.mesh;
  std::printf("pattern %s (%s): %d panels, %d stitches\n", o.pattern.c_str(),
              doc["format"].get<std::string>().c_str(), static_cast<int>(pattern.panels.size()),
              static_cast<int>(pattern.stitches.size()));
  for (const auto& s : build.panels)
    std::printf("  %-22s %6d vertices %6d triangles  %7.1f cm²  min angle %5.1f°\n", s.name.c_str(),
                s.vertices, s.triangles, s.area_m2 * 1e4, s.min_angle_deg);
  std::printf("mesh at %.2f cm: %d vertices, %d triangles, %d seam pairs, min angle %.1f°, %.3f s\n",
              o.resolution_cm, m.num_vertices(), m.num_triangles(), static_cast<int>(m.seam_pairs.rows()),
              build.min_angle_deg, elapsed);
  if (build.offset.norm() > 0)
    std::printf("placement offset (%.3f, %.3f, %.3f) m\n", build.offset.x(), build.offset.y(), build.offset.z());
  if (body)
    std::printf("body %s: %.3f m tall (unit %s), %d triangles, %d boundary / %d non-manifold edges\n",
                o.avatar.c_str(), body->height_m, body->unit.c_str(), body->mesh.num_triangles(),
                body->topology.boundary_edges, body->topology.non_manifold_edges);
  if (!o.output.empty()) std::printf("wrote %s\n", o.output.c_str());
  if (!o.preview.empty()) std::printf("wrote %s\n", o.preview.c_str());
  if (!o.write_seams.empty()) std::printf("wrote %s\n", o.write_seams.c_str());
}

// A DXF pattern's pieces, sizes and seams into `doc` (and printed without --json); --write-seams.
void describe_dxf_pattern(const InspectOptions& o, const garments::LoadedPattern& loaded, nlohmann::json& doc) {
  doc["dxf"] = describe_dxf(loaded);
  if (!o.write_seams.empty()) {
    write_file_atomic(o.write_seams, doc["dxf"]["seams"].dump(2) + "\n");
    doc["seams_written"] = o.write_seams;
  }
  if (!o.json) print_dxf(doc["dxf"]);
}

int run_inspect(const InspectOptions& o) {
  using json = nlohmann::json;
  const auto t0 = std::chrono::steady_clock::now();
  json doc = {{"pattern", o.pattern}, {"warnings", json::array()}, {"errors", json::array()}};
  // Bad input: with --json, the document so far with the error, and exit 2; else InputError.
  auto fail = [&](const std::string& message) {
    if (!o.json) throw InputError(message);
    doc["errors"].push_back(message);
    std::cout << doc.dump(2) << "\n";
    logger().error("{}", message);
    return kExitBadInput;
  };

  // The body first: a DXF pattern is arranged around it.
  std::optional<avatars::Avatar> body;
  if (!o.avatar.empty()) {
    avatars::AvatarOptions aopt;
    aopt.up = parse_up_axis(o.up);
    aopt.detect_facing = o.facing == "auto";
    try {
      body = avatars::load_avatar(o.avatar, aopt);
    } catch (const InputError& e) {
      return fail(e.what());
    }
  }
  garments::LoadedPattern loaded;
  try {
    garments::PatternOptions popt;
    popt.size = o.size;
    popt.seams = o.seams;
    if (body) popt.body = &body->mesh;
    loaded = garments::load_pattern(o.pattern, popt);
  } catch (const InputError& e) {
    return fail(e.what());
  }
  const garments::Pattern& pattern = loaded.pattern;
  if (loaded.dxf) describe_dxf_pattern(o, loaded, doc);
  const garments::Diagnostics diag = garments::validate_pattern(pattern);
  if (!diag.ok()) {
    for (const auto& w : diag.warnings) doc["warnings"].push_back(w);
    for (const auto& e : diag.errors) doc["errors"].push_back(e);
    std::string msg = "pattern '" + o.pattern + "' cannot be sewn:";
    for (const auto& e : diag.errors) msg += "\n  - " + e;
    if (!o.json) throw InputError(msg);
    std::cout << doc.dump(2) << "\n";
    logger().error("{}", msg);
    return kExitBadInput;
  }

  garments::BuildOptions bopt;
  bopt.resolution_m = o.resolution_cm / 100.0;
  if (body) bopt.body_height_m = body->height_m;
  garments::GarmentBuild build;
  try {
    build = garments::build_garment(pattern, bopt);
  } catch (const InputError& e) {
    return fail(e.what());
  }
  const double elapsed = seconds_since(t0);
  for (const auto& w : build.warnings) {
    doc["warnings"].push_back(w);
    logger().warn("{}", w);
  }
  describe_build(o, loaded, build, elapsed, doc);
  if (body) describe_avatar(o.avatar, *body, doc);
  write_placed(o, pattern, build.mesh, body, doc);
  if (o.json)
    std::cout << doc.dump(2) << "\n";
  else
    print_summary(o, doc, pattern, build, body, elapsed);
  return kExitOk;
}

}  // namespace

void add_inspect_command(CLI::App& app, std::function<int()>& run) {
  auto opts = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand("inspect", "load, validate, triangulate and place a sewing pattern");
  cmd->add_option("pattern", opts->pattern, "GarmentCode specification JSON or DXF-AAMA / ASTM D6673 file")->required();
  cmd->add_option("--size", opts->size, "DXF: graded size to read (default: the sample size)");
  cmd->add_option("--seams", opts->seams, "DXF: seam file (default: NAME.seams.json beside the DXF, else the matcher's proposal)");
  cmd->add_option("--write-seams", opts->write_seams, "DXF: write the seams used (the proposal) as a seam file to edit");
  cmd->add_option("--avatar", opts->avatar, "body mesh (OBJ, PLY, STL, glTF/GLB, FBX, COLLADA)");
  cmd->add_option("-o,--output", opts->output, "write the placed mesh (OBJ; seams as line elements)");
  cmd->add_option("--preview", opts->preview, "write a PNG of the placed garment (and body): front, side, back");
  cmd->add_flag("--json", opts->json, "print one JSON document instead of a summary");
  cmd->add_option("--resolution-cm", opts->resolution_cm, "target triangle edge length in cm")
      ->check(CLI::Range(0.05, 50.0));
  add_frame_options(*cmd, opts->up, opts->facing);
  cmd->callback([opts, &run] { run = [opts] { return run_inspect(*opts); }; });
}

}  // namespace tryon::apps
