#include "outputs/render.hpp"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "core/error.hpp"
#include "core/trimesh.hpp"

namespace tryon::outputs {

Image::Image(int w, int h, Rgb background) : width(w), height(h), rgb(static_cast<std::size_t>(w) * h * 3) {
  for (std::size_t i = 0; i < rgb.size(); i += 3)
    std::copy(background.begin(), background.end(), rgb.begin() + i);
}

void Image::set(int x, int y, const Rgb& c) {
  if (x < 0 || y < 0 || x >= width || y >= height) return;
  std::copy(c.begin(), c.end(), rgb.begin() + (static_cast<std::size_t>(y) * width + x) * 3);
}

Rgb Image::at(int x, int y) const {
  const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
  return {rgb[i], rgb[i + 1], rgb[i + 2]};
}

void Image::fill_rect(int x, int y, int w, int h, const Rgb& c) {
  for (int yy = std::max(0, y); yy < std::min(height, y + h); ++yy)
    for (int xx = std::max(0, x); xx < std::min(width, x + w); ++xx) set(xx, yy, c);
}

void Image::blit(const Image& src, int x, int y) {
  for (int yy = 0; yy < src.height; ++yy)
    for (int xx = 0; xx < src.width; ++xx) set(x + xx, y + yy, src.at(xx, yy));
}

namespace {

struct View {
  Mat3 R;      // world -> view: x right, y up, z towards the viewer
  int x0 = 0;  // left pixel of the view in the image
};

// Rasterises one triangle with barycentric interpolation of depth and colour.
void raster_triangle(Image& img, std::vector<float>& zbuf, const std::array<Vec3, 3>& p,
                     const std::array<Vec3, 3>& c, int xmin_clip, int xmax_clip) {
  const double area =
      (p[1].x() - p[0].x()) * (p[2].y() - p[0].y()) - (p[1].y() - p[0].y()) * (p[2].x() - p[0].x());
  if (std::abs(area) < 1e-12) return;
  const int x0 = std::max(xmin_clip, static_cast<int>(std::floor(std::min({p[0].x(), p[1].x(), p[2].x()}))));
  const int x1 = std::min(xmax_clip, static_cast<int>(std::ceil(std::max({p[0].x(), p[1].x(), p[2].x()}))));
  const int y0 = std::max(0, static_cast<int>(std::floor(std::min({p[0].y(), p[1].y(), p[2].y()}))));
  const int y1 =
      std::min(img.height - 1, static_cast<int>(std::ceil(std::max({p[0].y(), p[1].y(), p[2].y()}))));
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) {
      const double px = x + 0.5, py = y + 0.5;
      const double w0 = ((p[1].x() - px) * (p[2].y() - py) - (p[1].y() - py) * (p[2].x() - px)) / area;
      const double w1 = ((p[2].x() - px) * (p[0].y() - py) - (p[2].y() - py) * (p[0].x() - px)) / area;
      const double w2 = 1 - w0 - w1;
      if (w0 < 0 || w1 < 0 || w2 < 0) continue;
      const double z = w0 * p[0].z() + w1 * p[1].z() + w2 * p[2].z();
      float& zb = zbuf[static_cast<std::size_t>(y) * img.width + x];
      if (z <= zb) continue;
      zb = static_cast<float>(z);
      const Vec3 col = w0 * c[0] + w1 * c[1] + w2 * c[2];
      img.set(x, y,
              {static_cast<unsigned char>(std::clamp(col.x(), 0.0, 255.0)),
               static_cast<unsigned char>(std::clamp(col.y(), 0.0, 255.0)),
               static_cast<unsigned char>(std::clamp(col.z(), 0.0, 255.0))});
    }
}

}  // namespace

