#include "garments/garmentcode_reader.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"

namespace tryon::garments {
namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxPanelVertices = 1000;  // vertices or edges of one panel
constexpr std::size_t kMaxPatternEdges = 20000;  // edges of all panels together
constexpr double kMaxAngleDeg = 3600;            // ten turns
constexpr double kGarmentCodeBodyHeight = 1.72;  // m: GarmentCode's mean body, mean_all

// Collects the location of what is being read, so every message names it.
struct Context {
  std::string source;
  std::string where;  // e.g. "panel 'left_ftorso', edge 3"
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(source + ": " + (where.empty() ? "" : where + ": ") + what);
  }
};

double number(const json& j, const Context& c, const std::string& what) {
  if (!j.is_number()) c.fail(what + " must be a number, found " + std::string(j.type_name()));
  const double v = j.get<double>();
  if (!std::isfinite(v)) c.fail(what + " is not a finite number");
  return v;
}

Vec2 vec2(const json& j, const Context& c, const std::string& what) {
  if (!j.is_array() || j.size() != 2) c.fail(what + " must be a list of 2 numbers");
  return {number(j[0], c, what), number(j[1], c, what)};
}

Vec3 vec3(const json& j, const Context& c, const std::string& what) {
  if (!j.is_array() || j.size() != 3) c.fail(what + " must be a list of 3 numbers");
  return {number(j[0], c, what), number(j[1], c, what), number(j[2], c, what)};
}

int index(const json& j, const Context& c, const std::string& what, std::size_t size) {
  if (!j.is_number_integer()) c.fail(what + " must be a whole number");
  // Unsigned first: a value above LLONG_MAX read as signed would come out negative.
  const std::string shown = j.is_number_unsigned() ? std::to_string(j.get<unsigned long long>())
                                                   : std::to_string(j.get<long long>());
  if (!j.is_number_unsigned() || j.get<unsigned long long>() >= size)
    c.fail(what + " " + shown + " is out of range (0.." + std::to_string(size - 1) + ")");
  return static_cast<int>(j.get<unsigned long long>());
}

const json& member(const json& j, const char* key, const Context& c) {
  if (!j.is_object()) c.fail(std::string("expected an object holding \"") + key + "\"");
  auto it = j.find(key);
  if (it == j.end()) c.fail(std::string("missing \"") + key + "\"");
  return *it;
}

// Control point in the edge frame: s + u·(e − s) + v·perp(e − s), perp(x, y) = (−y, x).
Vec2 from_edge_frame(const Vec2& uv, const Vec2& s, const Vec2& e) {
  const Vec2 d = e - s;
  return s + uv.x() * d + uv.y() * Vec2(-d.y(), d.x());
}

void read_curvature(const json& cj, Edge& edge, const Panel& panel, bool relative, double scale,
                    const Context& c, bool& legacy) {
  const Vec2& s = panel.vertices[edge.start];
  const Vec2& e = panel.vertices[edge.end];
  auto control = [&](const json& p) {
    const Vec2 v = vec2(p, c, "curvature control point");
    return relative ? from_edge_frame(v, s, e) : Vec2(v * scale);
  };
  if (cj.is_null()) return;
  if (cj.is_array()) {  // 2021 templates: a bare [u, v] is a quadratic control point
    legacy = true;
    edge.kind = CurveKind::quadratic;
    edge.controls = {control(cj)};
    return;
  }
  if (!cj.is_object()) c.fail("\"curvature\" must be an object or a list");
  const json& type = member(cj, "type", c);
  if (!type.is_string()) c.fail("curvature \"type\" must be a string");
  const std::string t = type.get<std::string>();
  const json& params = member(cj, "params", c);
  if (!params.is_array()) c.fail("curvature \"params\" must be a list");
  if (t == "quadratic") {
    if (params.size() != 1) c.fail("a quadratic curve takes 1 control point, found " + std::to_string(params.size()));
    edge.kind = CurveKind::quadratic;
    edge.controls = {control(params[0])};
  } else if (t == "cubic") {
    if (params.size() != 2) c.fail("a cubic curve takes 2 control points, found " + std::to_string(params.size()));
    edge.kind = CurveKind::cubic;
    edge.controls = {control(params[0]), control(params[1])};
  } else if (t == "circle") {
    if (params.size() != 3) c.fail("a circle arc takes [radius, large_arc, right], found " + std::to_string(params.size()) + " values");
    edge.kind = CurveKind::arc;
    edge.radius = number(params[0], c, "circle radius") * scale;
    if (!(edge.radius > 0)) c.fail("circle radius must be positive");
    edge.large_arc = number(params[1], c, "circle large_arc flag") != 0;
    edge.right = number(params[2], c, "circle right flag") != 0;
  } else {
    c.fail("unknown curve type '" + t + "' (expected quadratic, cubic or circle)");
  }
}

}  // namespace

