// From DXF pieces to a sewable pattern: orientation, unfolding, mirrored pairs, split
// sleeves, key points, the seam matcher, seam files, polyline edges, and the arrangement.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "avatars/avatar.hpp"
#include "avatars/landmarks.hpp"
#include "core/error.hpp"
#include "garments/dxf_arrange.hpp"
#include "garments/dxf_pieces.hpp"
#include "garments/garment_builder.hpp"
#include "garments/pattern_loader.hpp"
#include "garments/validate.hpp"
#include "quality/quality.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::garments;
using namespace tryon::garments::dxf;
namespace fs = std::filesystem;

namespace {

const char* kTank = "patterns/dxf/WM_SLIM_TANK.DXF";
const char* kTee = "patterns/dxf/MEN_CLASSIC_TEE.DXF";
const std::map<std::string, int> kTeeOnePieceSleeves = {
    {"REGULAR TEESL1", 2}, {"REGULAR TEESL FR", 0}, {"REGULAR TEESL BK", 0}};

DxfPattern shared(const char* rel) { return read_dxf(tryon::test::shared_data_path(rel)); }

double range_length(const CutPiece& c, const std::string& from, const std::string& to) {
  const int n = static_cast<int>(c.outline.size());
  double len = 0;
  for (int i = c.key_index(from); i != c.key_index(to); i = (i + 1) % n) len += (c.outline[(i + 1) % n] - c.outline[i]).norm();
  return len;
}

double seam_length(const CutPattern& cut, const SeamSide& s) {
  return range_length(cut.pieces[cut.find(s.panel)], s.from, s.to);
}

}  // namespace

TEST(DxfPieces, ClassifiesPieceNames) {
  EXPECT_EQ(classify("REGULAR TEEFR", ""), Role::front);
  EXPECT_EQ(classify("TANK_SR_BK", ""), Role::back);
  EXPECT_EQ(classify("REGULAR TEESL1", "SLEEVE SHORT"), Role::sleeve);
  EXPECT_EQ(classify("REGULAR TEESL FR", ""), Role::sleeve_front);
  EXPECT_EQ(classify("REGULAR TEECO", ""), Role::collar);
  EXPECT_EQ(classify("7", ""), Role::other);
  EXPECT_EQ(classify("PIECE 11", "Back Bodice"), Role::back);
  // The style's common prefix is ignored: "ORILEG" is not a leg, "LL" is.
  EXPECT_EQ(classify("ORILEG WB LL", "LENGTH OPTIONS", "ORILEG WB "), Role::leg);
  EXPECT_EQ(classify("ORILEG WB WB", "P1", "ORILEG WB "), Role::waistband);
  EXPECT_EQ(classify("GMH1006FLS", "SLEEVE LONG", "GMH1006F"), Role::sleeve);
}

