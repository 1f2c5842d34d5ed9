#pragma once
// A tiny built-in bitmap font (5×7 pixel glyphs, upper case, digits and a few signs) for the
// labels and the legend of preview pictures: no font files, no text library.
#include <string_view>

#include "outputs/render.hpp"

namespace tryon::outputs {

/// Width in pixels of `text` drawn at integer `scale` (each glyph is 5×7, advance 6, times scale).
int text_width(std::string_view text, int scale = 1);
/// Height in pixels of one line of text at `scale` (7·scale).
int text_height(int scale = 1);

/// Whether `c` (or its upper case) has a glyph.
bool has_glyph(char c);

/// Draws `text` with its top-left corner at (x, y). Lower-case letters are drawn as upper
/// case; characters without a glyph are drawn as an empty box so that they are noticed.
void draw_text(Image& image, int x, int y, std::string_view text, const Rgb& color, int scale = 1);

}  // namespace tryon::outputs
