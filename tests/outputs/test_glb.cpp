#include "outputs/glb.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <gtest/gtest.h>
#include <assimp/Importer.hpp>

#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "gltf_validator.hpp"
#include "scenes.hpp"

using namespace tryon;
using namespace tryon::outputs;
using tryon::test::box_body;
using tryon::test::cloth_grid;
using tryon::test::fresh_dir;
using tryon::test::run_shell;
using tryon::test::ShellResult;
using tryon::test::TwoPanels;
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

TEST(Glb, PanelsAreNamedMeshesUnderTheGarmentWithSeamLinesAtlasUvsAndTheReport) {
  const TwoPanels t;
  const TriMesh body = box_body(Vec3(0, 1.0, 0), Vec3(0.2, 0.35, 0.12));
  const FitMaps maps = compute_fit_maps(t.cloth.V, t.cloth.F, t.cloth.UV, body);
  GlbOptions o;
  o.body = &body;
  o.fit_maps = &maps;
  o.panels = &t.panels;
  o.extras_json = R"({"report": {"status": "ok", "failures": []}})";
  const auto dir = fresh_dir("glb_panels");
  write_glb(dir / "garment.glb", t.cloth, t.cloth.UV, fit_map_colors(maps, FitMap::strain), o);
  std::ifstream in(dir / "garment.glb", std::ios::binary);
  const Glb g = parse_glb(std::string(std::istreambuf_iterator<char>(in), {}));
  // Scene roots: "garment" (panels and seams as children) and "body".
  const json& nodes = g.doc["nodes"];
  const json& roots = g.doc["scenes"][0]["nodes"];
  ASSERT_EQ(roots.size(), 2u);
  const json& garment = nodes[roots[0].get<int>()];
  EXPECT_EQ(garment["name"], "garment");
  EXPECT_EQ(nodes[roots[1].get<int>()]["name"], "body");
  ASSERT_EQ(garment["children"].size(), 3u);
  const int per_panel = TwoPanels::kNx * TwoPanels::kNy;
  for (int k = 0; k < 2; ++k) {
    const json& node = nodes[garment["children"][k].get<int>()];
    EXPECT_EQ(node["name"], t.panels.names[k]);
    EXPECT_EQ(node["extras"]["panel"], t.panels.names[k]);
    EXPECT_EQ(node["extras"]["label"], "body");
    const json& mesh = g.doc["meshes"][node["mesh"].get<int>()];
    EXPECT_EQ(mesh["name"], t.panels.names[k]);
    const json& attr = mesh["primitives"][0]["attributes"];
    for (const char* a : {"POSITION", "NORMAL", "TEXCOORD_0", "TEXCOORD_1", "COLOR_0", "_STRAIN", "_DISTANCE_M"})
      EXPECT_TRUE(attr.contains(a)) << a;
    EXPECT_EQ(g.doc["accessors"][attr["POSITION"].get<int>()]["count"], per_panel);
    EXPECT_EQ(g.doc["accessors"][mesh["primitives"][0]["indices"].get<int>()]["count"],
              3 * 2 * (TwoPanels::kNx - 1) * (TwoPanels::kNy - 1));
    // The panel's own vertices: its positions' bounds are its half of the garment.
    const json& pos = g.doc["accessors"][attr["POSITION"].get<int>()];
    EXPECT_NEAR(pos["min"][0].get<double>(), k == 0 ? -0.3 : 0.0, 1e-6);
    EXPECT_NEAR(pos["max"][0].get<double>(), k == 0 ? 0.0 : 0.3, 1e-6);
  }
  // Seams: both sides of the one seam, as lines, kNy − 1 edges each.
  const json& seams = nodes[garment["children"][2].get<int>()];
  EXPECT_EQ(seams["name"], "seams");
  const json& prim = g.doc["meshes"][seams["mesh"].get<int>()]["primitives"][0];
  EXPECT_EQ(prim["mode"], 1);
  EXPECT_EQ(g.doc["accessors"][prim["indices"].get<int>()]["count"], 2 * 2 * (TwoPanels::kNy - 1));
  const json& extras = g.doc["scenes"][0]["extras"]["tryon"];
  EXPECT_EQ(extras["report"]["status"], "ok");
  ASSERT_EQ(extras["panels"].size(), 2u);
  EXPECT_EQ(extras["panels"][1]["name"], "right");
  ASSERT_EQ(extras["fit_maps"].size(), 2u);
  EXPECT_EQ(extras["fit_maps"][0]["name"], "strain");
  EXPECT_EQ(extras["fit_maps"][0]["attribute"], "_STRAIN");
  EXPECT_NEAR(extras["fit_maps"][1]["max"].get<double>(), maps.distance_m.maxCoeff(), 1e-12);
  // Assimp reads one mesh per panel, named, with both UV sets.
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile((dir / "garment.glb").string(), 0);
  ASSERT_NE(scene, nullptr) << importer.GetErrorString();
  for (const char* name : {"left", "right"}) {
    const aiMesh* m = find_mesh(scene, name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->mNumVertices, static_cast<unsigned>(per_panel));
    EXPECT_TRUE(m->HasTextureCoords(0));
    EXPECT_TRUE(m->HasTextureCoords(1));
  }
  EXPECT_THROW(format_glb(t.cloth, t.cloth.UV, {}, [&] {
                 GlbOptions bad = o;
                 bad.extras_json = "[1, 2]";
                 return bad;
               }()),
               InputError);
  TRYON_EXPECT_VALID_GLTF(dir / "garment.glb");
  std::filesystem::remove_all(dir);
}

