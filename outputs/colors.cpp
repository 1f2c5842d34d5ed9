#include "outputs/colors.hpp"

#include <cmath>

namespace tryon::outputs {

const ColorScale& strain_scale() {
  static const ColorScale scale{"STRAIN (%)",
                                100,
                                {{-0.05, {33, 102, 172}}, {0.0, {247, 247, 247}}, {0.15, {178, 24, 43}}},
                                {-0.05, 0.0, 0.05, 0.10, 0.15},
                                "COMPRESSED",
                                "STRETCHED"};
  return scale;
}

const ColorScale& distance_scale() {
  static const ColorScale scale{"DISTANCE TO BODY (CM)",
                                100,
                                {{-0.01, {103, 0, 31}},
                                 {0.0, {215, 25, 28}},
                                 {0.01, {255, 221, 70}},
                                 {0.025, {60, 170, 80}},
                                 {0.05, {40, 80, 190}}},
                                {-0.01, 0.0, 0.01, 0.02, 0.03, 0.04, 0.05},
                                "TIGHT",
                                "LOOSE"};
  return scale;
}

Rgb color_at(const ColorScale& scale, double value) {
  if (std::isnan(value) || scale.stops.empty()) return kNoDataColor;
  if (value <= scale.stops.front().value) return scale.stops.front().color;
  if (value >= scale.stops.back().value) return scale.stops.back().color;
  std::size_t i = 1;
  while (scale.stops[i].value < value) ++i;
  const ColorStop& a = scale.stops[i - 1];
  const ColorStop& b = scale.stops[i];
  const double t = (value - a.value) / (b.value - a.value);
  Rgb c;
  for (int k = 0; k < 3; ++k)
    c[k] = static_cast<unsigned char>(std::lround(a.color[k] + t * (b.color[k] - a.color[k])));
  return c;
}

std::vector<Rgb> panel_colors(int n) {
  constexpr double kGolden = 0.618033988749895;
  constexpr double kSaturation = 0.55, kLightness = 0.6;
  std::vector<Rgb> out;
  for (int i = 0; i < n; ++i) {
    const double h = std::fmod(i * kGolden, 1.0) * 6;  // HSL to RGB
    const double c = (1 - std::abs(2 * kLightness - 1)) * kSaturation;
    const double x = c * (1 - std::abs(std::fmod(h, 2.0) - 1));
    const double m = kLightness - c / 2;
    const int sector = static_cast<int>(h);
    const double r[6] = {c, x, 0, 0, x, c}, g[6] = {x, c, c, x, 0, 0}, b[6] = {0, 0, x, c, c, x};
    auto byte = [&](double v) { return static_cast<unsigned char>(std::lround(255 * (v + m))); };
    out.push_back({byte(r[sector]), byte(g[sector]), byte(b[sector])});
  }
  return out;
}

}  // namespace tryon::outputs
