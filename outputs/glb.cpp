#include "outputs/glb.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"

namespace tryon::outputs {

static_assert(std::endian::native == std::endian::little, "the GLB writer assumes a little-endian host");

namespace {

using json = nlohmann::json;

constexpr int kFloat = 5126;         // glTF componentType FLOAT
constexpr int kUnsignedInt = 5125;   // glTF componentType UNSIGNED_INT
constexpr int kArrayBuffer = 34962;  // bufferView target for vertex attributes
constexpr int kElementArrayBuffer = 34963;

// The binary chunk and the bufferViews / accessors that describe it.
class GltfBuffers {
 public:
  json views = json::array();
  json accessors = json::array();
  std::string bin;

  /// Appends `count` elements of `type` ("SCALAR", "VEC2", "VEC3") of 32-bit floats; returns the accessor
  /// index.
  int add_floats(const std::vector<float>& data, int count, const char* type, bool with_bounds = false) {
    const int comps = static_cast<int>(data.size()) / std::max(count, 1);
    json acc = {{"bufferView", add_view(data.data(), data.size() * sizeof(float), kArrayBuffer)},
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
    views.push_back({{"buffer", 0}, {"byteOffset", offset}, {"byteLength", bytes}, {"target", target}});
    return static_cast<int>(views.size()) - 1;
  }
};

std::vector<float> to_floats(ConstRef<Eigen::MatrixXd> M) {
  std::vector<float> out(static_cast<std::size_t>(M.size()));
  for (Eigen::Index i = 0; i < M.rows(); ++i)
    for (Eigen::Index k = 0; k < M.cols(); ++k) out[i * M.cols() + k] = static_cast<float>(M(i, k));
  return out;
}

void check_part(const TriMesh& m, const std::string& what) {
  if (m.num_vertices() == 0 || m.num_triangles() == 0)
    throw InputError("GLB export: the " + what + " is empty");
  if (!m.V.allFinite()) throw InputError("GLB export: the " + what + " has non-finite positions");
  if (m.F.minCoeff() < 0 || m.F.maxCoeff() >= m.num_vertices())
    throw InputError("GLB export: a " + what + " triangle index is out of range");
}

json material(const std::string& name, const Rgb& c, bool double_sided) {
  return {{"name", name},
          {"doubleSided", double_sided},
          {"pbrMetallicRoughness",
           {{"baseColorFactor", {srgb_to_linear(c[0]), srgb_to_linear(c[1]), srgb_to_linear(c[2]), 1.0}},
            {"metallicFactor", 0.0},
            {"roughnessFactor", 0.9}}}};
}

// One mesh with one triangle primitive; returns the attribute object to add to.
json primitive(GltfBuffers& buf, const TriMesh& m, int material_index) {
  json attributes = {
      {"POSITION", buf.add_floats(to_floats(m.V), m.num_vertices(), "VEC3", true)},
      {"NORMAL", buf.add_floats(to_floats(vertex_normals(m.V, m.F)), m.num_vertices(), "VEC3")}};
  std::vector<std::uint32_t> idx(static_cast<std::size_t>(m.F.size()));
  for (Eigen::Index f = 0; f < m.F.rows(); ++f)
    for (int k = 0; k < 3; ++k) idx[f * 3 + k] = static_cast<std::uint32_t>(m.F(f, k));
  return {{"attributes", attributes},
          {"indices", buf.add_indices(idx)},
          {"material", material_index},
          {"mode", 4}};
}

}  // namespace

double srgb_to_linear(unsigned char c) {
  const double s = c / 255.0;
  return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);  // IEC 61966-2-1
}

Points3 vertex_normals(ConstRef<Points3> V, ConstRef<Triangles> F) {
  Points3 N = Points3::Zero(V.rows(), 3);
  // Serial, in triangle order: the sums do not depend on the thread count.
  for (Eigen::Index f = 0; f < F.rows(); ++f) {
    const Vec3 a = V.row(F(f, 0)), b = V.row(F(f, 1)), c = V.row(F(f, 2));
    const Vec3 area_vector = (b - a).cross(c - a);  // |·| = 2 × area: area-weighted [Gouraud 1971]
    for (int k = 0; k < 3; ++k) N.row(F(f, k)) += area_vector.transpose();
  }
  for (Eigen::Index i = 0; i < N.rows(); ++i) {
    const double n = N.row(i).norm();
    if (n > 0 && std::isfinite(n))
      N.row(i) /= n;
    else
      N.row(i) = Vec3::UnitY().transpose();
  }
  return N;
}

std::string format_glb(const TriMesh& garment, ConstRef<Points2> uv, const std::vector<Rgb>& colors,
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

  GltfBuffers buf;
  json materials = json::array();
  materials.push_back(material("fabric", colors.empty() ? o.fabric_color : Rgb{255, 255, 255}, true));
  json gp = primitive(buf, garment, 0);
  if (uv.rows() == n) {
    std::vector<float> t(2 * static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      t[2 * i] = static_cast<float>(uv(i, 0));
      t[2 * i + 1] = static_cast<float>(1.0 - uv(i, 1));  // glTF texture origin is top-left
    }
    gp["attributes"]["TEXCOORD_0"] = buf.add_floats(t, n, "VEC2");
  }
  if (!colors.empty()) {
    std::vector<float> c(3 * static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) c[3 * i + k] = static_cast<float>(srgb_to_linear(colors[i][k]));
    gp["attributes"]["COLOR_0"] = buf.add_floats(c, n, "VEC3");
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
      gp["attributes"][name] = buf.add_floats(to_floats(*values), n, "SCALAR");
    }
  }
  json meshes = json::array({{{"name", "garment"}, {"primitives", json::array({gp})}}});
  json nodes = json::array({{{"name", "garment"}, {"mesh", 0}}});
  if (o.body) {
    materials.push_back(material("body", o.body_color, false));
    meshes.push_back({{"name", "body"}, {"primitives", json::array({primitive(buf, *o.body, 1)})}});
    nodes.push_back({{"name", "body"}, {"mesh", 1}});
  }
  json scene_nodes = json::array();
  for (std::size_t i = 0; i < nodes.size(); ++i) scene_nodes.push_back(i);
  buf.bin.resize((buf.bin.size() + 3) / 4 * 4, '\0');
  const json doc = {{"asset", {{"version", "2.0"}, {"generator", "tryon outputs"}}},
                    {"scene", 0},
                    {"scenes", json::array({{{"nodes", scene_nodes}}})},
                    {"nodes", nodes},
                    {"meshes", meshes},
                    {"materials", materials},
                    {"accessors", buf.accessors},
                    {"bufferViews", buf.views},
                    {"buffers", json::array({{{"byteLength", buf.bin.size()}}})}};
  std::string text = doc.dump();
  text.resize((text.size() + 3) / 4 * 4, ' ');  // the JSON chunk is padded with spaces

  // GLB container: 12-byte header, then chunks of (length, type, data) [glTF 2.0, 4.4].
  std::string out;
  auto put_u32 = [&out](std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  const std::size_t total = 12 + 8 + text.size() + 8 + buf.bin.size();
  if (total > 0xFFFFFFFFu) throw InputError("GLB export: the file would exceed 4 GiB");
  put_u32(0x46546C67u);  // "glTF"
  put_u32(2);
  put_u32(static_cast<std::uint32_t>(total));
  put_u32(static_cast<std::uint32_t>(text.size()));
  put_u32(0x4E4F534Au);  // "JSON"
  out += text;
  put_u32(static_cast<std::uint32_t>(buf.bin.size()));
  put_u32(0x004E4942u);  // "BIN\0"
  out += buf.bin;
  return out;
}

void write_glb(const std::filesystem::path& path, const TriMesh& garment, ConstRef<Points2> uv,
               const std::vector<Rgb>& colors, const GlbOptions& options) {
  write_file_atomic(path, format_glb(garment, uv, colors, options));
}

}  // namespace tryon::outputs