// Blender's glTF importer, headless: one object per panel, parented to "garment", with both UV
// sets, the panel extras as custom properties and the motion as animated shape keys. Skips without Blender (Debian: blender).
TEST(Glb, ImportsInBlenderWithOneObjectPerPanelAndBothUvSets) {
  if (std::system("blender --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "Blender is not installed (apt-get install blender): the import is not checked";
  const TwoPanels t;
  GlbMotion motion;  // three frames: shape keys (and the basis) with an action
  for (int k = 0; k < 3; ++k) motion.frames.push_back((t.cloth.V.array() + 0.01 * k).matrix());
  GlbOptions o;
  o.panels = &t.panels;
  o.motion = &motion;
  const auto dir = fresh_dir("glb_blender");
  write_glb(dir / "garment.glb", t.cloth, t.cloth.UV, {}, o);
  const std::string script = (tryon::test::source_dir() / "tests/outputs/blender_import_glb.py").string();
  const ShellResult r = run_shell("blender -b --factory-startup -t 1 --python '" + script + "' -- '" +
                                  (dir / "garment.glb").string() + "' 2>&1");
  ASSERT_TRUE(r.started);
  const std::string& all = r.out;
  std::map<std::string, json> objects;
  std::istringstream lines(all);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("BLENDER ", 0) == 0) {
      const json o = json::parse(line.substr(8));
      objects[o["name"].get<std::string>()] = o;
    }
  }
  ASSERT_TRUE(objects.count("left") && objects.count("right") && objects.count("seams")) << all;
  const int per_panel = TwoPanels::kNx * TwoPanels::kNy;
  for (const char* name : {"left", "right"}) {
    const json& ob = objects[name];
    EXPECT_EQ(ob["parent"], "garment") << ob.dump();
    EXPECT_EQ(ob["vertices"], per_panel) << ob.dump();
    EXPECT_EQ(ob["polygons"], 2 * (TwoPanels::kNx - 1) * (TwoPanels::kNy - 1)) << ob.dump();
    EXPECT_EQ(ob["uv_layers"].size(), 2u) << ob.dump();
    EXPECT_EQ(ob["properties"].value("panel", ""), name) << ob.dump();
    EXPECT_EQ(ob["shape_keys"], 4) << ob.dump();
    EXPECT_EQ(ob["animated"], true) << ob.dump();
  }
  EXPECT_EQ(objects["seams"]["polygons"], 0);  // lines only
  EXPECT_EQ(objects["seams"]["edges"], 2 * (TwoPanels::kNy - 1));
  std::filesystem::remove_all(dir);
}