Pattern parse_garmentcode(const std::string& text, const std::string& source) {
  Context c{source, ""};
  json doc;
  try {
    // Depth is bounded by the parser's own recursion only for sane files: refuse deep nesting.
    int depth = 0, max_depth = 0;
    for (char ch : text) {
      if (ch == '[' || ch == '{') max_depth = std::max(max_depth, ++depth);
      else if (ch == ']' || ch == '}') --depth;
    }
    if (max_depth > 64) c.fail("nesting is " + std::to_string(max_depth) + " levels deep; a sewing pattern needs fewer than 10");
    doc = json::parse(text);
  } catch (const json::exception& e) {
    c.fail(std::string("not valid JSON (") + e.what() + ")");
  }
  const json& pj = member(doc, "pattern", c);
  double units_in_meter = 100;
  if (auto it = doc.find("properties"); it != doc.end() && it->is_object()) {
    if (auto u = it->find("units_in_meter"); u != it->end()) units_in_meter = number(*u, c, "units_in_meter");
  }
  if (!(units_in_meter > 0) || units_in_meter > 1e6)
    c.fail("units_in_meter must be positive and sane, found " + std::to_string(units_in_meter));
  const double scale = 1.0 / units_in_meter;
  bool relative = true;
  if (auto it = doc.find("properties"); it != doc.end() && it->is_object())
    if (auto cc = it->find("curvature_coords"); cc != it->end() && cc->is_string())
      relative = cc->get<std::string>() != "absolute";

  Pattern pattern;
  pattern.name = source;
  const json& panels = member(pj, "panels", c);
  if (!panels.is_object()) c.fail("\"panels\" must be an object of named panels");
  if (panels.empty()) c.fail("the pattern has no panels");
  if (panels.size() > 1000) c.fail("the pattern has " + std::to_string(panels.size()) + " panels; more than 1000 is refused");

  // Panel order: "panel_order" when present and complete, else the file's order.
  std::vector<std::string> order;
  if (auto po = pj.find("panel_order"); po != pj.end() && po->is_array()) {
    for (const auto& n : *po)
      if (n.is_string() && panels.contains(n.get<std::string>())) order.push_back(n.get<std::string>());
    if (order.size() != panels.size()) order.clear();
  }
  if (order.empty())
    for (auto it = panels.begin(); it != panels.end(); ++it) order.push_back(it.key());

  std::size_t total_edges = 0;
  for (const std::string& name : order) {
    const json& p = panels.at(name);
    Panel panel;
    panel.name = name;
    c.where = "panel '" + name + "'";
    if (!p.is_object()) c.fail("must be an object");
    const json& verts = member(p, "vertices", c);
    if (!verts.is_array()) c.fail("\"vertices\" must be a list");
    if (verts.size() < 3) c.fail("has " + std::to_string(verts.size()) + " vertices; a panel needs at least 3");
    // Real panels have tens of vertices (at most 21 in the GarmentCode data); the outline checks
    // grow with the square of the outline's length in the worst case, so refuse absurd ones.
    if (verts.size() > kMaxPanelVertices)
      c.fail("has " + std::to_string(verts.size()) + " vertices; more than " + std::to_string(kMaxPanelVertices) +
             " is refused");
    for (std::size_t i = 0; i < verts.size(); ++i)
      panel.vertices.push_back(vec2(verts[i], c, "vertex " + std::to_string(i)) * scale);
    const json& edges = member(p, "edges", c);
    if (!edges.is_array()) c.fail("\"edges\" must be a list");
    if (edges.size() < 2) c.fail("has " + std::to_string(edges.size()) + " edges; an outline needs at least 2");
    if (edges.size() > kMaxPanelVertices)
      c.fail("has " + std::to_string(edges.size()) + " edges; more than " + std::to_string(kMaxPanelVertices) +
             " is refused");
    total_edges += edges.size();
    if (total_edges > kMaxPatternEdges)
      c.fail("the pattern has more than " + std::to_string(kMaxPatternEdges) + " edges in all; refused");
    for (std::size_t k = 0; k < edges.size(); ++k) {
      c.where = "panel '" + name + "', edge " + std::to_string(k);
      const json& ej = edges[k];
      const json& ends = member(ej, "endpoints", c);
      if (!ends.is_array() || ends.size() != 2) c.fail("\"endpoints\" must be a list of 2 vertex indices");
      Edge edge;
      edge.start = index(ends[0], c, "endpoint", panel.vertices.size());
      edge.end = index(ends[1], c, "endpoint", panel.vertices.size());
      if (auto cj = ej.find("curvature"); cj != ej.end())
        read_curvature(*cj, edge, panel, relative, scale, c, pattern.legacy_format);
      if (auto lj = ej.find("label"); lj != ej.end()) {
        if (lj->is_string()) edge.label = lj->get<std::string>();
        else if (!lj->is_null()) c.fail("edge \"label\" must be a string");
      }
      panel.edges.push_back(std::move(edge));
    }
    c.where = "panel '" + name + "'";
    if (auto t = p.find("translation"); t != p.end()) panel.translation = vec3(*t, c, "translation") * scale;
    if (auto r = p.find("rotation"); r != p.end()) {
      panel.rotation_deg = vec3(*r, c, "rotation");
      // Euler angles in degrees; far beyond a few turns they keep no precision (1e20° mod 360 is noise).
      if (panel.rotation_deg.cwiseAbs().maxCoeff() > kMaxAngleDeg)
        c.fail("rotation angle beyond ±" + std::to_string(static_cast<int>(kMaxAngleDeg)) + " degrees is not an angle");
    }
    if (auto l = p.find("label"); l != p.end() && l->is_string()) panel.label = l->get<std::string>();
    pattern.panels.push_back(std::move(panel));
  }

  c.where.clear();
  const json& stitches = member(pj, "stitches", c);
  if (!stitches.is_array()) c.fail("\"stitches\" must be a list");
  for (std::size_t s = 0; s < stitches.size(); ++s) {
    c.where = "stitch " + std::to_string(s);
    const json& sj = stitches[s];
    if (!sj.is_array() || sj.size() < 2)
      c.fail("must be a list of two edge references [{\"panel\": name, \"edge\": k}, ...]");
    Stitch stitch;
    StitchSide* sides[2] = {&stitch.a, &stitch.b};
    for (int k = 0; k < 2; ++k) {
      const json& side = sj[k];
      const json& pn = member(side, "panel", c);
      if (!pn.is_string()) c.fail("\"panel\" must be a panel name");
      const int panel = pattern.find_panel(pn.get<std::string>());
      if (panel < 0) c.fail("refers to panel '" + pn.get<std::string>() + "', which does not exist");
      sides[k]->panel = panel;
      sides[k]->edge = index(member(side, "edge", c), c,
                             "edge of panel '" + pn.get<std::string>() + "'",
                             pattern.panels[panel].edges.size());
    }
    if (sj.size() >= 3 && sj[2].is_string() && sj[2].get<std::string>() == "right_wrong")
      stitch.same_direction = true;
    pattern.stitches.push_back(stitch);
  }
  // A current file places its panels about GarmentCode's body (feet at y = 0); it does not
  // say which, and GarmentCode's mean body, mean_all, is 1.72 m tall. The 2021 templates are
  // placed about a body's waist (build_garment lifts them).
  if (!pattern.legacy_format) pattern.placed_for_height_m = kGarmentCodeBodyHeight;
  return pattern;
}

Pattern read_garmentcode(const std::filesystem::path& path) {
  const std::string text = read_text_file(path, "pattern", std::size_t{64} << 20);
  Pattern p = parse_garmentcode(text, path.string());
  p.name = path.stem().string();
  return p;
}

}  // namespace tryon::garments
