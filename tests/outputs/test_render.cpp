#include "outputs/render.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/error.hpp"
#include "outputs/colors.hpp"
#include "outputs/font.hpp"
#include "scenes.hpp"

using namespace tryon;
using namespace tryon::outputs;
using tryon::test::box_body;
using tryon::test::fresh_dir;

namespace {

int count_pixels(const Image& img, int x0, int x1, const Rgb& c) {
  int n = 0;
  for (int y = 0; y < img.height; ++y)
    for (int x = x0; x < x1; ++x) n += img.at(x, y) == c;
  return n;
}

// Mean x of the pixels whose colour is "mostly red" or "mostly blue" in the column range.
double mean_x(const Image& img, int x0, int x1, bool red) {
  double sum = 0;
  int n = 0;
  for (int y = 0; y < img.height; ++y)
    for (int x = x0; x < x1; ++x) {
      const Rgb c = img.at(x, y);
      const bool hit = red ? (c[0] > 60 && c[1] < 20 && c[2] < 20) : (c[2] > 60 && c[0] < 20 && c[1] < 20);
      if (hit) sum += x, ++n;
    }
  return n ? sum / n : -1;
}

}  // namespace

TEST(Image, SetAtFillAndBlitClipToTheImage) {
  Image img(10, 8, {1, 2, 3});
  EXPECT_EQ(img.at(9, 7), (Rgb{1, 2, 3}));
  img.set(-1, 0, {9, 9, 9});
  img.set(10, 0, {9, 9, 9});
  EXPECT_EQ(count_pixels(img, 0, 10, {9, 9, 9}), 0);
  img.fill_rect(8, 6, 5, 5, {7, 7, 7});  // only 2 × 2 inside
  EXPECT_EQ(count_pixels(img, 0, 10, {7, 7, 7}), 4);
  Image small(3, 3, {5, 5, 5});
  img.blit(small, -1, -1);  // 2 × 2 inside
  EXPECT_EQ(count_pixels(img, 0, 10, {5, 5, 5}), 4);
  EXPECT_EQ(img.at(1, 1), (Rgb{5, 5, 5}));
  EXPECT_EQ(img.at(2, 2), (Rgb{1, 2, 3}));
}

TEST(Png, RoundTripIsExactAndLeavesNoTemporaryFile) {
  const auto dir = fresh_dir("png");
  Image img(37, 21, {0, 0, 0});
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      img.set(x, y,
              {static_cast<unsigned char>(7 * x), static_cast<unsigned char>(11 * y),
               static_cast<unsigned char>(x * y)});
  write_png(dir / "a.png", img);
  const Image back = read_png(dir / "a.png");
  EXPECT_EQ(back.width, img.width);
  EXPECT_EQ(back.height, img.height);
  EXPECT_EQ(back.rgb, img.rgb);
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);
  std::ofstream(dir / "fake.png") << "not a png at all";
  EXPECT_THROW(read_png(dir / "fake.png"), InputError);
  EXPECT_THROW(read_png(dir / "missing.png"), InputError);
  EXPECT_THROW(write_png(dir / "no_such_folder" / "a.png", img), std::runtime_error);
  std::filesystem::remove_all(dir);
}

TEST(RenderViews, FrontSideAndBackSeeTheRightSides) {
  // A red box on the +x side and a blue box on the −x side of a grey one.
  const TriMesh centre = box_body(Vec3(0, 1, 0), Vec3(0.1, 0.3, 0.1));
  const TriMesh plus_x = box_body(Vec3(0.25, 1, 0), Vec3(0.05, 0.05, 0.05));
  const TriMesh minus_x = box_body(Vec3(-0.25, 1, 0), Vec3(0.05, 0.05, 0.05));
  const int w = 200;
  const Image img = render_views({DrawMesh{&centre.V, &centre.F, {}, {128, 128, 128}, false},
                                  DrawMesh{&plus_x.V, &plus_x.F, {}, {255, 0, 0}, false},
                                  DrawMesh{&minus_x.V, &minus_x.F, {}, {0, 0, 255}, false}},
                                 w);
  EXPECT_EQ(img.width, 3 * w);
  // Front view (from +z, x to the right): red right of blue. Back view: mirrored.
  EXPECT_GT(mean_x(img, 0, w, true), mean_x(img, 0, w, false));
  EXPECT_GE(mean_x(img, 0, w, false), 0);
  EXPECT_LT(mean_x(img, 2 * w, 3 * w, true), mean_x(img, 2 * w, 3 * w, false));
  EXPECT_GE(mean_x(img, 2 * w, 3 * w, true), 0);
  // Side view from +x: the red box is in front of the grey one, the blue one hidden behind it.
  EXPECT_GT(mean_x(img, w, 2 * w, true), 0);
  EXPECT_LT(mean_x(img, w, 2 * w, false), 0);
}