TEST(Glb, AMotionIsOneMorphTargetPerFrameAndAnAnimationOfTheirWeights) {
  const TwoPanels t;
  GlbMotion motion;
  motion.fps = 30;
  for (int k = 0; k < 4; ++k) {  // the garment swings 2 cm further along +z each frame
    Points3 f = t.cloth.V;
    f.col(2).array() += 0.02 * k;
    motion.frames.push_back(f);
  }
  GlbOptions o;
  o.panels = &t.panels;
  o.motion = &motion;
  const std::string bytes = format_glb(t.cloth, t.cloth.UV, {}, o);
  const Glb g = parse_glb(bytes);
  int animated = 0;
  for (const json& mesh : g.doc["meshes"]) {
    const json& prim = mesh["primitives"][0];
    ASSERT_TRUE(prim.contains("targets")) << mesh["name"];
    ASSERT_EQ(prim["targets"].size(), 4u);
    EXPECT_EQ(mesh["weights"].size(), 4u);
    EXPECT_EQ(mesh["extras"]["targetNames"][3], "frame_3");
    // Target 3 moves every vertex of the mesh by 6 cm along z: its bounds say so.
    const json& d = g.doc["accessors"][prim["targets"][3]["POSITION"].get<int>()];
    EXPECT_NEAR(d["min"][2].get<double>(), 0.06, 1e-6);
    EXPECT_NEAR(d["max"][2].get<double>(), 0.06, 1e-6);
    EXPECT_NEAR(d["max"][0].get<double>(), 0.0, 1e-9);
    ++animated;
  }
  EXPECT_EQ(animated, 3);  // two panels and the seams
  ASSERT_EQ(g.doc["animations"].size(), 1u);
  const json& anim = g.doc["animations"][0];
  EXPECT_EQ(anim["channels"].size(), 3u);
  for (const json& c : anim["channels"]) EXPECT_EQ(c["target"]["path"], "weights");
  const json& input = g.doc["accessors"][anim["samplers"][0]["input"].get<int>()];
  EXPECT_EQ(input["count"], 4);
  EXPECT_NEAR(input["max"][0].get<double>(), 3.0 / 30, 1e-6);
  EXPECT_EQ(g.doc["accessors"][anim["samplers"][0]["output"].get<int>()]["count"], 16);
  const auto dir = fresh_dir("glb_motion");
  write_file_atomic(dir / "garment.glb", bytes);
  // Bad motions are refused.
  GlbMotion bad = motion;
  bad.frames[1] = bad.frames[1].topRows(3).eval();  // eval: the block aliases the matrix it is assigned to
  o.motion = &bad;
  EXPECT_THROW(format_glb(t.cloth, t.cloth.UV, {}, o), InputError);
  bad = motion;
  bad.fps = 0;
  EXPECT_THROW(format_glb(t.cloth, t.cloth.UV, {}, o), InputError);
  bad.frames.clear();
  bad.fps = 30;
  EXPECT_THROW(format_glb(t.cloth, t.cloth.UV, {}, o), InputError);
  TRYON_EXPECT_VALID_GLTF(dir / "garment.glb");
  std::filesystem::remove_all(dir);
}

TEST(Glb, SeamLinesAreTheBoundaryEdgesSewnByOneStitch) {
  const TwoPanels t;
  const Segments lines = seam_lines(t.cloth.F, t.panels.seam_pairs, t.panels.stitch_of_pair);
  ASSERT_EQ(lines.rows(), 2 * (TwoPanels::kNy - 1));
  const int n = TwoPanels::kNx * TwoPanels::kNy;
  for (Eigen::Index l = 0; l < lines.rows(); ++l) {
    // Each line joins two vertices of one panel's sewn column, one row apart.
    const int a = lines(l, 0), b = lines(l, 1);
    EXPECT_EQ(a < n, b < n);
    EXPECT_EQ(std::abs(a - b), TwoPanels::kNx);
    const double x = t.cloth.V(a, 0);
    EXPECT_NEAR(x, 0.0, 1e-12);
  }
  // Pairs of two different stitches at either end of an edge do not make a line.
  std::vector<int> alternating(TwoPanels::kNy);
  for (int j = 0; j < TwoPanels::kNy; ++j) alternating[j] = j % 2;
  EXPECT_EQ(seam_lines(t.cloth.F, t.panels.seam_pairs, alternating).rows(), 0);
  EXPECT_THROW(seam_lines(t.cloth.F, t.panels.seam_pairs, {0}), InputError);
}

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
  const auto dir = fresh_dir("glb_container");
  write_file_atomic(dir / "garment.glb", bytes);
  TRYON_EXPECT_VALID_GLTF(dir / "garment.glb");
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
  TRYON_EXPECT_VALID_GLTF(dir / "garment.glb");
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
  const TwoPanels t;
  GlbOptions o;
  GlbPanels panels = t.panels;
  o.panels = &panels;
  panels.panel_of_triangle[0] = 2;  // no such panel
  EXPECT_THROW(format_glb(t.cloth, t.cloth.UV, {}, o), InputError);
  panels = t.panels;
  panels.panel_of_triangle.pop_back();
  EXPECT_THROW(format_glb(t.cloth, t.cloth.UV, {}, o), InputError);
  panels = t.panels;
  panels.names.clear();
  EXPECT_THROW(format_glb(t.cloth, t.cloth.UV, {}, o), InputError);
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
