#pragma once
// Fixed colour scales for fit maps. The scales never adapt to the data, so that the same
// colour means the same strain or the same distance in every picture and every file.
#include <string>
#include <vector>

#include "outputs/render.hpp"

namespace tryon::outputs {

/// A value and its colour (sRGB, 8 bits per channel).
struct ColorStop {
  double value;
  Rgb color;
};

/// A piecewise-linear colour scale between stops of increasing value. Values below the first
/// stop take its colour, values above the last stop take the last colour (clamped), NaN takes
/// kNoDataColor.
struct ColorScale {
  std::string title;                  ///< legend title, e.g. "STRAIN (%)"
  double display_factor = 1;          ///< legend labels show value × display_factor (100 for %)
  std::vector<ColorStop> stops;       ///< at least two, strictly increasing values
  std::vector<double> ticks;          ///< values labelled on the legend
  std::string low_label, high_label;  ///< words under the two ends of the legend ("TIGHT", "LOOSE")
};

/// Colour of vertices without data (NaN).
inline constexpr Rgb kNoDataColor{128, 128, 128};

/// Strain (edge length / rest length − 1, a fraction): −5 % blue, 0 white, +15 % red
/// (the end colours of ColorBrewer's diverging RdBu scheme [Harrower & Brewer 2003]);
/// compression saturates at −5 %, stretch at +15 %.
const ColorScale& strain_scale();

/// Signed distance to the body in metres: inside the body (≤ −1 cm) dark red, 0 (touching)
/// red, 1 cm yellow, 2.5 cm green, ≥ 5 cm blue. Red–yellow = tight, green–blue = loose.
const ColorScale& distance_scale();

/// Colour of `value` on `scale`: linear interpolation in sRGB between the two enclosing stops,
/// rounded to the nearest integer.
Rgb color_at(const ColorScale& scale, double value);

/// `n` colours for panels, told apart by hue: hues a golden angle apart [Ankerl 2009, "How to
/// generate random colors programmatically"], saturation and lightness fixed (HSL 0.55, 0.6).
std::vector<Rgb> panel_colors(int n);

}  // namespace tryon::outputs
