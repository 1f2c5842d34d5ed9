// Hostile input, end to end through `tryon inspect` and `tryon drape`: every pattern and body in
// tests/hostile/ (and a few made here: binary garbage, deep nesting, huge headers, unreadable
// files) is refused with exit 2 and a message naming the file and the problem, or — for a body
// that is odd but usable — draped with exit 1 and a report; always within a time limit, and a
// refused input leaves no output file behind.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_bounded.hpp"
#include "test_data.hpp"

namespace fs = std::filesystem;
using tryon::test::BoundedResult;
using tryon::test::run_bounded;

namespace {

fs::path corpus() { return tryon::test::source_dir() / "tests" / "hostile"; }
fs::path good_body() { return tryon::test::assets() / "bodies" / "mean_all.obj"; }
fs::path good_pattern() { return corpus() / "patterns" / "valid_two_squares.json"; }

std::string q(const fs::path& p) {
  std::string s(1, '\'');
  s += p.string();
  s += '\'';
  return s;
}

/// A fresh folder per test under the temporary directory.
fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("tryon_hostile_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

/// Deterministic pseudo-random bytes (a linear congruential generator, Numerical Recipes' constants).
std::string garbage(std::size_t n, std::uint32_t seed) {
  std::string s(n, '\0');
  for (char& c : s) {
    seed = seed * 1664525u + 1013904223u;
    c = static_cast<char>(seed >> 24);
  }
  return s;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// The sample body with every coordinate multiplied by `scale`, written to `out` (OBJ).
void write_scaled_body(const fs::path& out, double scale) {
  std::ifstream in(good_body());
  std::ofstream o(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("v ", 0) == 0) {
      double x, y, z;
      std::sscanf(line.c_str(), "v %lf %lf %lf", &x, &y, &z);
      o << "v " << x * scale << ' ' << y * scale << ' ' << z * scale << '\n';
    } else {
      o << line << '\n';
    }
  }
}

/// An axis-aligned box `w × h × d` (12 triangles), written to `out` (OBJ).
void write_box(const fs::path& out, double w, double h, double d) {
  std::ofstream o(out);
  for (int i = 0; i < 8; ++i) o << "v " << (i & 1) * w << ' ' << ((i >> 1) & 1) * h << ' ' << ((i >> 2) & 1) * d << '\n';
  o << "f 1 3 2\nf 2 3 4\nf 5 6 7\nf 6 8 7\nf 1 2 5\nf 2 6 5\nf 3 7 4\nf 4 7 8\nf 1 5 3\nf 3 5 7\nf 2 4 6\nf 4 8 6\n";
}

/// A refused input: exit 2, in time, and the message names the file and the problem (`words`:
/// one of them must appear, case-insensitively).
void expect_refused(const BoundedResult& r, const fs::path& file, const std::vector<std::string>& words,
                    const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_FALSE(r.timed_out) << "did not finish in time";
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(file.filename().string()), std::string::npos) << "the message does not name the file: " << r.err;
  bool named = false;
  for (const auto& w : words) named |= lower(r.err).find(lower(w)) != std::string::npos;
  EXPECT_TRUE(named) << "the message does not name the problem (any of: " << ::testing::PrintToString(words)
                     << "): " << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

/// Runs `inspect` (with --avatar when `as_body`) and `drape` on the input and expects both to
/// refuse it, leaving no output.
void expect_both_refuse(const fs::path& file, bool as_body, const std::vector<std::string>& words) {
  const fs::path out = scratch("out") / "drape";
  const fs::path placed = out.parent_path() / "placed.obj";
  const std::string inspect =
      as_body ? "inspect " + q(good_pattern()) + " --avatar " + q(file) : "inspect " + q(file);
  expect_refused(run_bounded(inspect + " -o " + q(placed)), file, words, "tryon " + inspect);
  EXPECT_FALSE(fs::exists(placed)) << "inspect left " << placed;
  const std::string drape = "drape " + q(as_body ? good_pattern() : file) + " --avatar " +
                            q(as_body ? file : good_body()) + " -o " + q(out) +
                            " --max-frames 2 --resolution-cm 5 --quiet";
  expect_refused(run_bounded(drape), file, words, "tryon " + drape);
  EXPECT_FALSE(fs::exists(out)) << "drape left an output folder " << out;
  fs::remove_all(out.parent_path());
}

struct Case {
  const char* file;
  std::vector<std::string> words;  ///< the message names the problem with one of these
};

const std::vector<Case>& pattern_cases() {
  static const std::vector<Case> cases = {
      {"empty.json", {"not valid JSON"}},
      {"truncated.json", {"not valid JSON"}},
      {"top_level_array.json", {"expected an object"}},
      {"top_level_string.json", {"expected an object"}},
      {"no_pattern_key.json", {"missing \"pattern\""}},
      {"panels_is_list.json", {"must be an object of named panels"}},
      {"no_panels.json", {"no panels"}},
      {"vertices_are_strings.json", {"list of 2 numbers"}},
      {"endpoint_is_float.json", {"whole number"}},
      {"stitches_is_object.json", {"\"stitches\" must be a list"}},
      {"infinite_number.json", {"not valid JSON", "not a finite number"}},
      {"nan_literal.json", {"not valid JSON"}},
      {"huge_coordinates.json", {"not a garment", "not finite"}},
      {"huge_panel.json", {"not a garment"}},
      {"huge_translation.json", {"not around a body"}},
      {"huge_rotation.json", {"rotation angle"}},
      {"zero_units.json", {"units_in_meter"}},
      {"negative_units.json", {"units_in_meter"}},
      {"tiny_units.json", {"units_in_meter", "not a garment"}},
      {"units_is_string.json", {"units_in_meter must be a number"}},
      {"two_vertices.json", {"at least 3"}},
      {"collinear_panel.json", {"no area"}},
      {"self_crossing_panel.json", {"crosses itself", "folds onto itself"}},
      {"duplicate_vertex.json", {"zero length"}},
      {"open_outline.json", {"not a closed loop"}},
      {"endpoint_out_of_range.json", {"out of range"}},
      {"endpoint_negative.json", {"out of range"}},
      {"endpoint_huge.json", {"out of range", "whole number"}},
      {"stitch_to_missing_panel.json", {"does not exist"}},
      {"stitch_to_missing_edge.json", {"out of range"}},
      {"stitch_to_itself.json", {"to itself"}},
      {"stitch_one_side.json", {"two edge references"}},
      {"unknown_curve.json", {"unknown curve type"}},
      {"curve_wrong_params.json", {"2 control points"}},
      {"huge_curvature.json", {"not a garment"}},
      {"curve_loops_back.json", {"crosses itself"}},
      // No circle of that radius joins the edge's ends (radius 1 cm, ends 40 cm apart).
      {"circle_too_small.json", {"less than half the distance between the edge's ends"}},
      // Ends 40 cm apart, joined the long way round a circle of 10^19 m.
      {"circle_huge_large_arc.json", {"not a garment"}},
      // DXF-AAMA / ASTM D6673 (valid_one_piece.dxf is the file the broken ones start from).
      {"dxf_bad_group_code.dxf", {"group code"}},
      {"dxf_binary.dxf", {"binary DXF"}},
      {"dxf_block_never_ends.dxf", {"no ENDBLK"}},
      {"dxf_truncated.dxf", {"no ENDBLK", "truncated"}},
      {"dxf_huge_coordinate.dxf", {"out of range"}},
      {"dxf_nan_coordinate.dxf", {"not a finite number"}},
      {"dxf_insert_of_missing_block.dxf", {"does not define"}},
      {"dxf_no_blocks.dxf", {"no BLOCKS"}},
      {"dxf_two_point_boundary.dxf", {"at least 3"}},
      {"dxf_unknown_unit.dxf", {"unknown unit"}},
  };
  return cases;
}

const std::vector<Case>& body_cases() {
  static const std::vector<Case> cases = {
      {"empty.obj", {"no triangles"}},
      {"points_only.obj", {"no triangles"}},
      {"lines_only.obj", {"no triangles"}},
      {"face_index_too_big.obj", {"refers to vertex"}},
      {"face_index_zero.obj", {"not an index"}},
      {"face_index_negative.obj", {"refers to vertex"}},
      {"face_index_overflow.obj", {"not an index"}},
      {"face_index_text.obj", {"not an index"}},
      {"nan_vertex.obj", {"not a finite number"}},
      {"inf_vertex.obj", {"not a finite number"}},
      {"huge_vertex.obj", {"not a person's size"}},
      {"flat.obj", {"flat"}},
      {"degenerate_only.obj", {"no triangles with area"}},
      {"vertex_two_coords.obj", {"needs 3 coordinates"}},
      {"texcoord_out_of_range.obj", {"texture coordinate"}},
      {"face_two_vertices.obj", {"at least 3 vertices"}},
      {"truncated.stl", {"cannot read mesh", "no triangles"}},
      {"ply_bad_index.ply", {"cannot read mesh", "missing vertex"}},
      {"ply_huge_count.ply", {"cannot fit"}},
      {"garbage.gltf", {"cannot read mesh"}},
      {"single_triangle.obj", {"has 1 triangle with area"}},
      {"tetrahedron.obj", {"has 4 triangles with area"}},
  };
  return cases;
}

}  // namespace

TEST(Hostile, ValidBaselineIsAcceptedByInspect) {
  // The corpus's one good pattern passes, so that the refusals below are about what each file breaks.
  const BoundedResult r = run_bounded("inspect " + q(good_pattern()) + " --avatar " + q(good_body()) + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["panels"], 2);
  EXPECT_EQ(doc["stitches"], 1);
}

TEST(Hostile, ValidDxfBaselineIsAcceptedByInspect) {
  const BoundedResult r = run_bounded("inspect " + q(corpus() / "patterns" / "valid_one_piece.dxf") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["panels"], 1);
}

TEST(Hostile, PatternsAreRefusedWithTheProblemNamed) {
  for (const Case& c : pattern_cases()) expect_both_refuse(corpus() / "patterns" / c.file, false, c.words);
}

TEST(Hostile, BodiesAreRefusedWithTheProblemNamed) {
  for (const Case& c : body_cases()) expect_both_refuse(corpus() / "bodies" / c.file, true, c.words);
}

TEST(Hostile, GeneratedPatternsAreRefused) {
  const fs::path dir = scratch("gen_patterns");
  // Binary garbage, deep nesting (a recursive parser's stack), a huge string, a NUL in the middle.
  write_bytes(dir / "garbage.json", garbage(100000, 7));
  expect_both_refuse(dir / "garbage.json", false, {"not valid JSON"});
  write_bytes(dir / "deep_nesting.json", std::string(1000000, '[') + std::string(1000000, ']'));
  expect_both_refuse(dir / "deep_nesting.json", false, {"nesting"});
  write_bytes(dir / "deep_objects.json", "{\"pattern\": " + std::string(100000, '{') + std::string(100000, '}') + "}");
  expect_both_refuse(dir / "deep_objects.json", false, {"nesting"});
  write_bytes(dir / "nul.json", std::string("{\"pattern\": {\"panels\": {}, \0 \"stitches\": []}}", 44));
  expect_both_refuse(dir / "nul.json", false, {"not valid JSON"});
  // Many panels and vertices: refused by count before any geometry.
  std::string many = "{\"pattern\": {\"panels\": {";
  for (int i = 0; i < 1001; ++i) many += (i ? ",\"p" : "\"p") + std::to_string(i) + "\": {}";
  many += "}, \"stitches\": []}}";
  write_bytes(dir / "many_panels.json", many);
  expect_both_refuse(dir / "many_panels.json", false, {"more than 1000"});
  // Too many vertices in one panel, and the largest panel accepted drawn as a comb of curved
  // teeth (every segment overlaps every other in x: the outline checks' worst case) that also
  // crosses itself, which must be found in bounded time.
  auto comb = [](int teeth) {
    std::string v, e;
    const int n = 2 * teeth;
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on chains of + with string literals.
    for (int i = 0; i < teeth; ++i) {
      v += i ? ",[0," : "[0,";
      v += std::to_string(0.4 * i);
      v += "],[40,";
      v += std::to_string(0.4 * i + 0.2);
      v += "]";
    }
    for (int i = 0; i < n; ++i) {
      e += i ? ",{\"endpoints\":[" : "{\"endpoints\":[";
      e += std::to_string(i);
      e += ",";
      e += std::to_string((i + 1) % n);
      e += "],\"curvature\":{\"type\":\"quadratic\",\"params\":[[0.5,0.3]]}}";
    }
    return "{\"pattern\": {\"panels\": {\"comb\": {\"vertices\": [" + v + "], \"edges\": [" + e +
           "]}}, \"stitches\": []}}";
  };
  write_bytes(dir / "comb_too_many.json", comb(501));
  expect_both_refuse(dir / "comb_too_many.json", false, {"more than 1000"});
  write_bytes(dir / "comb.json", comb(500));
  expect_both_refuse(dir / "comb.json", false, {"crosses itself", "not a closed loop", "cannot be sewn"});
  // Not files: a directory, a missing path, a FIFO, a character device.
  fs::create_directories(dir / "a_folder.json");
  expect_both_refuse(dir / "a_folder.json", false, {"is a directory"});
  expect_both_refuse(dir / "missing.json", false, {"does not exist"});
  ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0600), 0);
  expect_both_refuse(dir / "fifo.json", false, {"not a regular file"});
  fs::remove_all(dir);
}

