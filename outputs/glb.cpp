#include "outputs/glb.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "outputs/uv_atlas.hpp"

namespace tryon::outputs {

static_assert(std::endian::native == std::endian::little, "the GLB writer assumes a little-endian host");

namespace {

using json = nlohmann::json;

constexpr int kFloat = 5126;         // glTF componentType FLOAT
constexpr int kUnsignedInt = 5125;   // glTF componentType UNSIGNED_INT
constexpr int kArrayBuffer = 34962;  // bufferView target for vertex attributes
constexpr int kElementArrayBuffer = 34963;
constexpr int kLines = 1, kTriangles = 4;  // primitive modes

// The binary chunk and the bufferViews / accessors that describe it.
class GltfBuffers {
 public:
  json views = json::array();
  json accessors = json::array();
  std::string bin;

  /// Appends `count` elements of `type` ("SCALAR", "VEC2", "VEC3") of 32-bit floats; returns the accessor
  /// index. Vertex data has the bufferView target ARRAY_BUFFER; other data (animation) none.
  int add_floats(const std::vector<float>& data, int count, const char* type, bool with_bounds = false,
                 bool vertex_data = true) {
    const int comps = static_cast<int>(data.size()) / std::max(count, 1);
    json acc = {{"bufferView", add_view(data.data(), data.size() * sizeof(float), vertex_data ? kArrayBuffer : 0)},
                {"componentType", kFloat},
                {"count", count},
                {"type", type}};
    if (with_bounds) {  // required for POSITION
      std::vector<float> lo(comps, INFINITY), hi(comps, -INFINITY);
      for (int i = 0; i < count; ++i)
        for (int k = 0; k < comps; ++k) {
          lo[k] = std::min(lo[k], data[i * comps + k]);
          hi[k] = std::max(hi[k], data[i * comps + k]);
        }
      acc["min"] = lo;
      acc["max"] = hi;
    }
    accessors.push_back(acc);
    return static_cast<int>(accessors.size()) - 1;
  }

  int add_indices(const std::vector<std::uint32_t>& data) {
    accessors.push_back({{"bufferView", add_view(data.data(), data.size() * 4, kElementArrayBuffer)},
                         {"componentType", kUnsignedInt},
                         {"count", data.size()},
                         {"type", "SCALAR"}});
    return static_cast<int>(accessors.size()) - 1;
  }

