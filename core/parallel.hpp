#pragma once
// One helper hides OpenMP. Work below a threshold runs serially; the schedule is static,
// so the split of [0, n) over threads is fixed for a given thread count. Callers that
// gather results use per-thread buffers merged in thread order (or sort them), so that
// results do not depend on the number of threads.
#include <cstddef>
#include <functional>

namespace tryon {

/// Number of threads parallel_for uses (OpenMP's maximum unless set).
int num_threads();
/// Sets the thread count for all later parallel work; n <= 0 restores the default.
void set_num_threads(int n);
/// Index of the calling thread inside a parallel_for body (0 outside).
int thread_index();

/// Calls fn(i) for i in [0, n), split statically over threads when n >= serial_below.
void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn,
                  std::size_t serial_below = 64);

}  // namespace tryon