TEST(Hostile, GeneratedBodiesAreRefused) {
  const fs::path dir = scratch("gen_bodies");
  for (const char* ext : {"obj", "ply", "stl", "glb", "fbx", "dae"}) {
    const fs::path f = dir / (std::string("garbage.") + ext);
    write_bytes(f, garbage(65536, 11));
    expect_both_refuse(f, true, {"cannot read mesh", "not a finite number", "not an index", "no triangles"});
  }
  // A binary STL whose header promises 4 billion triangles that are not there.
  std::string stl(80, ' ');
  stl += std::string("\xff\xff\xff\xff", 4) + garbage(100, 3);
  write_bytes(dir / "huge_count.stl", stl);
  expect_both_refuse(dir / "huge_count.stl", true, {"cannot read mesh", "no triangles"});
  // A binary PLY declaring 100 million vertices and holding none (Assimp would allocate 1.2 GB).
  write_bytes(dir / "huge_count.ply",
              "ply\nformat binary_little_endian 1.0\nelement vertex 100000000\nproperty float x\nproperty float y\n"
              "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n");
  expect_both_refuse(dir / "huge_count.ply", true, {"cannot fit"});
  // A kilometre tall: the sample body scaled to 1000 m, written in centimetres.
  write_scaled_body(dir / "kilometre.obj", 1000.0 / 1.7 * 100.0);
  expect_both_refuse(dir / "kilometre.obj", true, {"not a person's size"});
  fs::create_directories(dir / "a_folder.obj");
  expect_both_refuse(dir / "a_folder.obj", true, {"is a directory"});
  expect_both_refuse(dir / "missing.obj", true, {"does not exist"});
  expect_both_refuse("/dev/zero", true, {"not a regular file"});
  if (::geteuid() != 0) {  // root reads any file
    write_bytes(dir / "locked.obj", "v 0 0 0\n");
    fs::permissions(dir / "locked.obj", fs::perms::none);
    expect_both_refuse(dir / "locked.obj", true, {"cannot be read"});
  }
  fs::remove_all(dir);
}