 private:
  int add_view(const void* data, std::size_t bytes, int target) {
    bin.resize((bin.size() + 3) / 4 * 4, '\0');  // every view starts 4-byte aligned
    const std::size_t offset = bin.size();
    bin.append(static_cast<const char*>(data), bytes);
    json view = {{"buffer", 0}, {"byteOffset", offset}, {"byteLength", bytes}};
    if (target != 0) view["target"] = target;
    views.push_back(std::move(view));
    return static_cast<int>(views.size()) - 1;
  }
};

// One per-vertex attribute of a mesh, for all its vertices; parts of the mesh take slices.
struct Stream {
  std::string name;  // glTF attribute name
  const char* type;  // "SCALAR", "VEC2", "VEC3"
  int comps;
  std::vector<float> data;  // |V| × comps
};

std::vector<float> to_floats(ConstRef<Eigen::MatrixXd> M) {
  std::vector<float> out(static_cast<std::size_t>(M.size()));
  for (Eigen::Index i = 0; i < M.rows(); ++i)
    for (Eigen::Index k = 0; k < M.cols(); ++k) out[i * M.cols() + k] = static_cast<float>(M(i, k));
  return out;
}

// (u, 1 − v): glTF's texture origin is the top left.
std::vector<float> flipped_uv(ConstRef<Points2> uv) {
  std::vector<float> t(2 * static_cast<std::size_t>(uv.rows()));
  for (Eigen::Index i = 0; i < uv.rows(); ++i) {
    t[2 * i] = static_cast<float>(uv(i, 0));
    t[2 * i + 1] = static_cast<float>(1.0 - uv(i, 1));
  }
  return t;
}

void check_part(const TriMesh& m, const std::string& what) {
  if (m.num_vertices() == 0 || m.num_triangles() == 0)
    throw InputError("GLB export: the " + what + " is empty");
  if (!m.V.allFinite()) throw InputError("GLB export: the " + what + " has non-finite positions");
  if (m.F.minCoeff() < 0 || m.F.maxCoeff() >= m.num_vertices())
    throw InputError("GLB export: a " + what + " triangle index is out of range");
}

void check_garment_inputs(const TriMesh& garment, ConstRef<Points2> uv, const std::vector<Rgb>& colors,
                          const GlbOptions& o) {
  check_part(garment, "garment");
  const int n = garment.num_vertices();
  if (uv.rows() != 0 && uv.rows() != n)
    throw InputError("GLB export: " + std::to_string(uv.rows()) + " UVs for " + std::to_string(n) +
                     " garment vertices");
  if (uv.rows() != 0 && !uv.allFinite()) throw InputError("GLB export: non-finite UVs");
  if (!colors.empty() && static_cast<int>(colors.size()) != n)
    throw InputError("GLB export: " + std::to_string(colors.size()) + " colours for " + std::to_string(n) +
                     " garment vertices");
  if (o.body) check_part(*o.body, "body");
  if (!o.panels) return;
  const GlbPanels& p = *o.panels;
  if (p.names.empty()) throw InputError("GLB export: the panel list is empty");
  if (static_cast<int>(p.panel_of_triangle.size()) != garment.num_triangles())
    throw InputError("GLB export: " + std::to_string(p.panel_of_triangle.size()) + " panel indices for " +
                     std::to_string(garment.num_triangles()) + " triangles");
  for (const int k : p.panel_of_triangle)
    if (k < 0 || k >= static_cast<int>(p.names.size()))
      throw InputError("GLB export: panel index " + std::to_string(k) + " out of range");
  if (!p.labels.empty() && p.labels.size() != p.names.size())
    throw InputError("GLB export: " + std::to_string(p.labels.size()) + " panel labels for " +
                     std::to_string(p.names.size()) + " panels");
}

// The panel of each vertex: that of the first triangle using it (0 for a vertex of none).
std::vector<int> panel_of_vertex(const TriMesh& garment, const GlbPanels& p) {
  std::vector<int> out(static_cast<std::size_t>(garment.num_vertices()), -1);
  for (int f = 0; f < garment.num_triangles(); ++f)
    for (int k = 0; k < 3; ++k)
      if (out[garment.F(f, k)] < 0) out[garment.F(f, k)] = p.panel_of_triangle[f];
  for (int& k : out) k = std::max(k, 0);
  return out;
}

// The garment's vertex attributes, all vertices.
std::vector<Stream> garment_streams(const TriMesh& garment, ConstRef<Points2> uv, const std::vector<Rgb>& colors,
                                    const GlbOptions& o) {
  const int n = garment.num_vertices();
  std::vector<Stream> s;
  s.push_back({"POSITION", "VEC3", 3, to_floats(garment.V)});
  s.push_back({"NORMAL", "VEC3", 3, to_floats(vertex_normals(garment.V, garment.F))});
  if (uv.rows() == n) {
    s.push_back({"TEXCOORD_0", "VEC2", 2, flipped_uv(uv)});
    if (o.panels)
      s.push_back({"TEXCOORD_1", "VEC2", 2,
                   flipped_uv(pack_panels_uv(uv, panel_of_vertex(garment, *o.panels),
                                             static_cast<int>(o.panels->names.size())))});
  }
  if (!colors.empty()) {
    std::vector<float> c(3 * static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) c[3 * i + k] = static_cast<float>(srgb_to_linear(colors[i][k]));
    s.push_back({"COLOR_0", "VEC3", 3, std::move(c)});
  }
  if (o.fit_maps) {
    // Application-specific attributes start with an underscore (glTF 2.0, 3.7.2.1).
    const std::pair<const char*, const Eigen::VectorXd*> maps[] = {{"_STRAIN", &o.fit_maps->strain},
                                                                   {"_DISTANCE_M", &o.fit_maps->distance_m}};
    for (const auto& [name, values] : maps) {
      if (values->size() == 0) continue;
      if (values->size() != n)
        throw InputError(std::string("GLB export: the fit map ") + name + " has the wrong size");
      if (!values->allFinite())
        throw InputError(std::string("GLB export: the fit map ") + name + " has non-finite values");
      s.push_back({name, "SCALAR", 1, to_floats(*values)});
    }
  }
  return s;
}

// Morph-target displacements of every garment vertex, one |V|×3 array per frame.
using Deltas = std::vector<std::vector<float>>;

std::vector<float> slice(const std::vector<float>& data, int comps, const std::vector<int>& vertices) {
  std::vector<float> out(vertices.size() * static_cast<std::size_t>(comps));
  for (std::size_t j = 0; j < vertices.size(); ++j)
    for (int k = 0; k < comps; ++k) out[j * comps + k] = data[vertices[j] * comps + k];
  return out;
}

// A primitive over the vertices `vertices` (global indices) of the streams, with `indices`
// numbering those vertices locally, and a morph target per entry of `deltas` when given.
json primitive(GltfBuffers& buf, const std::vector<Stream>& streams, const std::vector<int>& vertices,
               const std::vector<std::uint32_t>& indices, int material_index, int mode, const Deltas* deltas = nullptr) {
  const int count = static_cast<int>(vertices.size());
  json attributes = json::object();
  for (const Stream& s : streams)
    attributes[s.name] = buf.add_floats(slice(s.data, s.comps, vertices), count, s.type, s.name == "POSITION");
  json prim = {{"attributes", attributes}, {"indices", buf.add_indices(indices)}, {"material", material_index}, {"mode", mode}};
  if (deltas) {
    json targets = json::array();
    for (const std::vector<float>& d : *deltas)  // min and max: required for a target's POSITION
      targets.push_back({{"POSITION", buf.add_floats(slice(d, 3, vertices), count, "VEC3", true)}});
    prim["targets"] = targets;
  }
  return prim;
}

// The part of a mesh made of the elements (rows of E) selected by `keep`: its vertices in
// first-use order and the elements' indices into them.
template <class Elements, class Keep>
std::pair<std::vector<int>, std::vector<std::uint32_t>> part(const Elements& E, int num_vertices, Keep keep) {
  std::vector<int> local(static_cast<std::size_t>(num_vertices), -1), vertices;
  std::vector<std::uint32_t> indices;
  for (Eigen::Index e = 0; e < E.rows(); ++e) {
    if (!keep(e)) continue;
    for (Eigen::Index k = 0; k < E.cols(); ++k) {
      int& l = local[E(e, k)];
      if (l < 0) {
        l = static_cast<int>(vertices.size());
        vertices.push_back(E(e, k));
      }
      indices.push_back(static_cast<std::uint32_t>(l));
    }
  }
  return {vertices, indices};
}

json material(const std::string& name, const Rgb& c, bool double_sided) {
  return {{"name", name},
          {"doubleSided", double_sided},
          {"pbrMetallicRoughness",
           {{"baseColorFactor", {srgb_to_linear(c[0]), srgb_to_linear(c[1]), srgb_to_linear(c[2]), 1.0}},
            {"metallicFactor", 0.0},
            {"roughnessFactor", 0.9}}}};
}

struct Scene {
  json meshes = json::array();
  json nodes = json::array();
  json roots = json::array();

