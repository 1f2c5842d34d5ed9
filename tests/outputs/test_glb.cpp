#include "outputs/glb.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <gtest/gtest.h>
#include <assimp/Importer.hpp>

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "scenes.hpp"

using namespace tryon;
using namespace tryon::outputs;
using tryon::test::box_body;
using tryon::test::cloth_grid;
using tryon::test::fresh_dir;
using json = nlohmann::json;

namespace {

struct Glb {
  std::uint32_t magic = 0, version = 0, length = 0;
  json doc;
  std::string bin;
};

std::uint32_t u32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  std::memcpy(&v, s.data() + at, 4);
  return v;
}

// An independent reading of the GLB container [glTF 2.0, 4.4].
Glb parse_glb(const std::string& bytes) {
  Glb g;
  g.magic = u32(bytes, 0);
  g.version = u32(bytes, 4);
  g.length = u32(bytes, 8);
  const std::uint32_t json_len = u32(bytes, 12);
  EXPECT_EQ(u32(bytes, 16), 0x4E4F534Au);
  g.doc = json::parse(bytes.substr(20, json_len));
  const std::size_t bin_at = 20 + json_len;
  const std::uint32_t bin_len = u32(bytes, bin_at);
  EXPECT_EQ(u32(bytes, bin_at + 4), 0x004E4942u);
  g.bin = bytes.substr(bin_at + 8, bin_len);
  return g;
}

struct Scene {
  TriMesh body = box_body(Vec3(0, 1.0, 0), Vec3(0.2, 0.35, 0.12));
  TriMesh cloth = cloth_grid(7, 9, 0.3, 0.4, Vec3(-0.15, 0.8, 0.16), Vec3::UnitX(), Vec3::UnitY());
  Scene() {
    for (Eigen::Index i = 0; i < cloth.V.rows(); ++i) cloth.V(i, 2) += 0.03 * std::sin(9 * cloth.V(i, 0));
  }
};

const aiMesh* find_mesh(const aiScene* scene, const std::string& name) {
  for (unsigned m = 0; m < scene->mNumMeshes; ++m)
    if (name == scene->mMeshes[m]->mName.C_Str()) return scene->mMeshes[m];
  return nullptr;
}

}  // namespace

TEST(Glb, ContainerAndJsonAreWellFormedAndCarryColor0) {
  const Scene s;
  const FitMaps maps = compute_fit_maps(s.cloth.V, s.cloth.F, s.cloth.UV, s.body);
  GlbOptions o;
  o.body = &s.body;
  o.fit_maps = &maps;
  const std::string bytes = format_glb(s.cloth, s.cloth.UV, fit_map_colors(maps, FitMap::distance), o);
  const Glb g = parse_glb(bytes);
  EXPECT_EQ(g.magic, 0x46546C67u);
  EXPECT_EQ(g.version, 2u);
  EXPECT_EQ(g.length, bytes.size());
  EXPECT_EQ(bytes.size() % 4, 0u);
  EXPECT_EQ(g.doc["asset"]["version"], "2.0");
  EXPECT_EQ(g.doc["buffers"][0]["byteLength"].get<std::size_t>(), g.bin.size());
  for (const json& v : g.doc["bufferViews"]) {
    EXPECT_EQ(v["byteOffset"].get<std::size_t>() % 4, 0u);
    EXPECT_LE(v["byteOffset"].get<std::size_t>() + v["byteLength"].get<std::size_t>(), g.bin.size());
  }
  ASSERT_EQ(g.doc["meshes"].size(), 2u);
  const json& attr = g.doc["meshes"][0]["primitives"][0]["attributes"];
  for (const char* a : {"POSITION", "NORMAL", "TEXCOORD_0", "COLOR_0", "_STRAIN", "_DISTANCE_M"})
    EXPECT_TRUE(attr.contains(a)) << a;
  const json& color = g.doc["accessors"][attr["COLOR_0"].get<int>()];
  EXPECT_EQ(color["count"], s.cloth.V.rows());
  EXPECT_EQ(color["type"], "VEC3");
  EXPECT_EQ(color["componentType"], 5126);
  // POSITION has min and max (required), and they bound the garment.
  const json& pos = g.doc["accessors"][attr["POSITION"].get<int>()];
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(pos["min"][k].get<double>(), s.cloth.V.col(k).minCoeff(), 1e-6);
    EXPECT_NEAR(pos["max"][k].get<double>(), s.cloth.V.col(k).maxCoeff(), 1e-6);
  }
  // The _STRAIN floats in the binary chunk are the strain map.
  const json& st = g.doc["accessors"][attr["_STRAIN"].get<int>()];
  const json& view = g.doc["bufferViews"][st["bufferView"].get<int>()];
  std::vector<float> strain(s.cloth.V.rows());
  std::memcpy(strain.data(), g.bin.data() + view["byteOffset"].get<std::size_t>(), strain.size() * 4);
  for (std::size_t i = 0; i < strain.size(); ++i) EXPECT_NEAR(strain[i], maps.strain[i], 1e-6);
  EXPECT_EQ(g.doc["materials"][0]["doubleSided"], true);
}

