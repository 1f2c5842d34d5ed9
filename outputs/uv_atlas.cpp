#include "outputs/uv_atlas.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/error.hpp"

namespace tryon::outputs {

namespace {

struct Box {
  double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  bool empty() const { return !(x1 >= x0); }
  double width() const { return empty() ? 0.0 : x1 - x0; }
  double height() const { return empty() ? 0.0 : y1 - y0; }
};

struct Layout {
  std::vector<Eigen::Vector2d> corner;  // lower-left corner of each panel's box in the layout
  double size = INFINITY;               // side of the square that holds it
};

// Shelf packing [e.g. Jylänki 2010, "A thousand ways to pack the bin", shelf next fit] of the
// boxes in `order` into rows at most `shelf_width` wide, `gap` between boxes and around them.
Layout shelves(const std::vector<Box>& boxes, const std::vector<int>& order, double shelf_width, double gap) {
  Layout out;
  out.corner.assign(boxes.size(), Eigen::Vector2d::Zero());
  double x = gap, y = gap, row_height = 0, widest = 0;
  for (const int p : order) {
    const double w = boxes[p].width(), h = boxes[p].height();
    if (x > gap && x + w + gap > shelf_width) {  // next row
      y += row_height + gap;
      x = gap;
      row_height = 0;
    }
    out.corner[p] = {x, y};
    x += w + gap;
    widest = std::max(widest, x);
    row_height = std::max(row_height, h);
  }
  out.size = std::max(widest, y + row_height + gap);
  return out;
}

}  // namespace

Points2 pack_panels_uv(ConstRef<Points2> rest, const std::vector<int>& panel_of_vertex, int num_panels,
                       double gap) {
  if (static_cast<Eigen::Index>(panel_of_vertex.size()) != rest.rows())
    throw InputError("UV atlas: " + std::to_string(panel_of_vertex.size()) + " panel indices for " +
                     std::to_string(rest.rows()) + " vertices");
  if (!rest.allFinite()) throw InputError("UV atlas: non-finite panel coordinates");
  if (!(gap >= 0 && gap < 1)) throw InputError("UV atlas: the gap must be in [0, 1)");
  std::vector<Box> boxes(static_cast<std::size_t>(std::max(num_panels, 0)));
  for (Eigen::Index i = 0; i < rest.rows(); ++i) {
    const int p = panel_of_vertex[i];
    if (p < 0 || p >= num_panels) throw InputError("UV atlas: panel index " + std::to_string(p) + " out of range");
    Box& b = boxes[p];
    b.x0 = std::min(b.x0, rest(i, 0));
    b.y0 = std::min(b.y0, rest(i, 1));
    b.x1 = std::max(b.x1, rest(i, 0));
    b.y1 = std::max(b.y1, rest(i, 1));
  }
  double largest = 0, area = 0, widest = 0;
  for (const Box& b : boxes) {
    largest = std::max({largest, b.width(), b.height()});
    widest = std::max(widest, b.width());
    area += b.width() * b.height();
  }
  Points2 uv = Points2::Zero(rest.rows(), 2);
  if (rest.rows() == 0 || largest <= 0) return uv;
  const double g = gap * largest;
  std::vector<int> order(boxes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return boxes[a].height() > boxes[b].height(); });
  // Shelf widths from the widest panel up to all panels in one row; the smallest square wins.
  Layout best;
  const double lo = widest + 2 * g;
  const double hi = std::max(lo, std::accumulate(boxes.begin(), boxes.end(), g,
                                                 [&](double s, const Box& b) { return s + b.width() + g; }));
  const double start = std::max(lo, std::sqrt(area));
  for (int k = 0; k <= 40; ++k) {
    const double w = std::min(hi, k == 0 ? lo : start * std::pow(hi / start, (k - 1) / 39.0));
    Layout l = shelves(boxes, order, w, g);
    if (l.size < best.size) best = std::move(l);
  }
  const double scale = 1.0 / best.size;
  for (Eigen::Index i = 0; i < rest.rows(); ++i) {
    const int p = panel_of_vertex[i];
    uv(i, 0) = (best.corner[p].x() + rest(i, 0) - boxes[p].x0) * scale;
    uv(i, 1) = (best.corner[p].y() + rest(i, 1) - boxes[p].y0) * scale;
  }
  return uv.cwiseMax(0.0).cwiseMin(1.0);  // rounding only: the layout lies inside the square
}

}  // namespace tryon::outputs
