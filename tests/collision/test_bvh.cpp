#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "collision/bvh.hpp"
#include "core/parallel.hpp"
#include "test_meshes.hpp"

using namespace tryon;
using namespace tryon::collision;

template <class BV>
class BvhTyped : public ::testing::Test {};
using Volumes = ::testing::Types<Aabb, Sphere, Obb, SphereObb, SAabb>;
TYPED_TEST_SUITE(BvhTyped, Volumes);

TYPED_TEST(BvhTyped, BuildIsAPartitionAndBounds) {
  const TriMesh m = test::random_soup(500, 0.05, 21);
  for (SplitRule rule : {SplitRule::Midpoint, SplitRule::Sah})
    for (int leaf : {1, 4}) {
      Bvh<TypeParam> bvh(m.V, m.F, BvhConfig{leaf, rule, 3});
      std::vector<int> p = bvh.primitives();
      std::sort(p.begin(), p.end());
      std::vector<int> ref(500);
      std::iota(ref.begin(), ref.end(), 0);
      EXPECT_EQ(p, ref);
      EXPECT_TRUE(bvh.check_bounds(m.V, m.F));
      for (const auto& n : bvh.nodes()) {
        if (n.is_leaf()) EXPECT_LE(n.end - n.begin, leaf);
        else EXPECT_GT(n.end - n.begin, 1);
      }
      EXPECT_EQ(bvh.nodes()[0].end - bvh.nodes()[0].begin, 500);
      EXPECT_LT(bvh.height(), 40);
    }
}

TYPED_TEST(BvhTyped, RefitBoundsMovedVerticesAndRebuildWorks) {
  TriMesh m = test::grid(20, 1.0, 0.0, 0.0, 1);
  Bvh<TypeParam> bvh(m.V, m.F);
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> U(-0.05, 0.05);
  for (int step = 0; step < 3; ++step) {
    for (int i = 0; i < m.V.rows(); ++i) m.V.row(i) += Vec3(U(rng), 3 * U(rng), U(rng)).transpose();
    EXPECT_FALSE(step == 0 && bvh.check_bounds(m.V, m.F));  // moved out of the old volumes
    bvh.refit(m.V, m.F);
    EXPECT_TRUE(bvh.check_bounds(m.V, m.F)) << "step " << step;
  }
  bvh.rebuild(m.V, m.F);
  EXPECT_TRUE(bvh.check_bounds(m.V, m.F));
}

TEST(Bvh, AabbRefitEqualsFreshBoxesOnSameTopology) {
  // 512 triangles (leaves refitted serially) and 4608 (in parallel, on 2 threads).
  for (int n : {16, 48}) {
    SCOPED_TRACE("grid " + std::to_string(n));
    TriMesh m = test::grid(n, 1.0, 0.0, 0.01, 3);
    Bvh<Aabb> bvh(m.V, m.F);
    m.V.col(1) += 0.1 * m.V.col(0);
    set_num_threads(2);
    bvh.refit(m.V, m.F);
    set_num_threads(0);
    for (const auto& node : bvh.nodes()) {
      const Aabb fresh = Aabb::fit(m.V, m.F, bvh.primitives().data() + node.begin, node.end - node.begin);
      EXPECT_EQ(fresh.lo, node.bv.lo);
      EXPECT_EQ(fresh.hi, node.bv.hi);
    }
  }
}

TEST(Bvh, RejectsBadInput) {
  TriMesh m = test::grid(2, 1.0, 0.0, 0.0, 1);
  m.F(0, 0) = 99;
  EXPECT_THROW(Bvh<Aabb>(m.V, m.F), InputError);
  m = test::grid(2, 1.0, 0.0, 0.0, 1);
  m.V(0, 0) = std::nan("");
  EXPECT_THROW(Bvh<Aabb>(m.V, m.F), InputError);
  m = test::grid(2, 1.0, 0.0, 0.0, 1);
  Bvh<Aabb> ok(m.V, m.F);
  EXPECT_THROW(ok.refit(m.V.topRows(4), m.F), InputError);  // vertex count changed
  EXPECT_THROW(ok.refit(m.V, m.F.topRows(2)), InputError);  // triangle count changed
  Bvh<Aabb> empty(Points3(0, 3), Triangles(0, 3));
  EXPECT_TRUE(empty.empty());
}