TEST(DxfPieces, LeggingsLegsAreSplitMatchedAndArranged) {
  TRYON_REQUIRE_SHARED("patterns/dxf/ORILEGWB_AAMA.DXF");
  const CutPattern cut = cut_pieces(shared("patterns/dxf/ORILEGWB_AAMA.DXF"));
  int fronts = 0, backs = 0;
  for (const CutPiece& c : cut.pieces) {
    fronts += c.role == Role::leg_front;
    backs += c.role == Role::leg_back;
    if (c.role != Role::leg_front && c.role != Role::leg_back) continue;
    for (const char* label : {"side", "hem", "inseam", "rise", "waist"}) {
      EXPECT_TRUE(c.ranges.count(label)) << c.name << " " << label;
    }
  }
  EXPECT_EQ(fronts, 2);
  EXPECT_EQ(backs, 2);
  std::vector<std::string> notes;
  const auto seams = propose_seams(cut, notes);
  ASSERT_EQ(seams.size(), 6u);  // per leg side seam and inseam; front and back crotch
  for (const Seam& s : seams) {
    SCOPED_TRACE(s.note);
    const double la = seam_length(cut, s.a), lb = seam_length(cut, s.b);
    if (s.note.rfind("side seam", 0) == 0) {
      EXPECT_NEAR(la, lb, 1e-9);  // the two sides of one cut
    } else {
      EXPECT_LT(std::max(la, lb) / std::min(la, lb), 1.1);
    }
  }
  EXPECT_TRUE(validate_pattern(to_pattern(cut, seams, "leggings")).ok());
  // Around the legs: each leg's halves on its side of the body, fronts in front.
  TRYON_REQUIRE_SHARED("avatars/garmentcode/mean_all.obj");
  const avatars::Avatar body = avatars::load_avatar(tryon::test::shared_data_path("avatars/garmentcode/mean_all.obj"));
  PatternOptions o;
  o.body = &body.mesh;
  const Pattern p = read_pattern(tryon::test::shared_data_path("patterns/dxf/ORILEGWB_AAMA.DXF"), o);
  ASSERT_EQ(p.panels.size(), 4u);  // the waistband is left out: nothing sews it
  BuildOptions bopt;
  bopt.resolution_m = 0.03;
  const GarmentBuild build = build_garment(p, bopt);
  const avatars::Landmarks L = avatars::find_landmarks(body.mesh);
  for (const auto& s : build.panels) {
    SCOPED_TRACE(s.name);
    Vec3 lo = Vec3::Constant(1e9), hi = Vec3::Constant(-1e9);
    for (int v = s.first_vertex; v < s.first_vertex + s.vertices; ++v)
      lo = lo.cwiseMin(build.mesh.V.row(v).transpose()), hi = hi.cwiseMax(build.mesh.V.row(v).transpose());
    const CutPiece& c = cut.pieces[cut.find(s.name)];
    EXPECT_EQ(sleeve_side(c) > 0, lo.x() + hi.x() > 0);
    EXPECT_GT(hi.y(), L.waist_y);
    EXPECT_LT(lo.y(), L.crotch_y - 0.5);
    EXPECT_EQ(c.role == Role::leg_front, lo.z() > 0);
  }
  const std::vector<double> w = quality::winding_numbers(build.mesh.V, body.mesh.V, body.mesh.F);
  int inside = 0;
  for (double x : w) inside += x >= 0.5;
  EXPECT_EQ(inside, 0);
}

TEST(DxfPieces, PolylineEdgesMeasureAndSampleAlongTheirPoints) {
  Panel p;
  p.vertices = {{0, 0}, {1, 1}};
  Edge e;
  e.start = 0;
  e.end = 1;
  e.kind = CurveKind::polyline;
  e.controls = {{1, 0}};  // an L: (0,0) → (1,0) → (1,1)
  EXPECT_DOUBLE_EQ(edge_length(p, e), 2.0);
  const auto s = sample_edge(p, e, 4);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_TRUE(s[1].isApprox(Vec2(0.5, 0)));
  EXPECT_TRUE(s[2].isApprox(Vec2(1, 0)));
  EXPECT_TRUE(s[3].isApprox(Vec2(1, 0.5)));
  EXPECT_TRUE(edge_point(p, e, 0.75).isApprox(Vec2(1, 0.5)));
}

TEST(DxfPieces, TankIsUnfoldedOrientedAndMatched) {
  TRYON_REQUIRE_SHARED(kTank);
  const CutPattern cut = cut_pieces(shared(kTank));
  EXPECT_EQ(cut.size, "36");
  ASSERT_EQ(cut.pieces.size(), 2u);
  for (const CutPiece& c : cut.pieces) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(c.unfolded);
    // Unfolded on x = 0: symmetric, grain up (the garment is taller than half its width).
    double xmin = 1e9, xmax = -1e9, ymax = -1e9;
    for (const Vec2& q : c.outline) xmin = std::min(xmin, q.x()), xmax = std::max(xmax, q.x()), ymax = std::max(ymax, q.y());
    EXPECT_NEAR(xmin, -xmax, 1e-4);  // within 0.1 mm: the fold line itself is drawn that straight
    EXPECT_NEAR(ymax * 100, 63, 1.0);   // 62.4 / 63.0 cm long
    EXPECT_NEAR(xmax * 100, 22.7, 0.2); // the half piece was 22.7 cm wide
    for (const char* label : {"hem", "side_r", "side_l", "armhole_r", "shoulder_r", "neck", "shoulder_l", "armhole_l"})
      EXPECT_TRUE(c.ranges.count(label)) << label;
  }
  std::vector<std::string> notes;
  const auto seams = propose_seams(cut, notes);
  ASSERT_EQ(seams.size(), 4u);  // two side seams, two shoulders
  for (const Seam& s : seams) {
    SCOPED_TRACE(s.note);
    EXPECT_NE(s.a.panel, s.b.panel);
    const double la = seam_length(cut, s.a), lb = seam_length(cut, s.b);
    EXPECT_LT(std::max(la, lb) / std::min(la, lb), 1.05);  // matched seams are of one length
  }
  const Pattern pattern = to_pattern(cut, seams, "tank");
  const Diagnostics d = validate_pattern(pattern);
  EXPECT_TRUE(d.ok()) << (d.errors.empty() ? "" : d.errors.front());
  ASSERT_EQ(pattern.stitches.size(), 4u);
  // The stitched edges carry the matcher's labels.
  const Panel& front = pattern.panels[pattern.find_panel("TANK_SR_FR")];
  EXPECT_EQ(front.edges[pattern.stitches[0].a.edge].label, "side_r");
}

