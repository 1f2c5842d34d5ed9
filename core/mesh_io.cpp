#include "core/mesh_io.hpp"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <cctype>
#include <cstdio>
#include <functional>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/obj_reader.hpp"

namespace tryon {

namespace {
bool is_obj(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext == ".obj";
}
}  // namespace

TriMesh read_mesh(const std::filesystem::path& path) {
  require_readable_file(path, "mesh");
  if (is_obj(path)) {
    TriMesh m = parse_obj(read_text_file(path, "mesh", std::size_t{2} << 30), path.string()).mesh;
    if (m.num_triangles() == 0)
      throw InputError("mesh '" + path.string() + "' has no triangles (points or lines only, or empty)");
    return m;
  }
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
  const bool grouped = !extras.groups.empty() &&
                       extras.group_of.size() == static_cast<std::size_t>(mesh.num_triangles());
  int current = -1;
  for (int f = 0; f < mesh.num_triangles(); ++f) {
    if (grouped && extras.group_of[f] != current) {
      current = extras.group_of[f];
      s += "g " + extras.groups.at(current) + "\n";
    }
    const int a = mesh.F(f, 0) + 1, b = mesh.F(f, 1) + 1, c = mesh.F(f, 2) + 1;
    if (uv)
      std::snprintf(buf, sizeof buf, "f %d/%d %d/%d %d/%d\n", a, a, b, b, c, c);
    else
      std::snprintf(buf, sizeof buf, "f %d %d %d\n", a, b, c);
    s += buf;
  }
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
