#include "outputs/uv_atlas.hpp"

#include <gtest/gtest.h>

#include <random>

#include "core/error.hpp"

using namespace tryon;
using namespace tryon::outputs;

namespace {

struct Panels {
  Points2 rest;
  std::vector<int> panel_of_vertex;
  int count = 0;
};

// `count` random rectangles-with-a-diagonal (four corners and a centre each) of 5 cm to 1.2 m a
// side, at random places in their own frames (which overlap one another).
Panels random_panels(int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> side(0.05, 1.2), place(-2.0, 2.0);
  Panels p;
  p.count = count;
  p.rest.resize(5 * count, 2);
  for (int k = 0; k < count; ++k) {
    const double w = side(rng), h = side(rng), x = place(rng), y = place(rng);
    const double pts[5][2] = {{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}, {x + w / 2, y + h / 3}};
    for (int i = 0; i < 5; ++i) {
      p.rest.row(5 * k + i) << pts[i][0], pts[i][1];
      p.panel_of_vertex.push_back(k);
    }
  }
  return p;
}

struct Box {
  double x0, y0, x1, y1;
};

Box box_of(const Points2& uv, const std::vector<int>& panel_of_vertex, int k) {
  Box b{1e9, 1e9, -1e9, -1e9};
  for (Eigen::Index i = 0; i < uv.rows(); ++i)
    if (panel_of_vertex[i] == k) {
      b.x0 = std::min(b.x0, uv(i, 0));
      b.y0 = std::min(b.y0, uv(i, 1));
      b.x1 = std::max(b.x1, uv(i, 0));
      b.y1 = std::max(b.y1, uv(i, 1));
    }
  return b;
}

}  // namespace

TEST(UvAtlas, PanelsLieInTheUnitSquareWithoutOverlapAtOneScale) {
  for (const int count : {1, 2, 5, 12, 34}) {
    const Panels p = random_panels(count, 7u + count);
    const Points2 uv = pack_panels_uv(p.rest, p.panel_of_vertex, p.count);
    ASSERT_EQ(uv.rows(), p.rest.rows());
    EXPECT_GE(uv.minCoeff(), 0.0);
    EXPECT_LE(uv.maxCoeff(), 1.0);
    // One scale for all: each vertex's offset from its panel's first vertex is the rest offset
    // times the same factor, never turned or mirrored.
    const double scale = (uv(1, 0) - uv(0, 0)) / (p.rest(1, 0) - p.rest(0, 0));
    EXPECT_GT(scale, 0);
    for (Eigen::Index i = 0; i < uv.rows(); ++i) {
      const Eigen::Index first = 5 * p.panel_of_vertex[i];
      for (int c = 0; c < 2; ++c)
        EXPECT_NEAR(uv(i, c) - uv(first, c), scale * (p.rest(i, c) - p.rest(first, c)), 1e-9) << count;
    }
    // Brute force over every pair of panels: the boxes are apart (the gap between them).
    for (int a = 0; a < count; ++a)
      for (int b = a + 1; b < count; ++b) {
        const Box A = box_of(uv, p.panel_of_vertex, a), B = box_of(uv, p.panel_of_vertex, b);
        const bool apart = A.x1 < B.x0 || B.x1 < A.x0 || A.y1 < B.y0 || B.y1 < A.y0;
        EXPECT_TRUE(apart) << count << " panels: " << a << " and " << b << " overlap";
      }
    // The layout uses the square: the largest extent reaches at least 90 % of it.
    const double extent = std::max(uv.col(0).maxCoeff() - uv.col(0).minCoeff(), uv.col(1).maxCoeff() - uv.col(1).minCoeff());
    EXPECT_GT(extent, 0.9) << count;
  }
}

TEST(UvAtlas, ManySmallPanelsFillTheSquareBetterThanOneRow) {
  // 16 equal squares: a 4 × 4 layout at a quarter of the side each; one row would give 1/16.
  const Panels p = [] {
    Panels q;
    q.count = 16;
    q.rest.resize(4 * 16, 2);
    for (int k = 0; k < 16; ++k)
      for (int i = 0; i < 4; ++i) {
        q.rest.row(4 * k + i) << (i == 1 || i == 2) * 0.3, (i >= 2) * 0.3;
        q.panel_of_vertex.push_back(k);
      }
    return q;
  }();
  const Points2 uv = pack_panels_uv(p.rest, p.panel_of_vertex, p.count);
  EXPECT_GT(uv(2, 0) - uv(0, 0), 0.2);
}

TEST(UvAtlas, RejectsBadInput) {
  const Panels p = random_panels(3, 1);
  std::vector<int> short_list(p.panel_of_vertex.begin(), p.panel_of_vertex.end() - 1);
  EXPECT_THROW(pack_panels_uv(p.rest, short_list, 3), InputError);
  EXPECT_THROW(pack_panels_uv(p.rest, p.panel_of_vertex, 2), InputError);  // index 2 out of range
  Points2 bad = p.rest;
  bad(0, 0) = std::nan("");
  EXPECT_THROW(pack_panels_uv(bad, p.panel_of_vertex, 3), InputError);
  EXPECT_EQ(pack_panels_uv(Points2(0, 2), {}, 0).rows(), 0);
}