TEST(DxfPieces, TeeWithOnePieceSleevesGetsSleevesSewnIn) {
  TRYON_REQUIRE_SHARED(kTee);
  const DxfPattern dxf = shared(kTee);
  // As the file says: the sleeve pieces do not pair, and the matcher says why.
  {
    const CutPattern cut = cut_pieces(dxf);
    std::vector<std::string> notes;
    const auto seams = propose_seams(cut, notes);
    EXPECT_EQ(seams.size(), 4u);
    bool said = false;
    for (const auto& n : notes) said |= n.find("do not pair") != std::string::npos;
    EXPECT_TRUE(said);
  }
  // With the reference one-piece sleeve cut twice: split into halves and sewn in.
  const CutPattern cut = cut_pieces(dxf, "", kTeeOnePieceSleeves);
  std::set<std::string> names;
  for (const auto& c : cut.pieces) names.insert(c.name);
  EXPECT_TRUE(names.count("REGULAR TEESL1 front") && names.count("REGULAR TEESL1 (mirror) back"));
  EXPECT_EQ(cut.split_sleeves.size(), 2u);
  std::vector<std::string> notes;
  const auto seams = propose_seams(cut, notes);
  ASSERT_EQ(seams.size(), 12u);  // 2 sides, 2 shoulders, per sleeve 2 armholes + overarm + underarm
  for (const Seam& s : seams) {
    SCOPED_TRACE(s.note);
    const double la = seam_length(cut, s.a), lb = seam_length(cut, s.b);
    EXPECT_LT(std::max(la, lb) / std::min(la, lb), 1.1);
  }
  // Each sleeve side sits on one arm: a left front half pairs with a left back half.
  for (const Seam& s : seams) {
    if (s.note.rfind("overarm", 0) == 0) {
      EXPECT_EQ(sleeve_side(cut.pieces[cut.find(s.a.panel)]), sleeve_side(cut.pieces[cut.find(s.b.panel)]));
    }
  }
  EXPECT_TRUE(validate_pattern(to_pattern(cut, seams, "tee")).ok());
  EXPECT_THROW(cut_pieces(dxf, "", {{"NO SUCH PIECE", 1}}), InputError);
  EXPECT_THROW(cut_pieces(dxf, "", {{"REGULAR TEESL1", 5}}), InputError);
}