  int add_node(json node) {
    nodes.push_back(std::move(node));
    return static_cast<int>(nodes.size()) - 1;
  }
  std::vector<int> animated;  // nodes whose mesh has morph targets
  int add_mesh(const std::string& name, json prim) {
    json mesh = {{"name", name}};
    if (prim.contains("targets")) {
      const std::size_t n = prim["targets"].size();
      mesh["weights"] = std::vector<double>(n, 0.0);
      json names = json::array();
      for (std::size_t k = 0; k < n; ++k) names.push_back("frame_" + std::to_string(k));
      mesh["extras"] = {{"targetNames", names}};
    }
    mesh["primitives"] = json::array({std::move(prim)});
    meshes.push_back(std::move(mesh));
    return static_cast<int>(meshes.size()) - 1;
  }
  int add_node(json node, bool is_animated) {
    const int n = add_node(std::move(node));
    if (is_animated) animated.push_back(n);
    return n;
  }
};

// Node "garment" with one child per panel and the seam lines (materials 0 fabric, `seam_material`).
void add_panels(Scene& scene, GltfBuffers& buf, const TriMesh& garment, const std::vector<Stream>& streams,
                const GlbPanels& p, int seam_material, const Deltas* deltas) {
  json children = json::array();
  for (int k = 0; k < static_cast<int>(p.names.size()); ++k) {
    const auto [vertices, indices] =
        part(garment.F, garment.num_vertices(), [&](Eigen::Index f) { return p.panel_of_triangle[f] == k; });
    if (vertices.empty()) continue;  // a panel without triangles has no mesh
    const int mesh = scene.add_mesh(p.names[k], primitive(buf, streams, vertices, indices, 0, kTriangles, deltas));
    json extras = {{"panel", p.names[k]}};
    if (!p.labels.empty() && !p.labels[k].empty()) extras["label"] = p.labels[k];
    children.push_back(scene.add_node({{"name", p.names[k]}, {"mesh", mesh}, {"extras", extras}}, deltas != nullptr));
  }
  const Segments lines = seam_lines(garment.F, p.seam_pairs, p.stitch_of_pair);
  if (lines.rows() > 0) {
    const auto [vertices, indices] = part(lines, garment.num_vertices(), [](Eigen::Index) { return true; });
    const std::vector<Stream> positions(streams.begin(), streams.begin() + 1);
    const int mesh =
        scene.add_mesh("seams", primitive(buf, positions, vertices, indices, seam_material, kLines, deltas));
    children.push_back(scene.add_node({{"name", "seams"}, {"mesh", mesh}}, deltas != nullptr));
  }
  scene.roots.push_back(scene.add_node({{"name", "garment"}, {"children", children}}));
}

// The fit maps' colour scales and ranges, for a viewer to draw the same colours and legends.
json fit_map_legends(const FitMaps& maps) {
  json out = json::array();
  for (const FitMap map : {FitMap::strain, FitMap::distance}) {
    const Eigen::VectorXd& values = map == FitMap::strain ? maps.strain : maps.distance_m;
    if (values.size() == 0) continue;
    const ColorScale& scale = fit_map_scale(map);
    json stops = json::array();
    for (const ColorStop& s : scale.stops) stops.push_back({s.value, {s.color[0], s.color[1], s.color[2]}});
    const Range r = range_of(values);
    out.push_back({{"name", fit_map_name(map)},
                   {"attribute", map == FitMap::strain ? "_STRAIN" : "_DISTANCE_M"},
                   {"title", scale.title},
                   {"display_factor", scale.display_factor},
                   {"stops", stops},
                   {"ticks", scale.ticks},
                   {"low_label", scale.low_label},
                   {"high_label", scale.high_label},
                   {"min", r.min},
                   {"max", r.max}});
  }
  return out;
}

json scene_extras(const GlbOptions& o) {
  json tryon = json::object();
  if (!o.extras_json.empty()) {
    tryon = json::parse(o.extras_json, nullptr, false);
    if (!tryon.is_object()) throw InputError("GLB export: the extras are not a JSON object");
  }
  if (o.panels) {
    json panels = json::array();
    for (std::size_t k = 0; k < o.panels->names.size(); ++k)
      panels.push_back({{"name", o.panels->names[k]},
                        {"label", o.panels->labels.empty() ? std::string() : o.panels->labels[k]}});
    tryon["panels"] = panels;
  }
  if (o.fit_maps) tryon["fit_maps"] = fit_map_legends(*o.fit_maps);
  return {{"tryon", tryon}};
}

// GLB container: 12-byte header, then chunks of (length, type, data) [glTF 2.0, 4.4].
std::string container(const json& doc, std::string bin) {
  std::string text = doc.dump();
  text.resize((text.size() + 3) / 4 * 4, ' ');  // the JSON chunk is padded with spaces
  bin.resize((bin.size() + 3) / 4 * 4, '\0');
  std::string out;
  auto put_u32 = [&out](std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  const std::size_t total = 12 + 8 + text.size() + 8 + bin.size();
  if (total > 0xFFFFFFFFu) throw InputError("GLB export: the file would exceed 4 GiB");
  put_u32(0x46546C67u);  // "glTF"
  put_u32(2);
  put_u32(static_cast<std::uint32_t>(total));
  put_u32(static_cast<std::uint32_t>(text.size()));
  put_u32(0x4E4F534Au);  // "JSON"
  out += text;
  put_u32(static_cast<std::uint32_t>(bin.size()));
  put_u32(0x004E4942u);  // "BIN\0"
  out += bin;
  return out;
}

std::vector<int> all_vertices(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

std::vector<std::uint32_t> all_indices(ConstRef<Triangles> F) {
  std::vector<std::uint32_t> idx(static_cast<std::size_t>(F.size()));
  for (Eigen::Index f = 0; f < F.rows(); ++f)
    for (int k = 0; k < 3; ++k) idx[f * 3 + k] = static_cast<std::uint32_t>(F(f, k));
  return idx;
}

// The morph targets of a mesh's motion: each frame's positions less the mesh's own.
Deltas motion_deltas(const TriMesh& mesh, const std::vector<Points3>& frames, const GlbMotion& m, const char* what) {
  if (m.frames.empty()) throw InputError("GLB export: the motion has no frames");
  if (!(m.fps > 0 && std::isfinite(m.fps))) throw InputError("GLB export: the motion's fps must be above 0");
  if (frames.size() != m.frames.size())
    throw InputError(std::string("GLB export: the ") + what + "'s motion has " + std::to_string(frames.size()) +
                     " frames, the garment's " + std::to_string(m.frames.size()));
  Deltas out;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const Points3& f = frames[k];
    if (f.rows() != mesh.num_vertices() || !f.allFinite())
      throw InputError(std::string("GLB export: ") + what + " motion frame " + std::to_string(k) + " has " +
                       std::to_string(f.rows()) + " positions for " + std::to_string(mesh.num_vertices()) +
                       " vertices, or non-finite ones");
    out.push_back(to_floats(f - mesh.V));
  }
  return out;
}

// The animation "motion": at frame k's time, weight 1 on target k of every animated mesh.
json motion_animation(GltfBuffers& buf, const Scene& scene, const GlbMotion& m) {
  const int n = static_cast<int>(m.frames.size());
  std::vector<float> times(n), weights(static_cast<std::size_t>(n) * n, 0.0f);
  for (int k = 0; k < n; ++k) {
    times[k] = static_cast<float>(k / m.fps);
    weights[static_cast<std::size_t>(k) * n + k] = 1.0f;
  }
  const int input = buf.add_floats(times, n, "SCALAR", true, false);  // min and max: required for input
  const int output = buf.add_floats(weights, n * n, "SCALAR", false, false);
  json samplers = json::array(), channels = json::array();
  for (const int node : scene.animated) {
    channels.push_back({{"sampler", samplers.size()}, {"target", {{"node", node}, {"path", "weights"}}}});
    samplers.push_back({{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
  }
  return {{"name", "motion"}, {"samplers", samplers}, {"channels", channels}};
}

}  // namespace

double srgb_to_linear(unsigned char c) {
  const double s = c / 255.0;
  return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);  // IEC 61966-2-1
}

Segments seam_lines(ConstRef<Triangles> F, ConstRef<Segments> seam_pairs, const std::vector<int>& stitch_of_pair) {
  if (static_cast<Eigen::Index>(stitch_of_pair.size()) != seam_pairs.rows())
    throw InputError("seam lines: " + std::to_string(stitch_of_pair.size()) + " stitch indices for " +
                     std::to_string(seam_pairs.rows()) + " seam pairs");
  const int n = F.size() == 0 ? 0 : F.maxCoeff() + 1;
  std::vector<std::vector<int>> stitches_of(static_cast<std::size_t>(std::max(n, 0)));
  for (Eigen::Index s = 0; s < seam_pairs.rows(); ++s)
    for (int k = 0; k < 2; ++k) {
      const int v = seam_pairs(s, k);
      if (v < 0) throw InputError("seam lines: a seam vertex index is negative");
      if (v < n) stitches_of[v].push_back(stitch_of_pair[s]);
    }
  std::map<std::pair<int, int>, int> uses;  // undirected edge -> number of triangles
  for (Eigen::Index f = 0; f < F.rows(); ++f)
    for (int k = 0; k < 3; ++k) {
      const int a = F(f, k), b = F(f, (k + 1) % 3);
      ++uses[{std::min(a, b), std::max(a, b)}];
    }
  std::vector<std::pair<int, int>> lines;
  for (const auto& [e, count] : uses) {
    if (count != 1) continue;
    const auto& sa = stitches_of[e.first];
    const auto& sb = stitches_of[e.second];
    const bool shared = std::any_of(sa.begin(), sa.end(), [&](int s) {
      return std::find(sb.begin(), sb.end(), s) != sb.end();
    });
    if (shared) lines.push_back(e);
  }
  Segments out(static_cast<Eigen::Index>(lines.size()), 2);
  for (std::size_t i = 0; i < lines.size(); ++i) out.row(static_cast<Eigen::Index>(i)) << lines[i].first, lines[i].second;
  return out;
}

std::string format_glb(const TriMesh& garment, ConstRef<Points2> uv, const std::vector<Rgb>& colors,
                       const GlbOptions& o) {
  check_garment_inputs(garment, uv, colors, o);
  const std::vector<Stream> streams = garment_streams(garment, uv, colors, o);
  const Deltas deltas = o.motion ? motion_deltas(garment, o.motion->frames, *o.motion, "garment") : Deltas{};
  const Deltas* moving = o.motion ? &deltas : nullptr;
  GltfBuffers buf;
  Scene scene;
  json materials = json::array();
  materials.push_back(material("fabric", colors.empty() ? o.fabric_color : Rgb{255, 255, 255}, true));
  if (o.panels) {
    materials.push_back(material("seam", o.seam_color, false));
    add_panels(scene, buf, garment, streams, *o.panels, 1, moving);
  } else {
    const int mesh = scene.add_mesh("garment", primitive(buf, streams, all_vertices(garment.num_vertices()),
                                                         all_indices(garment.F), 0, kTriangles, moving));
    scene.roots.push_back(scene.add_node({{"name", "garment"}, {"mesh", mesh}}, moving != nullptr));
  }
  if (o.body) {
    materials.push_back(material("body", o.body_color, false));
    const std::vector<Stream> body_streams = {{"POSITION", "VEC3", 3, to_floats(o.body->V)},
                                              {"NORMAL", "VEC3", 3, to_floats(vertex_normals(o.body->V, o.body->F))}};
    const bool body_moves = o.motion && !o.motion->body_frames.empty();
    const Deltas body_deltas = body_moves ? motion_deltas(*o.body, o.motion->body_frames, *o.motion, "body") : Deltas{};
    const int mesh = scene.add_mesh("body", primitive(buf, body_streams, all_vertices(o.body->num_vertices()),
                                                      all_indices(o.body->F), static_cast<int>(materials.size()) - 1,
                                                      kTriangles, body_moves ? &body_deltas : nullptr));
    scene.roots.push_back(scene.add_node({{"name", "body"}, {"mesh", mesh}}, body_moves));
  }
  json animations = json::array();
  if (o.motion) animations.push_back(motion_animation(buf, scene, *o.motion));
  buf.bin.resize((buf.bin.size() + 3) / 4 * 4, '\0');
  json doc = {{"asset", {{"version", "2.0"}, {"generator", "tryon outputs"}}},
                    {"scene", 0},
                    {"scenes", json::array({{{"nodes", scene.roots}, {"extras", scene_extras(o)}}})},
                    {"nodes", scene.nodes},
                    {"meshes", scene.meshes},
                    {"materials", materials},
                    {"accessors", buf.accessors},
                    {"bufferViews", buf.views},
                    {"buffers", json::array({{{"byteLength", buf.bin.size()}}})}};
  if (!animations.empty()) doc["animations"] = animations;
  return container(doc, std::move(buf.bin));
}

void write_glb(const std::filesystem::path& path, const TriMesh& garment, ConstRef<Points2> uv,
               const std::vector<Rgb>& colors, const GlbOptions& options) {
  write_file_atomic(path, format_glb(garment, uv, colors, options));
}

}  // namespace tryon::outputs
