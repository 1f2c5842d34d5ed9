#pragma once
// The preview picture: body and garment from the front, the side and the back, shaded, the
// garment in its fabric colour or coloured by a fit map, with view labels and a legend.
#include <filesystem>
#include <string>
#include <vector>

#include "core/trimesh.hpp"
#include "outputs/fit_maps.hpp"
#include "outputs/render.hpp"

namespace tryon::outputs {

struct PreviewOptions {
  int width = 1536;                ///< image width in pixels (three views of width/3); at least 1024
  int supersample = 2;             ///< render at this factor and box-filter down (anti-aliasing); 1..4
  Rgb fabric_color{70, 120, 190};  ///< garment colour when no per-vertex colours are given
  Rgb body_color{190, 190, 195};
  std::string title;        ///< optional line at the top left (e.g. pattern on avatar)
  std::string legend_note;  ///< optional line under the legend (e.g. the map's range)
  /// Without a fit map: what each garment colour is (e.g. panel_colors and the panel names),
  /// drawn as swatches in as many rows as they need, instead of the fabric colour's swatch.
  std::vector<std::pair<Rgb, std::string>> key;
};

/// Renders the preview image. `body` may be empty (no triangles). `garment_colors` is empty
/// (fabric colour) or one colour per garment vertex (e.g. fit_map_colors); `map` chooses the
/// legend: the colour bar of its fixed scale, or colour swatches for FitMap::none (options.key
/// when given).
/// Throws InputError for a width under 1024, a bad supersample factor or mismatched colours.
Image render_preview(const TriMesh& body, const TriMesh& garment, const std::vector<Rgb>& garment_colors,
                     FitMap map, const PreviewOptions& options = {});

/// render_preview written as a PNG, whole or not at all.
void write_preview(const std::filesystem::path& path, const TriMesh& body, const TriMesh& garment,
                   const std::vector<Rgb>& garment_colors, FitMap map, const PreviewOptions& options = {});

/// A legend line giving the range of the chosen map in its display unit, e.g.
/// "STRAIN AT VERTICES -0.3 % TO +4.3 %" or "DISTANCE +5.5 CM TO +24.1 CM", and when the range
/// goes beyond the scale's ends (whose colours the values beyond them take) it says so; empty
/// for FitMap::none or an empty map.
std::string legend_range_note(const FitMaps& maps, FitMap map);

/// Box-filter downsampling by an integer factor (each output pixel is the mean of factor² pixels).
Image downsample(const Image& image, int factor);

}  // namespace tryon::outputs
