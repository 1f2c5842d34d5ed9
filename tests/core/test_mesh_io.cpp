#include <gtest/gtest.h>

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/Importer.hpp>
#include <fstream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/mesh_io.hpp"
#include "core/obj_reader.hpp"
#include "test_data.hpp"

using namespace tryon;
using tryon::test::shared_data_path;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("tryon_test_io_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// A closed tetrahedron with texture coordinates.
TriMesh tetrahedron() {
  TriMesh m;
  m.V.resize(4, 3);
  m.V << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  m.F.resize(4, 3);
  m.F << 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3;
  m.UV.resize(4, 2);
  m.UV << 0, 0, 1, 0, 0, 1, 0.5, 0.5;
  return m;
}
}  // namespace

TEST(MeshIO, ObjRoundTripThroughAssimp) {
  const TriMesh m = tetrahedron();
  const fs::path p = temp_dir() / "tet.obj";
  ObjExtras extras;
  extras.lines.resize(1, 2);
  extras.lines << 0, 3;
  write_obj(p, m, extras);
  const TriMesh r = read_mesh(p);
  TriMesh welded = r;
  weld_vertices(welded, 1e-9);
  EXPECT_EQ(welded.num_vertices(), 4);
  EXPECT_EQ(welded.num_triangles(), 4);
  EXPECT_NEAR(surface_area(welded.V, welded.F), surface_area(m.V, m.F), 1e-9);
  const std::string text = read_text_file(p, "obj");
  EXPECT_NE(text.find("\nl 1 4\n"), std::string::npos);
  EXPECT_NE(text.find("\nvt 0.5 0.5\n"), std::string::npos);
  fs::remove_all(temp_dir());
}

TEST(MeshIO, ObjNormalsAndTheLinesGroupReadBackByAssimpAndOurReader) {
  const TriMesh m = tetrahedron();
  ObjExtras extras;
  extras.lines.resize(2, 2);
  extras.lines << 0, 3, 1, 2;
  extras.lines_group = "seams";
  extras.normals = vertex_normals(m.V, m.F);
  extras.groups = {"panel"};
  extras.group_of.assign(4, 0);
  const std::string text = format_obj(m, extras);
  EXPECT_NE(text.find("\nvn "), std::string::npos);
  EXPECT_NE(text.find("\nf 1/1/1 3/3/3 2/2/2\n"), std::string::npos);
  EXPECT_NE(text.find("\ng seams\nl 1 4\nl 2 3\n"), std::string::npos);
  // Our reader: the same mesh, UVs and lines.
  const ObjContents ours = parse_obj(text, "tet.obj");
  EXPECT_EQ(ours.mesh.F, m.F);
  EXPECT_TRUE(ours.mesh.UV.isApprox(m.UV));
  EXPECT_EQ(ours.lines, extras.lines);
  // Assimp: the normals as written, per corner.
  const fs::path p = temp_dir() / "tet_vn.obj";
  write_file_atomic(p, text);
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(p.string(), aiProcess_Triangulate);
  ASSERT_NE(scene, nullptr) << importer.GetErrorString();
  const aiMesh* mesh = nullptr;
  for (unsigned k = 0; k < scene->mNumMeshes && !mesh; ++k)
    if (scene->mMeshes[k]->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) mesh = scene->mMeshes[k];
  ASSERT_NE(mesh, nullptr);
  ASSERT_TRUE(mesh->HasNormals());
  for (unsigned i = 0; i < mesh->mNumVertices; ++i) {
    const aiVector3D v = mesh->mVertices[i], n = mesh->mNormals[i];
    int k = 0;  // the vertex it is a corner of
    while (k < 4 && (m.V.row(k) - Vec3(v.x, v.y, v.z).transpose()).norm() > 1e-9) ++k;
    ASSERT_LT(k, 4);
    EXPECT_NEAR(n.x, extras.normals(k, 0), 1e-5);
    EXPECT_NEAR(n.y, extras.normals(k, 1), 1e-5);
    EXPECT_NEAR(n.z, extras.normals(k, 2), 1e-5);
  }
  extras.normals = extras.normals.topRows(2).eval();  // eval: the block aliases the matrix it is assigned to
  EXPECT_THROW(format_obj(m, extras), InputError);
  fs::remove_all(temp_dir());
}

