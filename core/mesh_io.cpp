#include "core/mesh_io.hpp"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/obj_reader.hpp"

namespace tryon {

namespace {
// Bytes of one value of a PLY scalar type (PLY's names and the sized aliases), 0 if unknown.
std::size_t ply_type_size(const std::string& t) {
  if (t == "char" || t == "uchar" || t == "int8" || t == "uint8") return 1;
  if (t == "short" || t == "ushort" || t == "int16" || t == "uint16") return 2;
  if (t == "int" || t == "uint" || t == "float" || t == "int32" || t == "uint32" || t == "float32") return 4;
  if (t == "double" || t == "float64") return 8;
  return 0;
}

/// Refuses a PLY whose header declares more elements than the file can hold: Assimp allocates
/// what the header declares before reading, so "element vertex 1000000000" in a 200-byte file
/// would take gigabytes. An element needs at least, per property, its binary size (a list: its
/// count's size) or, in ASCII, two characters (a digit and a separator). Header per
/// http://paulbourke.net/dataformats/ply/.
void check_ply_counts(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line, format;
  std::vector<std::pair<std::string, double>> elements;  // name, count
  std::vector<std::size_t> min_bytes;                    // per element, one item
  std::size_t header = 0;
  bool ended = false;
  while (header < (std::size_t{1} << 16) && std::getline(in, line)) {
    header += line.size() + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "format") {
      words >> format;
    } else if (key == "element") {
      std::string name;
      double count = -1;
      words >> name >> count;
      if (!words || !(count >= 0))
        throw InputError("mesh '" + path.string() + "': PLY element '" + name + "' has no valid count");
      elements.emplace_back(name, count);
      min_bytes.push_back(0);
    } else if (key == "property" && !elements.empty()) {
      std::string type, count_type;
      words >> type;
      if (type == "list") words >> count_type;
      const std::size_t size = ply_type_size(type == "list" ? count_type : type);
      min_bytes.back() += format == "ascii" ? 2 : std::max<std::size_t>(size, 1);
    } else if (key == "end_header") {
      ended = true;
      break;
    }
  }
  if (!ended) return;  // not a header we understand: Assimp says what is wrong
  std::error_code ec;
  const double body = static_cast<double>(std::filesystem::file_size(path, ec)) - static_cast<double>(header);
  if (ec) return;
  double needed = 0;
  for (std::size_t e = 0; e < elements.size(); ++e) needed += elements[e].second * static_cast<double>(min_bytes[e]);
  if (needed > body) {
    std::string declared;
    for (const auto& [name, count] : elements)
      declared += (declared.empty() ? "" : ", ") + std::to_string(static_cast<long long>(std::min(count, 9e18))) +
                  " " + name;
    throw InputError("mesh '" + path.string() + "': the PLY header declares " + declared +
                     " elements, which cannot fit in the " + std::to_string(static_cast<long long>(std::max(body, 0.0))) +
                     " bytes that follow it: the file is truncated or corrupt");
  }
}

}  // namespace

TriMesh read_obj_mesh(std::string_view text, const std::string& source) {
  TriMesh m = parse_obj(text, source).mesh;
  if (m.num_triangles() == 0)
    throw InputError("mesh '" + source + "' has no triangles (points or lines only, or empty)");
  check_mesh(m, "mesh '" + source + "'");
  return m;
}

TriMesh read_mesh(const std::filesystem::path& path) {
  require_readable_file(path, "mesh");
  if (has_extension(path, ".obj")) return read_obj_mesh(read_text_file(path, "mesh", std::size_t{2} << 30), path.string());
  if (has_extension(path, ".ply")) check_ply_counts(path);
  Assimp::Importer importer;
  // Keep Assimp's own vertex order (no JoinIdenticalVertices: welding is ours, with a tolerance).
  const aiScene* scene = importer.ReadFile(
      path.string(), aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_PreTransformVertices);
  if (!scene || !scene->mRootNode)
    throw InputError("cannot read mesh '" + path.string() + "': " + importer.GetErrorString());

  std::vector<Vec3> positions;
  std::vector<Eigen::Vector3i> faces;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    if (!(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
    const int base = static_cast<int>(positions.size());
    for (unsigned v = 0; v < mesh->mNumVertices; ++v)
      positions.emplace_back(mesh->mVertices[v].x, mesh->mVertices[v].y, mesh->mVertices[v].z);
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const aiFace& face = mesh->mFaces[f];
      if (face.mNumIndices != 3) continue;
      Eigen::Vector3i t;
      for (int k = 0; k < 3; ++k) {
        if (face.mIndices[k] >= mesh->mNumVertices)
          throw InputError("mesh '" + path.string() + "': a face refers to a missing vertex");
        t[k] = base + static_cast<int>(face.mIndices[k]);
      }
      faces.push_back(t);
    }
  }
  if (faces.empty())
    throw InputError("mesh '" + path.string() + "' has no triangles (points or lines only, or empty)");
  TriMesh out;
  out.V.resize(static_cast<Eigen::Index>(positions.size()), 3);
  for (std::size_t i = 0; i < positions.size(); ++i) out.V.row(i) = positions[i].transpose();
  out.F.resize(static_cast<Eigen::Index>(faces.size()), 3);
  for (std::size_t i = 0; i < faces.size(); ++i) out.F.row(i) = faces[i].transpose();
  check_mesh(out, "mesh '" + path.string() + "'");
  return out;
}

