#include "core/parallel.hpp"

#include <omp.h>

#include <exception>

namespace tryon {
namespace {
int g_threads = 0;  // 0 = OpenMP default
}

int num_threads() { return g_threads > 0 ? g_threads : omp_get_max_threads(); }

void set_num_threads(int n) {
  g_threads = n > 0 ? n : 0;
  if (g_threads > 0) omp_set_num_threads(g_threads);
}

int thread_index() { return omp_get_thread_num(); }

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn,
                  std::size_t serial_below) {
  const int threads = num_threads();
  if (n < serial_below || threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  // An exception must not leave an OpenMP region: keep the first one and rethrow it.
  std::exception_ptr error;
  const auto count = static_cast<long long>(n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long long i = 0; i < count; ++i) {
    try {
      fn(static_cast<std::size_t>(i));
    } catch (...) {
#pragma omp critical(tryon_parallel_for_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace tryon