TEST(Glb, LoadsInAssimpWithPositionsNormalsUvsAndColours) {
  const Scene s;
  const FitMaps maps = compute_fit_maps(s.cloth.V, s.cloth.F, s.cloth.UV, s.body);
  const std::vector<Rgb> colors = fit_map_colors(maps, FitMap::distance);
  const auto dir = fresh_dir("glb");
  GlbOptions o;
  o.body = &s.body;
  o.fit_maps = &maps;
  write_glb(dir / "garment.glb", s.cloth, s.cloth.UV, colors, o);
  int files = 0;  // written whole: no temporary file left beside it
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);

  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile((dir / "garment.glb").string(), 0);
  ASSERT_NE(scene, nullptr) << importer.GetErrorString();
  ASSERT_EQ(scene->mNumMeshes, 2u);
  const aiMesh* m = find_mesh(scene, "garment");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->mNumVertices, static_cast<unsigned>(s.cloth.V.rows()));
  ASSERT_EQ(m->mNumFaces, static_cast<unsigned>(s.cloth.F.rows()));
  ASSERT_TRUE(m->HasNormals());
  ASSERT_TRUE(m->HasTextureCoords(0));
  ASSERT_TRUE(m->HasVertexColors(0));
  const Points3 N = vertex_normals(s.cloth.V, s.cloth.F);
  for (unsigned i = 0; i < m->mNumVertices; ++i) {
    const aiVector3D p = m->mVertices[i], n = m->mNormals[i], t = m->mTextureCoords[0][i];
    const aiColor4D c = m->mColors[0][i];
    EXPECT_NEAR(p.x, s.cloth.V(i, 0), 1e-6);
    EXPECT_NEAR(p.y, s.cloth.V(i, 1), 1e-6);
    EXPECT_NEAR(p.z, s.cloth.V(i, 2), 1e-6);
    EXPECT_NEAR(n.x, N(i, 0), 1e-6);
    EXPECT_NEAR(n.z, N(i, 2), 1e-6);
    // Assimp flips v back: the UVs read are the 2D panel coordinates.
    EXPECT_NEAR(t.x, s.cloth.UV(i, 0), 1e-6);
    EXPECT_NEAR(t.y, s.cloth.UV(i, 1), 1e-6);
    EXPECT_NEAR(c.r, srgb_to_linear(colors[i][0]), 1e-6);
    EXPECT_NEAR(c.g, srgb_to_linear(colors[i][1]), 1e-6);
    EXPECT_NEAR(c.b, srgb_to_linear(colors[i][2]), 1e-6);
  }
  for (unsigned f = 0; f < m->mNumFaces; ++f) {
    ASSERT_EQ(m->mFaces[f].mNumIndices, 3u);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(static_cast<int>(m->mFaces[f].mIndices[k]), s.cloth.F(f, k));
  }
  const aiMesh* b = find_mesh(scene, "body");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->mNumVertices, 8u);
  EXPECT_FALSE(b->HasVertexColors(0));
  std::filesystem::remove_all(dir);
}

TEST(Glb, WithoutColoursOrBodyTheFabricColourIsTheMaterial) {
  const Scene s;
  const std::string bytes = format_glb(s.cloth, Points2(), {});
  const Glb g = parse_glb(bytes);
  ASSERT_EQ(g.doc["meshes"].size(), 1u);
  const json& attr = g.doc["meshes"][0]["primitives"][0]["attributes"];
  EXPECT_FALSE(attr.contains("COLOR_0"));
  EXPECT_FALSE(attr.contains("TEXCOORD_0"));
  const GlbOptions defaults;
  EXPECT_NEAR(g.doc["materials"][0]["pbrMetallicRoughness"]["baseColorFactor"][2].get<double>(),
              srgb_to_linear(defaults.fabric_color[2]), 1e-12);
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFileFromMemory(bytes.data(), bytes.size(), 0, "glb");
  ASSERT_NE(scene, nullptr) << importer.GetErrorString();
  EXPECT_EQ(scene->mNumMeshes, 1u);
  EXPECT_FALSE(scene->mMeshes[0]->HasVertexColors(0));
}

TEST(Glb, RejectsBadInput) {
  const Scene s;
  EXPECT_THROW(format_glb(s.cloth, s.cloth.UV, std::vector<Rgb>(3)), InputError);
  EXPECT_THROW(format_glb(s.cloth, s.cloth.UV.topRows(2), {}), InputError);
  EXPECT_THROW(format_glb(TriMesh{}, Points2(), {}), InputError);
  TriMesh bad = s.cloth;
  bad.V(0, 0) = std::nan("");
  EXPECT_THROW(format_glb(bad, Points2(), {}), InputError);
}

TEST(Glb, VertexNormalsAndSrgb) {
  // A flat grid in the xz-plane, counter-clockwise seen from +y... or −y: all normals are ±y and equal.
  const TriMesh g = cloth_grid(5, 4, 1, 1, Vec3::Zero(), Vec3::UnitX(), Vec3::UnitZ());
  const Points3 N = vertex_normals(g.V, g.F);
  for (Eigen::Index i = 0; i < N.rows(); ++i) {
    EXPECT_NEAR(std::abs(N(i, 1)), 1.0, 1e-12);
    EXPECT_NEAR(N(i, 1), N(0, 1), 1e-12);
  }
  // Closed box: each corner normal points away from the centre along the diagonal.
  const TriMesh box = box_body(Vec3::Zero(), Vec3::Ones());
  const Points3 B = vertex_normals(box.V, box.F);
  for (Eigen::Index i = 0; i < 8; ++i) EXPECT_GT(B.row(i).dot(box.V.row(i)), 0);
  EXPECT_EQ(srgb_to_linear(0), 0.0);
  EXPECT_DOUBLE_EQ(srgb_to_linear(255), 1.0);
  for (int c = 1; c < 256; ++c) EXPECT_GT(srgb_to_linear(c), srgb_to_linear(c - 1));
  EXPECT_LT(srgb_to_linear(128), 0.5 * 128 / 255);  // the transfer curve lies below the diagonal
}
