#include "outputs/preview.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"
#include "outputs/font.hpp"

namespace tryon::outputs {
namespace {

const Rgb kInk{40, 40, 45};
const Rgb kBackground{245, 245, 242};
constexpr int kHeaderHeight = 60;
constexpr int kLegendHeight = 150;
constexpr int kKeyRow = 40;  // height of one row of swatches

std::string format_tick(double v) {
  char buf[32];
  if (std::abs(v - std::round(v)) < 1e-9)
    std::snprintf(buf, sizeof buf, "%+.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%+.1f", v);
  if (std::strcmp(buf, "+0") == 0 || std::strcmp(buf, "-0") == 0) return "0";
  return std::string(buf);
}

// Colour bar of a fixed scale: linear in value from the first to the last stop, ticks labelled.
void draw_color_bar(Image& img, int y0, const ColorScale& scale) {
  const int scale_px = 3;
  const int bar_w = std::min(720, img.width - 200), bar_h = 26;
  const int x0 = (img.width - bar_w) / 2;
  draw_text(img, x0, y0, scale.title, kInk, scale_px);
  const int by = y0 + text_height(scale_px) + 10;
  const double lo = scale.stops.front().value, hi = scale.stops.back().value;
  for (int x = 0; x < bar_w; ++x)
    img.fill_rect(x0 + x, by, 1, bar_h, color_at(scale, lo + (hi - lo) * (x + 0.5) / bar_w));
  // Frame.
  img.fill_rect(x0 - 1, by - 1, bar_w + 2, 1, kInk);
  img.fill_rect(x0 - 1, by + bar_h, bar_w + 2, 1, kInk);
  img.fill_rect(x0 - 1, by - 1, 1, bar_h + 2, kInk);
  img.fill_rect(x0 + bar_w, by - 1, 1, bar_h + 2, kInk);
  const int ty = by + bar_h + 4;
  for (const double t : scale.ticks) {
    const int x = x0 + static_cast<int>(std::lround((t - lo) / (hi - lo) * (bar_w - 1)));
    img.fill_rect(x, ty, 1, 6, kInk);
    const std::string label = format_tick(t * scale.display_factor);
    draw_text(img, x - text_width(label, 2) / 2, ty + 9, label, kInk, 2);
  }
  if (!scale.low_label.empty())
    draw_text(img, x0 - 14 - text_width(scale.low_label, 2), by + (bar_h - text_height(2)) / 2,
              scale.low_label, kInk, 2);
  if (!scale.high_label.empty())
    draw_text(img, x0 + bar_w + 14, by + (bar_h - text_height(2)) / 2, scale.high_label, kInk, 2);
}

struct Swatch {
  Rgb color;
  std::string label;
  bool drawn;  // false: the label alone (colours that vary per vertex)
};

// What each colour is, for a picture without a fit map: the key, else the fabric's colour (or
// a note that the garment has its own colours) and the body's.
std::vector<Swatch> swatches(const PreviewOptions& o, bool has_body, bool per_vertex) {
  std::vector<Swatch> items;
  for (const auto& [color, label] : o.key) items.push_back({color, label, true});
  if (o.key.empty()) items.push_back({per_vertex ? Rgb{128, 128, 128} : o.fabric_color,
                                      per_vertex ? "GARMENT: OWN COLOURS" : "GARMENT", !per_vertex});
  if (has_body) items.push_back({o.body_color, "BODY", true});
  return items;
}

int swatch_width(const Swatch& s, int text_scale) { return 40 + text_width(s.label, text_scale) + 36; }

// The swatches in rows no wider than the picture: the first index of each row.
std::vector<std::size_t> swatch_rows(const std::vector<Swatch>& items, int width, int text_scale) {
  std::vector<std::size_t> starts{0};
  int x = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const int w = swatch_width(items[i], text_scale);
    if (x > 0 && x + w > width - 40) {
      starts.push_back(i);
      x = 0;
    }
    x += w;
  }
  return starts;
}

// The swatches in the rows swatch_rows chose (`starts`).
void draw_swatches(Image& img, int y0, const std::vector<Swatch>& items, const std::vector<std::size_t>& starts,
                   int text_scale) {
  for (std::size_t r = 0; r < starts.size(); ++r) {
    const std::size_t end = r + 1 < starts.size() ? starts[r + 1] : items.size();
    int total = 0;
    for (std::size_t i = starts[r]; i < end; ++i) total += swatch_width(items[i], text_scale);
    int x = (img.width - total) / 2;
    const int y = y0 + static_cast<int>(r) * kKeyRow;
    for (std::size_t i = starts[r]; i < end; ++i) {
      if (items[i].drawn) {
        img.fill_rect(x - 1, y + 1, 28, 28, kInk);
        img.fill_rect(x, y + 2, 26, 26, items[i].color);
      }
      draw_text(img, x + 36, y + (30 - text_height(text_scale)) / 2, items[i].label, kInk, text_scale);
      x += swatch_width(items[i], text_scale);
    }
  }
}

}  // namespace

