#pragma once
// A compact headless software rasteriser for preview pictures: orthographic views, a
// z-buffer and Lambert shading. No display, no GPU.
#include <array>
#include <filesystem>
#include <vector>

#include "core/types.hpp"

namespace tryon::apps {

using Rgb = std::array<unsigned char, 3>;

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  ///< width × height × 3, row-major from the top
  Image(int w, int h, Rgb background);
  void set(int x, int y, const Rgb& c);
};

/// One mesh to draw: positions, triangles and a colour per vertex (|V| rows) or one colour.
struct DrawMesh {
  const Points3* V = nullptr;
  const Triangles* F = nullptr;
  std::vector<Rgb> vertex_colors;  ///< empty: `color` everywhere
  Rgb color{200, 200, 200};
  bool two_sided = true;           ///< shade back faces too (cloth)
};

/// Renders the meshes side by side from the front (+Z looking at −Z), the side (+X) and the
/// back (−Z), framed on their joint bounding box; each view is `view_width` wide and the
/// height follows from the meshes' proportions.
Image render_views(const std::vector<DrawMesh>& meshes, int view_width = 500);

/// Writes a PNG through libpng, whole or not at all (temporary file, then rename).
void write_png(const std::filesystem::path& path, const Image& image);

}  // namespace tryon::apps