TEST(DxfPieces, SeamFilesRoundTripAndBadOnesAreNamed) {
  TRYON_REQUIRE_SHARED(kTank);
  const CutPattern cut = cut_pieces(shared(kTank));
  std::vector<std::string> notes;
  const auto seams = propose_seams(cut, notes);
  const nlohmann::json doc = seams_to_json(cut, seams);
  const auto back = parse_seams(doc, cut, "s.json");
  ASSERT_EQ(back.size(), seams.size());
  for (std::size_t i = 0; i < seams.size(); ++i) {
    EXPECT_EQ(back[i].a.panel, seams[i].a.panel);
    EXPECT_EQ(back[i].b.to, seams[i].b.to);
  }
  auto expect_error = [&](nlohmann::json j, const std::string& fragment) {
    try {
      parse_seams(j, cut, "s.json");
      FAIL() << fragment;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  nlohmann::json bad = doc;
  bad["seams"][0]["a"]["panel"] = "NOPE";
  expect_error(bad, "no panel 'NOPE'");
  bad = doc;
  bad["seams"][1]["b"]["to"] = "n99";
  expect_error(bad, "no point 'n99'");
  bad = doc;
  bad["size"] = "40";
  expect_error(bad, "size '40'");
  expect_error(nlohmann::json::array(), "\"seams\" list");
  // Overlapping ranges on one panel cannot both be sewn.
  std::vector<Seam> overlap = seams;
  overlap.push_back(seams[0]);
  EXPECT_THROW(to_pattern(cut, overlap, "x"), InputError);
  // Outline points "pN" address any point.
  nlohmann::json raw = doc;
  raw["seams"] = nlohmann::json::array({{{"a", {{"panel", "TANK_SR_FR"}, {"from", "p0"}, {"to", "p2"}}},
                                         {"b", {{"panel", "TANK_SR_BK"}, {"from", "p0"}, {"to", "p2"}}}}});
  EXPECT_EQ(parse_seams(raw, cut, "s.json").size(), 1u);
}

TEST(DxfPieces, LoaderReadsBothFormatsAndUsesSeamFiles) {
  TRYON_REQUIRE_SHARED(kTee);
  // GarmentCode still loads through the same entry point.
  const LoadedPattern gc = load_pattern(tryon::test::assets() / "patterns/shirt_mean_specification.json");
  EXPECT_EQ(gc.format, "garmentcode");
  EXPECT_FALSE(gc.dxf.has_value());
  const fs::path seams = fs::temp_directory_path() / ("tee_" + std::to_string(::getpid()) + ".seams.json");
  {
    std::ofstream out(seams);
    out << R"({"quantities": {"REGULAR TEESL1": 2, "REGULAR TEESL FR": 0, "REGULAR TEESL BK": 0}})";
  }
  PatternOptions o;
  o.seams = seams;
  const LoadedPattern tee = load_pattern(tryon::test::shared_data_path(kTee), o);
  EXPECT_EQ(tee.format, "dxf");
  EXPECT_TRUE(tee.seams_proposed);  // the file gave quantities, not seams
  EXPECT_EQ(tee.pattern.stitches.size(), 12u);
  EXPECT_EQ(tee.pattern.panels.size(), 6u);  // the collar rib is left out: nothing sews it
  bool collar_note = false;
  for (const auto& n : tee.notes) collar_note |= n.find("REGULAR TEECO' is left out") != std::string::npos;
  EXPECT_TRUE(collar_note);
  EXPECT_TRUE(validate_pattern(tee.pattern).ok());
  // Another graded size loads and is larger.
  o.size = "70";
  const LoadedPattern big = load_pattern(tryon::test::shared_data_path(kTee), o);
  EXPECT_EQ(big.cut->size, "70");
  o.size = "3XL";
  EXPECT_THROW(load_pattern(tryon::test::shared_data_path(kTee), o), InputError);
  fs::remove(seams);
  o.size.clear();
  EXPECT_THROW(load_pattern(tryon::test::shared_data_path(kTee), o), InputError);  // the seam file is gone
}

// Without a seam file the loader sees that the tee's sleeve pieces do not pair and that its
// reference one-piece sleeve does, and cuts that one twice instead, saying so; the quantities
// it chose are the loaded pattern's (inspect prints them with the proposed seams).
TEST(DxfPieces, LoaderCutsTheReferenceSleeveWhenTheSleevePiecesDoNotPair) {
  TRYON_REQUIRE_SHARED(kTee);
  const LoadedPattern tee = load_pattern(tryon::test::shared_data_path(kTee));
  EXPECT_EQ(tee.quantities, kTeeOnePieceSleeves);
  EXPECT_TRUE(tee.seams_proposed);
  EXPECT_EQ(tee.pattern.stitches.size(), 12u);
  EXPECT_EQ(tee.pattern.panels.size(), 6u);
  bool said = false;
  for (const auto& n : tee.notes) said |= n.find("the reference one-piece sleeve does") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_TRUE(validate_pattern(tee.pattern).ok());
  // The tank has no sleeve pieces: nothing is changed.
  const LoadedPattern tank = load_pattern(tryon::test::shared_data_path(kTank));
  EXPECT_TRUE(tank.quantities.empty());
  EXPECT_EQ(tank.pattern.stitches.size(), 4u);
}

TEST(DxfArrange, TankAndTeeSitAroundTheBody) {
  TRYON_REQUIRE_SHARED(kTee);
  const avatars::Avatar body = avatars::load_avatar(tryon::test::shared_data_path("avatars/garmentcode/mean_all.obj"));
  const avatars::Landmarks L = avatars::find_landmarks(body.mesh);
  const fs::path seams = fs::temp_directory_path() / ("tee2_" + std::to_string(::getpid()) + ".seams.json");
  {
    std::ofstream out(seams);
    out << R"({"quantities": {"REGULAR TEESL1": 2, "REGULAR TEESL FR": 0, "REGULAR TEESL BK": 0}})";
  }
  PatternOptions o;
  o.body = &body.mesh;
  o.seams = seams;
  const Pattern tee = read_pattern(tryon::test::shared_data_path(kTee), o);
  fs::remove(seams);
  BuildOptions bopt;
  bopt.resolution_m = 0.02;
  const GarmentBuild build = build_garment(tee, bopt);
  const auto& M = build.mesh;
  for (const auto& s : build.panels) {
    SCOPED_TRACE(s.name);
    const Panel& panel = tee.panels[tee.find_panel(s.name)];
    Vec3 lo = Vec3::Constant(1e9), hi = Vec3::Constant(-1e9);
    for (int v = s.first_vertex; v < s.first_vertex + s.vertices; ++v) lo = lo.cwiseMin(M.V.row(v).transpose()), hi = hi.cwiseMax(M.V.row(v).transpose());
    if (panel.label == "front" || panel.label == "back") {
      // The bodice covers the chest: from below the neck to below the waist, centred.
      EXPECT_GT(hi.y(), L.armpit_y + 0.1);
      EXPECT_LT(hi.y(), L.neck_y + 0.05);
      EXPECT_LT(lo.y(), L.waist_y);
      EXPECT_NEAR(lo.x() + hi.x(), 0, 0.02);
      if (panel.label == "front") EXPECT_GT(lo.z(), 0.1);
      else EXPECT_LT(hi.z(), -0.1);
    } else {
      // Sleeve halves hang around their arm, above the armpits' height at the shoulder.
      const bool left = (lo.x() + hi.x()) > 0;
      const auto& arm = left ? L.left : L.right;
      EXPECT_GT(std::abs(lo.x() + hi.x()) / 2, L.chest_half_width * 0.8);
      EXPECT_GT(hi.y(), arm.axis_point.y());
      EXPECT_EQ(panel.label == "sleeve_front", lo.z() > arm.axis_point.z());
    }
  }
  // No panel starts inside the body (generalised winding number ≥ ½ means inside).
  const std::vector<double> w = quality::winding_numbers(M.V, body.mesh.V, body.mesh.F);
  int inside = 0;
  for (double x : w) inside += x >= 0.5;
  EXPECT_EQ(inside, 0);
  // Without a body the proportions stand in.
  const avatars::Landmarks P = proportional_landmarks(1.72);
  EXPECT_LT(P.crotch_y, P.hip_y);
  EXPECT_LT(P.armpit_y, P.neck_y);
}

// Every graded size of the shared garments is cut, matched and sewable, although graded
// blocks carry no notches and no "Quantity:" (taken from the sample size).
TEST(DxfPieces, EveryGradedSizeIsMatchedAndValid) {
  TRYON_REQUIRE_SHARED(kTee);
  const std::pair<const char*, std::size_t> files[] = {
      {"patterns/dxf/WM_SLIM_TANK.DXF", 4},      {"patterns/dxf/MEN_CLASSIC_TEE.DXF", 4},
      {"patterns/dxf/GMH1006F18_AAMA.DXF", 12},  {"patterns/dxf/GMH1006F18_ASTM.DXF", 12},
      {"patterns/dxf/ORILEGWB_AAMA.DXF", 6},     {"patterns/dxf/ORILEGWB_ASTM.DXF", 6},
  };
  for (const auto& [file, seams_expected] : files) {
    const DxfPattern dxf = shared(file);
    for (const std::string& size : dxf.sizes) {
      SCOPED_TRACE(std::string(file) + " size " + size);
      const CutPattern cut = cut_pieces(dxf, size);
      std::vector<std::string> notes;
      const auto seams = propose_seams(cut, notes);
      EXPECT_EQ(seams.size(), seams_expected);
      const Diagnostics d = validate_pattern(to_pattern(cut, seams, "x"));
      EXPECT_TRUE(d.ok()) << (d.errors.empty() ? "" : d.errors.front());
    }
  }
}