TEST(Hostile, OddBodiesAreRefusedAtOnceByADefaultDrape) {
  // What cannot be a person is refused at load, before any drape: with the default settings a
  // drape around a single triangle or a box runs to the frame limit (about 2 minutes for the
  // two squares), the cloth falling past the body and crumpling.
  const fs::path dir = scratch("odd_refused");
  write_box(dir / "kilometre_box.obj", 300, 1000, 100);  // 1000 units: 1 m in millimetres, but 12 triangles
  write_scaled_body(dir / "kilometre_in_mm.obj", 1000.0 / 1.7 * 1000.0);
  {  // a flat sheet standing upright, 0.5 × 1.7 m in 20 × 20 squares (800 triangles)
    std::ofstream o(dir / "sheet.obj");
    for (int i = 0; i <= 20; ++i)
      for (int j = 0; j <= 20; ++j) o << "v " << 0.025 * i << ' ' << 0.085 * j << " 0\n";
    for (int i = 0; i < 20; ++i)
      for (int j = 0; j < 20; ++j) {
        const int a = i * 21 + j + 1, b = a + 1, c = a + 21, d = c + 1;
        o << "f " << a << ' ' << c << ' ' << b << "\nf " << b << ' ' << c << ' ' << d << '\n';
      }
  }
  const std::vector<std::pair<fs::path, std::string>> bodies = {
      {corpus() / "bodies" / "single_triangle.obj", "has 1 triangle with area"},
      {corpus() / "bodies" / "tetrahedron.obj", "has 4 triangles with area"},
      {dir / "kilometre_box.obj", "has 12 triangles with area"},
      {dir / "kilometre_in_mm.obj", "not a person's size"},
      {dir / "sheet.obj", "encloses no volume"},
  };
  for (const auto& [body, words] : bodies) {
    const fs::path out = dir / ("out_" + body.stem().string());
    const std::string drape = "drape " + q(good_pattern()) + " --avatar " + q(body) + " -o " + q(out);
    expect_refused(run_bounded(drape, 15), body, {words}, "tryon " + drape);
    EXPECT_FALSE(fs::exists(out));
    const std::string inspect = "inspect " + q(good_pattern()) + " --avatar " + q(body);
    expect_refused(run_bounded(inspect, 15), body, {words}, "tryon " + inspect);
  }
  fs::remove_all(dir);
}

