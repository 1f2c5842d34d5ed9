#pragma once
// A compact headless software rasteriser for preview pictures: orthographic views, a
// z-buffer and Lambert shading of vertex normals (Gouraud). No display, no GPU.
#include <array>
#include <filesystem>
#include <vector>

#include "core/types.hpp"

namespace tryon::outputs {

using Rgb = std::array<unsigned char, 3>;

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  ///< width × height × 3, row-major from the top
  Image() = default;
  Image(int w, int h, Rgb background);
  /// Sets one pixel; coordinates outside the image are ignored.
  void set(int x, int y, const Rgb& c);
  /// The pixel at (x, y); x in [0, width), y in [0, height) from the top.
  Rgb at(int x, int y) const;
  /// Fills the rectangle [x, x + w) × [y, y + h), clipped to the image.
  void fill_rect(int x, int y, int w, int h, const Rgb& c);
  /// Copies `src` with its top-left corner at (x, y), clipped to the image.
  void blit(const Image& src, int x, int y);
};

/// One mesh to draw: positions, triangles and a colour per vertex (|V| rows) or one colour.
struct DrawMesh {
  const Points3* V = nullptr;
  const Triangles* F = nullptr;
  std::vector<Rgb> vertex_colors;  ///< empty: `color` everywhere
  Rgb color{200, 200, 200};
  bool two_sided = true;  ///< shade back faces too (cloth)
};

/// Renders the meshes side by side from the front (+Z looking at −Z), the side (+X) and the
/// back (−Z), framed on their joint bounding box; each view is `view_width` wide and the
/// height follows from the meshes' proportions (the image is 3·view_width wide). Throws
/// InputError when a mesh's vertex_colors is neither empty nor one per vertex.
Image render_views(const std::vector<DrawMesh>& meshes, int view_width = 500);

/// Writes an 8-bit RGB PNG through libpng, whole or not at all (temporary file, then rename).
/// Throws std::runtime_error when the file cannot be written.
void write_png(const std::filesystem::path& path, const Image& image);

/// Reads a PNG through libpng, converted to 8-bit RGB (palette, grey and 16-bit expanded,
/// alpha dropped). Throws InputError for a missing file or one that is not a valid PNG.
Image read_png(const std::filesystem::path& path);

}  // namespace tryon::outputs