std::string format_obj(const TriMesh& mesh, const ObjExtras& extras) {
  std::string s;
  s.reserve(static_cast<std::size_t>(mesh.num_vertices()) * 60 + mesh.num_triangles() * 40);
  char buf[160];
  if (!extras.comment.empty()) {
    std::size_t start = 0;
    while (start <= extras.comment.size()) {
      const std::size_t end = extras.comment.find('\n', start);
      s += "# " + extras.comment.substr(start, end - start) + "\n";
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  for (int i = 0; i < mesh.num_vertices(); ++i) {
    std::snprintf(buf, sizeof buf, "v %.9g %.9g %.9g\n", mesh.V(i, 0), mesh.V(i, 1), mesh.V(i, 2));
    s += buf;
  }
  const bool uv = mesh.UV.rows() == mesh.V.rows() && mesh.UV.rows() > 0;
  if (uv)
    for (int i = 0; i < mesh.num_vertices(); ++i) {
      std::snprintf(buf, sizeof buf, "vt %.9g %.9g\n", mesh.UV(i, 0), mesh.UV(i, 1));
      s += buf;
    }
  const bool vn = extras.normals.rows() > 0;
  if (vn && extras.normals.rows() != mesh.V.rows())
    throw InputError("OBJ export: " + std::to_string(extras.normals.rows()) + " normals for " +
                     std::to_string(mesh.num_vertices()) + " vertices");
  if (vn)
    for (int i = 0; i < mesh.num_vertices(); ++i) {
      std::snprintf(buf, sizeof buf, "vn %.6g %.6g %.6g\n", extras.normals(i, 0), extras.normals(i, 1),
                    extras.normals(i, 2));
      s += buf;
    }
  const bool grouped = !extras.groups.empty() &&
                       extras.group_of.size() == static_cast<std::size_t>(mesh.num_triangles());
  int current = -1;
  for (int f = 0; f < mesh.num_triangles(); ++f) {
    if (grouped && extras.group_of[f] != current) {
      current = extras.group_of[f];
      s += "g " + extras.groups.at(current) + "\n";
    }
    const int a = mesh.F(f, 0) + 1, b = mesh.F(f, 1) + 1, c = mesh.F(f, 2) + 1;
    if (uv && vn)
      std::snprintf(buf, sizeof buf, "f %d/%d/%d %d/%d/%d %d/%d/%d\n", a, a, a, b, b, b, c, c, c);
    else if (vn)
      std::snprintf(buf, sizeof buf, "f %d//%d %d//%d %d//%d\n", a, a, b, b, c, c);
    else if (uv)
      std::snprintf(buf, sizeof buf, "f %d/%d %d/%d %d/%d\n", a, a, b, b, c, c);
    else
      std::snprintf(buf, sizeof buf, "f %d %d %d\n", a, b, c);
    s += buf;
  }
  if (extras.lines.rows() > 0 && !extras.lines_group.empty()) s += "g " + extras.lines_group + "\n";
  for (Eigen::Index l = 0; l < extras.lines.rows(); ++l) {
    std::snprintf(buf, sizeof buf, "l %d %d\n", extras.lines(l, 0) + 1, extras.lines(l, 1) + 1);
    s += buf;
  }
  return s;
}

void write_obj(const std::filesystem::path& path, const TriMesh& mesh, const ObjExtras& extras) {
  write_file_atomic(path, format_obj(mesh, extras));
}

}  // namespace tryon
