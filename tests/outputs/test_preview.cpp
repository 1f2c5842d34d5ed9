#include "outputs/preview.hpp"

#include <gtest/gtest.h>

#include <map>

#include "core/error.hpp"
#include "scenes.hpp"

using namespace tryon;
using namespace tryon::outputs;
using tryon::test::box_body;
using tryon::test::cloth_grid;
using tryon::test::fresh_dir;

namespace {

// A torso-like box and a cloth "apron" hanging 5 cm in front of it, narrower than the box so
// that the box hides it completely from the back.
struct Scene {
  TriMesh body = box_body(Vec3(0, 1.0, 0), Vec3(0.2, 0.35, 0.12));
  TriMesh apron = cloth_grid(13, 17, 0.3, 0.4, Vec3(-0.15, 0.8, 0.17), Vec3::UnitX(), Vec3::UnitY());
};

// Pixels whose colour is a shade of `c` (the rasteriser scales colours by a Lambert factor
// 0.35..1), within ±3 per channel after rescaling, in the column range [x0, x1).
int count_shades(const Image& img, int x0, int x1, int y0, int y1, const Rgb& c) {
  int n = 0;
  const int peak = std::max({c[0], c[1], c[2]});
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const Rgb p = img.at(x, y);
      const int pp = std::max({p[0], p[1], p[2]});
      if (pp < 0.3 * peak) continue;
      bool same = true;
      for (int k = 0; k < 3; ++k) same = same && std::abs(p[k] * peak - c[k] * pp) <= 3 * peak;
      n += same;
    }
  return n;
}

// Pixels within ±tol per channel of `c` in rows [y0, y1).
int count_near(const Image& img, int y0, int y1, const Rgb& c, int tol = 0) {
  int n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = 0; x < img.width; ++x) {
      const Rgb p = img.at(x, y);
      n += std::abs(p[0] - c[0]) <= tol && std::abs(p[1] - c[1]) <= tol && std::abs(p[2] - c[2]) <= tol;
    }
  return n;
}

}  // namespace

TEST(Preview, WritesAPngThatShowsTheGarmentFromTheFrontOnly) {
  const Scene s;
  PreviewOptions o;
  o.fabric_color = {20, 200, 40};
  o.title = "apron on a box";
  const auto dir = fresh_dir("preview");
  write_preview(dir / "preview.png", s.body, s.apron, {}, FitMap::none, o);
  const Image img = read_png(dir / "preview.png");  // decodes
  EXPECT_GE(img.width, 1024);
  EXPECT_EQ(img.width, o.width);
  EXPECT_GT(img.height, img.width / 3);

  // Not blank or uniform: the most common colour (the background) covers under 80 % of the
  // picture, and at least three colours cover 1 % or more each (colours 16 levels apart per
  // channel counted as one: smooth shading grades each face).
  std::map<int, int> histogram;
  for (std::size_t i = 0; i < img.rgb.size(); i += 3)
    ++histogram[(img.rgb[i] >> 4) << 8 | (img.rgb[i + 1] >> 4) << 4 | (img.rgb[i + 2] >> 4)];
  const double pixels = static_cast<double>(img.width) * img.height;
  int largest = 0, common = 0;
  for (const auto& [colour, n] : histogram) {
    largest = std::max(largest, n);
    common += n >= 0.01 * pixels;
  }
  EXPECT_LT(largest, 0.8 * pixels);
  EXPECT_GE(common, 3);

  // The garment covers a good part of the front view (its projected area is (0.3·0.4) / (0.4·0.7)
  // = 43 % of the box's), and is hidden in the back view.
  const int vw = img.width / 3, views_bottom = img.height - 150;  // the legend band is below
  const int front = count_shades(img, 0, vw, 0, views_bottom, o.fabric_color);
  const int back = count_shades(img, 2 * vw, 3 * vw, 0, views_bottom, o.fabric_color);
  const int body_front = count_shades(img, 0, vw, 0, views_bottom, o.body_color);
  EXPECT_GT(front, 10000);
  EXPECT_NEAR(static_cast<double>(front) / (front + body_front), 0.43, 0.05);
  // From the back the box hides the apron entirely (z-buffer).
  EXPECT_EQ(back, 0);
  // The legend has a swatch of the fabric colour.
  EXPECT_GT(count_near(img, views_bottom, img.height, o.fabric_color), 100);
  std::filesystem::remove_all(dir);
}

