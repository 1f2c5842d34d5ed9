#pragma once
// Text for the labels and the legend of preview pictures: a TrueType font through FreeType
// (DejaVu Sans from Debian's fonts-dejavu-core, or the file $TRYON_FONT names), anti-aliased;
// without one, a built-in 5×7 pixel font (upper case, digits and a few signs).
#include <string>
#include <string_view>

#include "outputs/render.hpp"

namespace tryon::outputs {

/// The font file used, or "built-in 5x7" when no TrueType font could be loaded.
std::string font_in_use();

/// Width in pixels of `text` (UTF-8) drawn at `scale` (a TrueType font at 9·scale pixels per em,
/// or the 5×7 glyphs times scale, advance 6).
int text_width(std::string_view text, int scale = 1);
/// Height in pixels of one line of text at `scale` (ascender to descender; 7·scale built in).
int text_height(int scale = 1);

/// Whether `c` has a glyph (the built-in font: also its upper case).
bool has_glyph(char c);

/// Draws `text` with the top-left corner of its line at (x, y), blended over the image by the
/// glyphs' coverage. The built-in font draws lower case as upper case and characters without a
/// glyph as an empty box, so that they are noticed.
void draw_text(Image& image, int x, int y, std::string_view text, const Rgb& color, int scale = 1);

}  // namespace tryon::outputs