TEST(RenderViews, RejectsColoursOfTheWrongCount) {
  const TriMesh box = box_body(Vec3::Zero(), Vec3::Ones());
  DrawMesh m;
  m.V = &box.V;
  m.F = &box.F;
  m.vertex_colors.assign(3, Rgb{1, 2, 3});
  EXPECT_THROW(render_views({m}, 100), InputError);
}

TEST(Font, TextHasInkWithinItsWidthAndHeight) {
  Image img(200, 40, {255, 255, 255});
  draw_text(img, 5, 5, "Fit 12%", {0, 0, 0}, 2);
  const int w = text_width("Fit 12%", 2), h = text_height(2);
  EXPECT_GT(w, 40);
  EXPECT_LT(w, 150);
  EXPECT_GE(h, 14);
  EXPECT_GT(text_width("Fit 12% wide", 2), w);
  EXPECT_GT(text_width("Fit", 3), text_width("Fit", 2));
  int ink = 0, outside = 0;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) {
      if (img.at(x, y)[0] > 128) continue;  // dark: ink (anti-aliased edges are grey)
      ++ink;
      if (x < 5 || x >= 5 + w + 2 || y < 5 || y >= 5 + h) ++outside;
    }
  EXPECT_GT(ink, 100);
  EXPECT_EQ(outside, 0);
}

TEST(Font, ATrueTypeFontIsUsedWhereDebiansDejaVuIsInstalled) {
  const std::string dejavu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  if (!std::filesystem::exists(dejavu) || std::getenv("TRYON_FONT"))
    GTEST_SKIP() << "fonts-dejavu-core not installed (or TRYON_FONT set): the built-in font is used";
  EXPECT_EQ(font_in_use(), dejavu);
  // Lower case has its own glyphs, and edges are anti-aliased (grey pixels between ink and paper).
  Image a(40, 30, {255, 255, 255}), b(40, 30, {255, 255, 255});
  draw_text(a, 0, 0, "x", {0, 0, 0}, 2);
  draw_text(b, 0, 0, "X", {0, 0, 0}, 2);
  EXPECT_NE(a.rgb, b.rgb);
  int grey = 0;
  for (std::size_t i = 0; i < b.rgb.size(); i += 3) grey += b.rgb[i] > 40 && b.rgb[i] < 215;
  EXPECT_GT(grey, 5);
}

TEST(Font, EveryLegendWordHasItsGlyphs) {
  std::vector<std::string> words = {"FRONT",
                                    "SIDE",
                                    "BACK",
                                    "GARMENT: OWN COLOURS",
                                    "BODY",
                                    "0123456789+-.%",
                                    "STRAIN AT VERTICES -0.3 % TO +4.3 %",
                                    "DISTANCE +5.5 CM",
                                    "shirt_mean (placed)"};
  for (const ColorScale* s : {&strain_scale(), &distance_scale()})
    for (const std::string& w : {s->title, s->low_label, s->high_label}) words.push_back(w);
  for (const std::string& w : words)
    for (const char c : w) EXPECT_TRUE(has_glyph(c)) << "'" << c << "' in " << w;
  EXPECT_FALSE(has_glyph('\x01'));  // a control character has no glyph
}