TEST(Preview, FitMapColoursTheGarmentAndDrawsTheLegend) {
  Scene s;
  // Stretch the apron by 8 % in 3D: every vertex has strain 0.08.
  const Vec3 c(0, 1.0, 0.17);
  for (Eigen::Index i = 0; i < s.apron.V.rows(); ++i)
    s.apron.V.row(i) = (c + 1.08 * (Vec3(s.apron.V.row(i)) - c)).transpose();
  const FitMaps maps = compute_fit_maps(s.apron.V, s.apron.F, s.apron.UV, s.body);
  const Image img = render_preview(s.body, s.apron, fit_map_colors(maps, FitMap::strain), FitMap::strain);
  const int vw = img.width / 3;
  const Rgb expected = color_at(strain_scale(), 0.08);
  EXPECT_GT(count_shades(img, 0, vw, 0, img.height - 150, expected), 10000);

  // The colour bar shows both end colours of the scale, unshaded (within the last sample step),
  // below the views.
  const int legend_top = img.height - 150;
  const Rgb blue = strain_scale().stops.front().color, red = strain_scale().stops.back().color;
  EXPECT_GT(count_near(img, legend_top, img.height, blue, 2), 20);
  EXPECT_GT(count_near(img, legend_top, img.height, red, 2), 20);
  // The same scene without a fit map has no colour bar.
  const Image plain = render_preview(s.body, s.apron, {}, FitMap::none);
  EXPECT_EQ(count_near(plain, legend_top, plain.height, blue, 2), 0);
  EXPECT_EQ(count_near(plain, legend_top, plain.height, red, 2), 0);
  // The distance legend is a different bar.
  const Image dist =
      render_preview(s.body, s.apron, fit_map_colors(maps, FitMap::distance), FitMap::distance);
  EXPECT_GT(count_near(dist, legend_top, dist.height, distance_scale().stops.back().color, 2), 20);
  EXPECT_EQ(count_near(dist, legend_top, dist.height, blue, 2), 0);
}

TEST(Preview, IsDeterministicAndChecksItsInput) {
  const Scene s;
  const Image a = render_preview(s.body, s.apron, {}, FitMap::none);
  const Image b = render_preview(s.body, s.apron, {}, FitMap::none);
  EXPECT_EQ(a.rgb, b.rgb);
  PreviewOptions narrow;
  narrow.width = 900;
  EXPECT_THROW(render_preview(s.body, s.apron, {}, FitMap::none, narrow), InputError);
  EXPECT_THROW(render_preview(s.body, s.apron, std::vector<Rgb>(5), FitMap::strain), InputError);
  EXPECT_THROW(render_preview(TriMesh{}, TriMesh{}, {}, FitMap::none), InputError);
  // No body: the garment alone still renders.
  const Image alone = render_preview(TriMesh{}, s.apron, {}, FitMap::none);
  EXPECT_GT(count_shades(alone, 0, alone.width / 3, 0, alone.height - 150, PreviewOptions{}.fabric_color),
            10000);
}

TEST(Preview, LegendRangeNoteUsesTheDisplayUnit) {
  FitMaps maps;
  maps.strain.resize(3);
  maps.strain << 0.043, -0.003, 0.01;
  maps.distance_m.resize(2);
  maps.distance_m << 0.055, 0.2408;
  EXPECT_EQ(legend_range_note(maps, FitMap::strain), "STRAIN AT VERTICES -0.3 % TO +4.3 %");
  // Beyond the distance scale's +5 cm end: said, as those vertices take its end colour.
  EXPECT_EQ(legend_range_note(maps, FitMap::distance),
            "DISTANCE +5.5 CM TO +24.1 CM (BEYOND THE SCALE'S ENDS: SHOWN IN THEIR COLOURS)");
  maps.strain(0) = -0.06;
  EXPECT_NE(legend_range_note(maps, FitMap::strain).find("BEYOND THE SCALE"), std::string::npos);
  EXPECT_EQ(legend_range_note(maps, FitMap::none), "");
  EXPECT_EQ(legend_range_note(FitMaps{}, FitMap::distance), "");
}

TEST(Preview, AKeyNamesEachColourInAsManyRowsAsItNeeds) {
  const Scene s;
  const int panels = 30;
  const std::vector<Rgb> colors = panel_colors(panels);
  // Distinct colours, far enough apart to tell by eye from their neighbours in the list.
  for (int i = 0; i < panels; ++i)
    for (int j = i + 1; j < panels; ++j) EXPECT_NE(colors[i], colors[j]) << i << " " << j;
  for (int i = 0; i + 1 < panels; ++i) {
    int d = 0;
    for (int k = 0; k < 3; ++k) d += std::abs(colors[i][k] - colors[i + 1][k]);
    EXPECT_GT(d, 60) << i;
  }
  PreviewOptions few, many;
  for (int i = 0; i < 2; ++i) few.key.emplace_back(colors[i], "panel_" + std::to_string(i));
  for (int i = 0; i < panels; ++i) many.key.emplace_back(colors[i], "a_long_panel_name_" + std::to_string(i));
  const Image a = render_preview(s.body, s.apron, {}, FitMap::none, few);
  const Image b = render_preview(s.body, s.apron, {}, FitMap::none, many);
  EXPECT_GT(b.height, a.height);  // more rows of swatches
  // Every key colour has its swatch (26 × 26 pixels) in the legend band.
  const int views_bottom = b.height - (b.height - a.height) - 150;
  for (int i = 0; i < panels; ++i) EXPECT_GE(count_near(b, views_bottom, b.height, colors[i]), 26 * 26) << i;
}

TEST(Preview, DownsampleAveragesBlocks) {
  Image img(4, 2, {0, 0, 0});
  img.set(0, 0, {200, 100, 40});
  img.set(1, 1, {100, 0, 0});
  const Image d = downsample(img, 2);
  ASSERT_EQ(d.width, 2);
  ASSERT_EQ(d.height, 1);
  EXPECT_EQ(d.at(0, 0), (Rgb{75, 25, 10}));
  EXPECT_EQ(d.at(1, 0), (Rgb{0, 0, 0}));
}
