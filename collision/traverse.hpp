#pragma once
// Internal: the parallel task-tree traversal shared by every query.
//
// A query is a tree of tasks (a pair of nodes, or one node against itself). `expand(task, children,
// out)` handles one task: it writes results to `out` or pushes child tasks. Two schedules:
// - depth_first_tasks: expand breadth-first (serially) until the front holds `front_target` tasks,
//   then the threads claim the front's tasks one at a time (an atomic counter, so a thread the OS
//   has descheduled does not hold the others up); each task is finished depth-first with its own
//   stack and its own output.
// - breadth_first_levels: the S-AABB schedule [Zhao et al. 2008]: every level of the task tree is
//   split into contiguous chunks expanded in parallel (levels below `parallel_level` tasks run
//   serially: a fork-join per small level costs more than it saves); the next level is the
//   chunks' children concatenated in chunk order.
// Outputs are kept per task (or per chunk) and concatenated in a fixed order, so results do not
// depend on the thread count.
#include <algorithm>
#include <atomic>
#include <vector>

#include "core/parallel.hpp"

namespace tryon::collision::detail {

template <class Out, class Task, class Expand>
std::vector<Out> depth_first_tasks(const Task& root, Expand&& expand, std::size_t front_target = 256,
                                   std::size_t parallel_front = 32) {
  std::vector<Out> outs(1);
  std::vector<Task> front{root};
  while (!front.empty() && front.size() < front_target) {
    std::vector<Task> next;
    for (const Task& t : front) expand(t, next, outs[0]);
    front.swap(next);
  }
  outs.resize(1 + front.size());
  const std::size_t workers = static_cast<std::size_t>(std::max(1, num_threads()));
  // A small front means little work: a fork-join would cost more than it saves.
  const std::size_t used_workers = front.size() < parallel_front ? 1 : workers;
  std::atomic<std::size_t> next_task{0};
  parallel_for(
      used_workers,
      [&](std::size_t) {
        std::vector<Task> stack;
        for (std::size_t i; (i = next_task.fetch_add(1, std::memory_order_relaxed)) < front.size();) {
          stack.push_back(front[i]);
          while (!stack.empty()) {
            const Task t = stack.back();
            stack.pop_back();
            expand(t, stack, outs[1 + i]);
          }
        }
      },
      2);
  return outs;
}

template <class Out, class Task, class Expand>
std::vector<Out> breadth_first_levels(const Task& root, Expand&& expand,
                                      std::size_t parallel_level = 1024) {
  std::vector<Out> outs;
  std::vector<Task> level{root};
  const std::size_t threads = static_cast<std::size_t>(std::max(1, num_threads()));
  while (!level.empty()) {
    const std::size_t chunks = level.size() < parallel_level ? 1 : std::min(level.size(), 16 * threads);
    const std::size_t first_out = outs.size();
    outs.resize(first_out + chunks);
    std::vector<std::vector<Task>> next(chunks);
    auto run_chunk = [&](std::size_t c) {
      const std::size_t b = level.size() * c / chunks, e = level.size() * (c + 1) / chunks;
      for (std::size_t i = b; i < e; ++i) expand(level[i], next[c], outs[first_out + c]);
    };
    if (chunks == 1) {
      run_chunk(0);
    } else {
      std::atomic<std::size_t> next_chunk{0};
      parallel_for(
          threads,
          [&](std::size_t) {
            for (std::size_t c; (c = next_chunk.fetch_add(1, std::memory_order_relaxed)) < chunks;) run_chunk(c);
          },
          2);
    }
    std::size_t total = 0;
    for (const auto& n : next) total += n.size();
    std::vector<Task> merged;
    merged.reserve(total);
    for (auto& n : next) merged.insert(merged.end(), n.begin(), n.end());
    level.swap(merged);
  }
  return outs;
}

}  // namespace tryon::collision::detail