Image render_views(const std::vector<DrawMesh>& meshes, int view_width) {
  const Rgb background{245, 245, 242};
  Bounds3 box;
  for (const DrawMesh& m : meshes) {
    if (!m.vertex_colors.empty() && static_cast<Eigen::Index>(m.vertex_colors.size()) != m.V->rows())
      throw InputError("render_views: " + std::to_string(m.vertex_colors.size()) + " vertex colours for " +
                       std::to_string(m.V->rows()) + " vertices");
    const Bounds3 b = bounds(*m.V);
    box.min = box.min.cwiseMin(b.min);
    box.max = box.max.cwiseMax(b.max);
  }
  if (!(box.max.x() >= box.min.x())) return Image(view_width * 3, view_width, background);
  // One scale for the three views, from the widest of them; the height follows.
  const Vec3 centre = 0.5 * (box.min + box.max);
  const double widest = std::max({box.extent().x(), box.extent().z(), 1e-9});
  const double scale = 0.9 * view_width / widest;
  const int height = std::max(64, static_cast<int>(std::ceil(box.extent().y() * scale / 0.94)));
  Image img(view_width * 3, height, background);
  std::vector<float> zbuf(static_cast<std::size_t>(img.width) * height,
                          -std::numeric_limits<float>::infinity());
  const std::array<View, 3> views{
      View{Mat3::Identity(), 0},
      View{Eigen::AngleAxisd(-M_PI / 2, Vec3::UnitY()).toRotationMatrix(), view_width},  // look from +X
      View{Eigen::AngleAxisd(M_PI, Vec3::UnitY()).toRotationMatrix(), 2 * view_width}};
  const Vec3 light = Vec3(0.3, 0.5, 1.0).normalized();
  for (const View& view : views) {
    for (const DrawMesh& m : meshes) {
      const Points3& V = *m.V;
      const Triangles& F = *m.F;
      const Points3 N = triangle_normals(V, F);
      const Points3 vertex_n = vertex_normals(V, F);  // smooth (Gouraud) shading
      for (Eigen::Index f = 0; f < F.rows(); ++f) {
        std::array<Vec3, 3> p, c;
        const Vec3 n = view.R * N.row(f).transpose();
        if (!m.two_sided && n.z() < 0) continue;
        for (int k = 0; k < 3; ++k) {
          const Vec3 q = view.R * (V.row(F(f, k)).transpose() - centre);
          p[k] = Vec3(view.x0 + view_width / 2.0 + scale * q.x(), height / 2.0 - scale * q.y(), q.z());
          const Rgb& rgb = m.vertex_colors.empty() ? m.color : m.vertex_colors[F(f, k)];
          const Vec3 nk = view.R * vertex_n.row(F(f, k)).transpose();
          const double shade = 0.35 + 0.65 * std::abs(nk.dot(light));  // two-sided Lambert
          c[k] = Vec3(rgb[0], rgb[1], rgb[2]) * shade;
        }
        raster_triangle(img, zbuf, p, c, view.x0, view.x0 + view_width - 1);
      }
    }
  }
  // Thin separators between the views.
  for (int y = 0; y < height; ++y)
    img.set(view_width, y, {200, 200, 200}), img.set(2 * view_width, y, {200, 200, 200});
  return img;
}

void write_png(const std::filesystem::path& path, const Image& image) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string name = path.filename().string();
  name.insert(name.begin(), '.');
  name.append(".tmp");
  const std::filesystem::path tmp = dir / name;
  FILE* fp = std::fopen(tmp.c_str(), "wb");
  if (!fp) throw std::runtime_error("cannot write '" + path.string() + "'");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(fp);
    std::filesystem::remove(tmp);
    throw std::runtime_error("cannot encode PNG '" + path.string() + "'");
  }
  png_init_io(png, fp);
  png_set_IHDR(png, info, image.width, image.height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < image.height; ++y)
    png_write_row(png, image.rgb.data() + static_cast<std::size_t>(y) * image.width * 3);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  const bool ok = std::fclose(fp) == 0;
  if (!ok) {
    std::filesystem::remove(tmp);
    throw std::runtime_error("cannot write '" + path.string() + "'");
  }
  std::filesystem::rename(tmp, path);
}

Image read_png(const std::filesystem::path& path) {
  FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) throw InputError("cannot open PNG '" + path.string() + "'");
  unsigned char sig[8] = {};
  if (std::fread(sig, 1, 8, fp) != 8 || png_sig_cmp(sig, 0, 8) != 0) {
    std::fclose(fp);
    throw InputError("'" + path.string() + "' is not a PNG file");
  }
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  Image image;  // outside the setjmp scope: no object with a destructor is skipped by longjmp
  std::vector<png_bytep> rows;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    std::fclose(fp);
    throw InputError("cannot decode PNG '" + path.string() + "'");
  }
  png_init_io(png, fp);
  png_set_sig_bytes(png, 8);
  png_read_info(png, info);
  // Normalise every colour type and depth to 8-bit RGB.
  png_set_strip_16(png);
  png_set_strip_alpha(png);
  png_set_packing(png);
  png_set_palette_to_rgb(png);
  png_set_expand_gray_1_2_4_to_8(png);
  png_set_gray_to_rgb(png);
  png_read_update_info(png, info);
  image.width = static_cast<int>(png_get_image_width(png, info));
  image.height = static_cast<int>(png_get_image_height(png, info));
  if (png_get_rowbytes(png, info) != static_cast<std::size_t>(image.width) * 3)
    png_error(png, "unexpected row size");
  image.rgb.resize(static_cast<std::size_t>(image.width) * image.height * 3);
  rows.resize(image.height);
  for (int y = 0; y < image.height; ++y)
    rows[y] = image.rgb.data() + static_cast<std::size_t>(y) * image.width * 3;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  std::fclose(fp);
  return image;
}

}  // namespace tryon::outputs
