#include "outputs/font.hpp"

#include <ft2build.h>
#include FT_FREETYPE_H

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace tryon::outputs {
namespace {

// One glyph: 7 rows of 5 columns, '#' = ink. Drawn by hand for this project.
struct Glyph {
  char c;
  std::array<const char*, 7> rows;
};

// clang-format off
constexpr Glyph kGlyphs[] = {
    {' ', {".....", ".....", ".....", ".....", ".....", ".....", "....."}},
    {'A', {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
    {'B', {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."}},
    {'C', {".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."}},
    {'D', {"####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####."}},
    {'E', {"#####", "#....", "#....", "####.", "#....", "#....", "#####"}},
    {'F', {"#####", "#....", "#....", "####.", "#....", "#....", "#...."}},
    {'G', {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"}},
    {'H', {"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
    {'I', {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'J', {"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."}},
    {'K', {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"}},
    {'L', {"#....", "#....", "#....", "#....", "#....", "#....", "#####"}},
    {'M', {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"}},
    {'N', {"#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"}},
    {'O', {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
    {'P', {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."}},
    {'Q', {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"}},
    {'R', {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"}},
    {'S', {".####", "#....", "#....", ".###.", "....#", "....#", "####."}},
    {'T', {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}},
    {'U', {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
    {'V', {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
    {'W', {"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."}},
    {'X', {"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"}},
    {'Y', {"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."}},
    {'Z', {"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"}},
    {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
    {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
    {'3', {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}},
    {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
    {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
    {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
    {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
    {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
    {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
    {'-', {".....", ".....", ".....", "#####", ".....", ".....", "....."}},
    {'+', {".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."}},
    {'.', {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}},
    {',', {".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."}},
    {':', {".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."}},
    {'%', {"##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##"}},
    {'(', {"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."}},
    {')', {".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."}},
    {'/', {".....", "....#", "...#.", "..#..", ".#...", "#....", "....."}},
    {'<', {"...#.", "..#..", ".#...", "#....", ".#...", "..#..", "...#."}},
    {'>', {".#...", "..#..", "...#.", "....#", "...#.", "..#..", ".#..."}},
    {'_', {".....", ".....", ".....", ".....", ".....", ".....", "#####"}},
    {'\'', {"..#..", "..#..", ".#...", ".....", ".....", ".....", "....."}},
    {'=', {".....", ".....", "#####", ".....", "#####", ".....", "....."}},
};

constexpr Glyph kMissing{'?', {"#####", "#...#", "#...#", "#...#", "#...#", "#...#", "#####"}};
// clang-format on

const Glyph& glyph(char c) {
  const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const Glyph& g : kGlyphs)
    if (g.c == u) return g;
  return kMissing;
}

// The built-in font: each glyph 5×7 at `scale`, advance 6.
int bitmap_width(std::string_view text, int scale) {
  return text.empty() ? 0 : (6 * static_cast<int>(text.size()) - 1) * scale;
}

void bitmap_draw(Image& image, int x, int y, std::string_view text, const Rgb& color, int scale) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const Glyph& g = glyph(text[i]);
    const int gx = x + static_cast<int>(i) * 6 * scale;
    for (int r = 0; r < 7; ++r)
      for (int c = 0; c < 5; ++c)
        if (g.rows[r][c] == '#') image.fill_rect(gx + c * scale, y + r * scale, scale, scale, color);
  }
}

// A TrueType font through FreeType, loaded once: $TRYON_FONT, else DejaVu Sans (Debian's
// fonts-dejavu-core). FreeType's faces are not thread-safe: every use holds `lock`.
struct TrueType {
  FT_Library library = nullptr;
  FT_Face face = nullptr;
  std::string path;
  std::mutex lock;
  TrueType() {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("TRYON_FONT")) candidates.emplace_back(env);
    candidates.emplace_back("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
    if (FT_Init_FreeType(&library) != 0) return;
    for (const std::string& c : candidates)
      if (std::filesystem::is_regular_file(c) && FT_New_Face(library, c.c_str(), 0, &face) == 0) {
        path = c;
        return;
      }
    face = nullptr;
  }
  ~TrueType() {
    if (face) FT_Done_Face(face);
    if (library) FT_Done_FreeType(library);
  }
  TrueType(const TrueType&) = delete;
  TrueType& operator=(const TrueType&) = delete;
};

TrueType* truetype() {
  static TrueType font;
  return font.face ? &font : nullptr;
}

// Pixel size (em) of `scale`: the built-in glyphs' 7·scale pixels are about its capital height.
int em_pixels(int scale) { return 9 * std::max(scale, 1); }

// The code points of UTF-8 text (a byte that does not start a valid sequence stands for itself).
std::vector<char32_t> code_points(std::string_view text) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const int n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
    char32_t cp = n == 1 ? b : b & (0x7F >> n);
    bool ok = i + n <= text.size();
    for (int k = 1; ok && k < n; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      ok = (c >> 6) == 2;
      cp = cp << 6 | (c & 0x3F);
    }
    out.push_back(ok ? cp : b);
    i += ok ? n : 1;
  }
  return out;
}

// Walks the glyphs of `text` at `scale`, calling draw(bitmap, left, top) for each with the pen
// at x = 0 on the line whose top is y = 0; returns the width (last pen position).
template <class Draw>
int layout(TrueType& f, std::string_view text, int scale, Draw draw) {
  FT_Set_Pixel_Sizes(f.face, 0, static_cast<FT_UInt>(em_pixels(scale)));
  const int ascender = static_cast<int>(f.face->size->metrics.ascender >> 6);
  int pen = 0;
  for (const char32_t cp : code_points(text)) {
    if (FT_Load_Char(f.face, cp, FT_LOAD_RENDER) != 0) continue;
    const FT_GlyphSlot g = f.face->glyph;
    draw(g->bitmap, pen + g->bitmap_left, ascender - g->bitmap_top);
    pen += static_cast<int>(g->advance.x >> 6);
  }
  return pen;
}

}  // namespace

std::string font_in_use() {
  const TrueType* f = truetype();
  return f ? f->path : "built-in 5x7";
}

bool has_glyph(char c) {
  if (TrueType* f = truetype()) {
    const std::lock_guard<std::mutex> guard(f->lock);
    return FT_Get_Char_Index(f->face, static_cast<unsigned char>(c)) != 0;
  }
  return &glyph(c) != &kMissing;
}

int text_width(std::string_view text, int scale) {
  if (TrueType* f = truetype()) {
    const std::lock_guard<std::mutex> guard(f->lock);
    return layout(*f, text, scale, [](const FT_Bitmap&, int, int) {});
  }
  return bitmap_width(text, scale);
}

int text_height(int scale) {
  if (TrueType* f = truetype()) {
    const std::lock_guard<std::mutex> guard(f->lock);
    FT_Set_Pixel_Sizes(f->face, 0, static_cast<FT_UInt>(em_pixels(scale)));
    return static_cast<int>((f->face->size->metrics.ascender - f->face->size->metrics.descender) >> 6);
  }
  return 7 * scale;
}

void draw_text(Image& image, int x, int y, std::string_view text, const Rgb& color, int scale) {
  TrueType* f = truetype();
  if (!f) return bitmap_draw(image, x, y, text, color, scale);
  const std::lock_guard<std::mutex> guard(f->lock);
  layout(*f, text, scale, [&](const FT_Bitmap& b, int left, int top) {
    for (unsigned r = 0; r < b.rows; ++r)
      for (unsigned c = 0; c < b.width; ++c) {
        const int px = x + left + static_cast<int>(c), py = y + top + static_cast<int>(r);
        const double a = b.buffer[r * b.pitch + c] / 255.0;  // coverage: blend over the background
        if (a <= 0 || px < 0 || py < 0 || px >= image.width || py >= image.height) continue;
        const Rgb under = image.at(px, py);
        Rgb out;
        for (int k = 0; k < 3; ++k) out[k] = static_cast<unsigned char>(std::lround(a * color[k] + (1 - a) * under[k]));
        image.set(px, py, out);
      }
  });
}

}  // namespace tryon::outputs