std::string legend_range_note(const FitMaps& maps, FitMap map) {
  if (map == FitMap::none) return "";
  const bool strain = map == FitMap::strain;
  const Range r = range_of(strain ? maps.strain : maps.distance_m);
  if (std::isnan(r.min)) return "";
  const double f = fit_map_scale(map).display_factor;
  const char* unit = strain ? "%" : "CM";
  char buf[96];
  // The strain map is per vertex, the mean of its edges: say so, as report.json's strain_max is
  // the largest edge's (the bundled hoody: vertices up to +3.8 %, an edge +14.3 %).
  std::snprintf(buf, sizeof buf, "%s %+.1f %s TO %+.1f %s", strain ? "STRAIN AT VERTICES" : "DISTANCE", f * r.min,
                unit, f * r.max, unit);
  const ColorScale& scale = fit_map_scale(map);
  const bool beyond = r.min < scale.stops.front().value || r.max > scale.stops.back().value;
  return std::string(buf) + (beyond ? " (BEYOND THE SCALE'S ENDS: SHOWN IN THEIR COLOURS)" : "");
}

Image downsample(const Image& image, int factor) {
  if (factor < 1) throw InputError("downsample: the factor must be at least 1");
  if (factor == 1) return image;
  Image out(image.width / factor, image.height / factor, Rgb{0, 0, 0});
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      int sum[3] = {0, 0, 0};
      for (int dy = 0; dy < factor; ++dy)
        for (int dx = 0; dx < factor; ++dx) {
          const Rgb c = image.at(x * factor + dx, y * factor + dy);
          for (int k = 0; k < 3; ++k) sum[k] += c[k];
        }
      const int n = factor * factor;
      out.set(
          x, y,
          {static_cast<unsigned char>((sum[0] + n / 2) / n), static_cast<unsigned char>((sum[1] + n / 2) / n),
           static_cast<unsigned char>((sum[2] + n / 2) / n)});
    }
  return out;
}

Image render_preview(const TriMesh& body, const TriMesh& garment, const std::vector<Rgb>& garment_colors,
                     FitMap map, const PreviewOptions& o) {
  if (o.width < 1024)
    throw InputError("preview: the width must be at least 1024 pixels (got " + std::to_string(o.width) + ")");
  if (o.supersample < 1 || o.supersample > 4) throw InputError("preview: supersample must be 1 to 4");
  if (!garment_colors.empty() && static_cast<int>(garment_colors.size()) != garment.num_vertices())
    throw InputError("preview: " + std::to_string(garment_colors.size()) + " garment colours for " +
                     std::to_string(garment.num_vertices()) + " vertices");
  if (garment.num_triangles() == 0 && body.num_triangles() == 0) throw InputError("preview: nothing to draw");
  const int view_width = o.width / 3;
  std::vector<DrawMesh> draw;
  if (body.num_triangles() > 0) draw.push_back(DrawMesh{&body.V, &body.F, {}, o.body_color, false});
  if (garment.num_triangles() > 0)
    draw.push_back(DrawMesh{&garment.V, &garment.F, garment_colors, o.fabric_color, true});
  const Image views = downsample(render_views(draw, view_width * o.supersample), o.supersample);

  const std::vector<Swatch> items = swatches(o, body.num_triangles() > 0, !garment_colors.empty());
  const std::vector<std::size_t> rows = swatch_rows(items, o.width, 2);
  const int legend_height =
      map == FitMap::none ? std::max(kLegendHeight, 40 + static_cast<int>(rows.size()) * kKeyRow) : kLegendHeight;
  Image img(o.width, kHeaderHeight + views.height + legend_height, kBackground);
  img.blit(views, 0, kHeaderHeight);
  static const char* names[] = {"FRONT", "SIDE", "BACK"};
  for (int v = 0; v < 3; ++v)
    draw_text(img, v * view_width + (view_width - text_width(names[v], 3)) / 2, 30, names[v], kInk, 3);
  if (!o.title.empty()) draw_text(img, 10, 6, o.title, {110, 110, 115}, 2);
  img.fill_rect(0, kHeaderHeight - 1, img.width, 1, {200, 200, 200});
  const int legend_y = kHeaderHeight + views.height;
  img.fill_rect(0, legend_y, img.width, 1, {200, 200, 200});
  if (map == FitMap::none)
    draw_swatches(img, legend_y + 14, items, rows, 2);
  else
    draw_color_bar(img, legend_y + 12, fit_map_scale(map));
  if (!o.legend_note.empty())
    draw_text(img, (img.width - text_width(o.legend_note, 2)) / 2, img.height - 22, o.legend_note, kInk, 2);
  return img;
}

void write_preview(const std::filesystem::path& path, const TriMesh& body, const TriMesh& garment,
                   const std::vector<Rgb>& garment_colors, FitMap map, const PreviewOptions& options) {
  write_png(path, render_preview(body, garment, garment_colors, map, options));
}

}  // namespace tryon::outputs