TEST(Hostile, OddButUsableBodiesDrapeWithAReport) {
  const fs::path dir = scratch("odd_bodies");
  {  // the sample body with 2 % of its faces removed, all over: open, but a body still
    std::ifstream in(good_body());
    std::ofstream out(dir / "open.obj");
    std::vector<std::string> faces;
    for (std::string line; std::getline(in, line);)
      (line.rfind("f ", 0) == 0 ? faces.push_back(line) : void(out << line << '\n'));
    for (std::size_t f = 0; f < faces.size(); ++f)
      if (f % 50 != 0) out << faces[f] << '\n';
  }
  // A kilometre tall in metres is 1000 units: read as millimetres, a 1 m child's body.
  write_scaled_body(dir / "kilometre_in_m.obj", 1000.0 / 1.7);
  for (const fs::path& body : {dir / "open.obj", dir / "kilometre_in_m.obj"}) {
    SCOPED_TRACE(body.string());
    const fs::path out = dir / ("out_" + body.stem().string());
    const BoundedResult r = run_bounded("drape " + q(good_pattern()) + " --avatar " + q(body) + " -o " + q(out) +
                                        " --max-frames 3 --resolution-cm 5 --quiet");
    EXPECT_FALSE(r.timed_out);
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.code << " " << r.err;
    ASSERT_TRUE(fs::exists(out / "report.json")) << r.err;
    std::ifstream in(out / "report.json");
    const auto report = nlohmann::json::parse(in);
    EXPECT_EQ(report["status"] == "ok", r.code == 0);
    if (r.code == 1) {
      EXPECT_FALSE(report["failures"].empty());
    }
    EXPECT_TRUE(fs::exists(out / "garment.obj"));
    const BoundedResult i = run_bounded("inspect " + q(good_pattern()) + " --avatar " + q(body) + " --json");
    EXPECT_EQ(i.code, 0) << i.err;
  }
  // The open body says so; the kilometre is read as millimetres, and says so.
  const BoundedResult i = run_bounded("inspect " + q(good_pattern()) + " --avatar " + q(dir / "open.obj") + " --json");
  EXPECT_NE(i.out.find("not closed"), std::string::npos) << i.out;
  const BoundedResult km =
      run_bounded("inspect " + q(good_pattern()) + " --avatar " + q(dir / "kilometre_in_m.obj") + " --json");
  ASSERT_EQ(km.code, 0) << km.err;
  const auto doc = nlohmann::json::parse(km.out);
  EXPECT_EQ(doc["avatar"]["unit"], "mm");
  EXPECT_NEAR(doc["avatar"]["height_m"].get<double>(), 1.0, 0.02);
  fs::remove_all(dir);
}
