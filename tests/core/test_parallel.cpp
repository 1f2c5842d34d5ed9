#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "core/parallel.hpp"

using namespace tryon;

TEST(Parallel, VisitsEveryIndexOnceForAnyThreadCount) {
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    std::vector<std::atomic<int>> hits(10000);
    parallel_for(hits.size(), [&](std::size_t i) { hits[i]++; });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  }
  set_num_threads(0);
}

TEST(Parallel, ExceptionInBodyIsRethrown) {
  set_num_threads(2);
  EXPECT_THROW(parallel_for(1000,
                            [](std::size_t i) {
                              if (i == 777) throw std::runtime_error("boom");
                            }),
               std::runtime_error);
  set_num_threads(0);
}