TEST(MeshIO, MissingFileDirectoryAndGarbageAreInputErrors) {
  const fs::path d = temp_dir();
  EXPECT_THROW(read_mesh(d / "does_not_exist.obj"), InputError);
  EXPECT_THROW(read_mesh(d), InputError);
  const fs::path empty = d / "empty.obj";
  std::ofstream(empty).close();
  EXPECT_THROW(read_mesh(empty), InputError);
  const fs::path garbage = d / "garbage.ply";
  const char bytes[] = "\x01\x02\x03 not a mesh \xff\xfe";
  std::ofstream(garbage, std::ios::binary) << std::string(bytes, sizeof bytes - 1);  // (was 20 of 18: ASan)
  EXPECT_THROW(read_mesh(garbage), InputError);
  const fs::path points = d / "points.obj";
  std::ofstream(points) << "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  EXPECT_THROW(read_mesh(points), InputError);
  const fs::path badindex = d / "badindex.obj";
  std::ofstream(badindex) << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n";
  EXPECT_THROW(read_mesh(badindex), InputError);
  fs::remove_all(d);
}

TEST(MeshIO, AtomicWriteLeavesNoTemporaryFile) {
  const fs::path d = temp_dir() / "atomic";
  fs::create_directories(d);
  write_file_atomic(d / "a.txt", "hello");
  EXPECT_EQ(read_text_file(d / "a.txt", "text"), "hello");
  int files = 0;
  for (auto& e : fs::directory_iterator(d)) (void)e, ++files;
  EXPECT_EQ(files, 1);
  EXPECT_THROW(write_file_atomic(d / "missing_dir" / "b.txt", "x"), std::runtime_error);
  fs::remove_all(d.parent_path());
}

TEST(MeshIO, ReadsEveryFormatOfTheCesiumMan) {
  TRYON_REQUIRE_SHARED("avatars/rigged_cesiumman/CesiumMan.glb");
  const TriMesh glb = read_mesh(shared_data_path("avatars/rigged_cesiumman/CesiumMan.glb"));
  const TriMesh dae = read_mesh(shared_data_path("avatars/rigged_cesiumman/CesiumMan.dae"));
  EXPECT_GT(glb.num_triangles(), 1000);
  EXPECT_EQ(glb.num_triangles(), dae.num_triangles());
}

TEST(ObjReader, FacesTexcoordsLinesAndNegativeIndices) {
  const std::string text =
      "# quad with uv, as tryon writes it\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
      "vt 0 0\nvt 0.5 0\nvt 0.5 0.5\nvt 0 0.5\n"
      "f 1/1 2/2 3/3 4/4\nl 1 3\nl -1 -2 -3\ng x\nusemtl y\nvn 0 0 1\n";
  const ObjContents obj = parse_obj(text, "quad.obj");
  EXPECT_EQ(obj.mesh.num_vertices(), 4);
  ASSERT_EQ(obj.mesh.num_triangles(), 2);  // fan-triangulated
  EXPECT_EQ(obj.mesh.F.row(1), Eigen::RowVector3i(0, 2, 3));
  ASSERT_EQ(obj.mesh.UV.rows(), 4);
  EXPECT_DOUBLE_EQ(obj.mesh.UV(2, 0), 0.5);
  EXPECT_DOUBLE_EQ(obj.mesh.UV(3, 1), 0.5);
  ASSERT_EQ(obj.lines.rows(), 3);
  EXPECT_EQ(obj.lines.row(0), Eigen::RowVector2i(0, 2));
  EXPECT_EQ(obj.lines.row(1), Eigen::RowVector2i(3, 2));  // -1 = last vertex so far
  // Double precision survives: distinct vertices 1e-10 apart stay distinct.
  const ObjContents fine = parse_obj("v 0.1234567890123 0 0\nv 0.1234567891123 0 0\nv 0 1 0\nf 1 2 3\n", "fine.obj");
  EXPECT_NE(fine.mesh.V(0, 0), fine.mesh.V(1, 0));
}

TEST(ObjReader, MalformedLinesNameTheLine) {
  for (const char* bad : {"v 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "v 0 0 x\n", "v 0 0 nan\n", "v 0 0 0\nf 1 2 3\n",
                          "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n",
                          "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/4 2 3\n", "v 0 0 0\nl 1\n", "v 1e999 0 0\n"}) {
    try {
      parse_obj(bad, "bad.obj");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.obj, line "), std::string::npos) << e.what();
    }
  }
}
