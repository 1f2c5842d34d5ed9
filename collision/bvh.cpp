#include "collision/bvh.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace tryon::collision {

void check_bvh_input(ConstRef<Points3> V, ConstRef<Triangles> F) {
  if (!V.allFinite()) throw InputError("collision: mesh has non-finite vertex positions");
  if (F.size() > 0 && (F.minCoeff() < 0 || F.maxCoeff() >= V.rows()))
    throw InputError("collision: triangle index out of range (mesh has " +
                     std::to_string(V.rows()) + " vertices)");
}

namespace {

int median_split(std::vector<int>& prims, const std::vector<Vec3>& centroid, int begin, int end,
                 int axis) {
  const int mid = begin + (end - begin) / 2;
  std::nth_element(prims.begin() + begin, prims.begin() + mid, prims.begin() + end,
                   [&](int a, int b) {
                     const double ca = centroid[a][axis], cb = centroid[b][axis];
                     return ca < cb || (ca == cb && a < b);
                   });
  return mid;
}

}  // namespace

int split_primitives(std::vector<int>& prims, const std::vector<Vec3>& centroid,
                     const std::vector<Aabb>& boxes, int begin, int end, SplitRule rule) {
  Aabb cb;
  for (int i = begin; i < end; ++i) cb.extend(centroid[prims[i]]);
  int axis = 0;
  const Vec3 ext = cb.hi - cb.lo;
  ext.maxCoeff(&axis);
  if (ext[axis] <= 0) return begin + (end - begin) / 2;  // all centroids equal: split the list

  if (rule == SplitRule::Sah) {
    // Binned SAH: cost(split) = A_left N_left + A_right N_right over 16 bins per axis.
    constexpr int kBins = 16;
    double best_cost = std::numeric_limits<double>::infinity();
    int best_axis = -1, best_bin = -1;
    for (int ax = 0; ax < 3; ++ax) {
      if (ext[ax] <= 0) continue;
      std::array<Aabb, kBins> bin_box;
      std::array<int, kBins> bin_count{};
      const double scale = kBins / ext[ax];
      for (int i = begin; i < end; ++i) {
        const int b = std::min(kBins - 1, static_cast<int>((centroid[prims[i]][ax] - cb.lo[ax]) * scale));
        bin_box[b].extend(boxes[prims[i]]);
        ++bin_count[b];
      }
      std::array<double, kBins> right_area{};
      std::array<int, kBins> right_count{};
      Aabb acc;
      int cnt = 0;
      for (int b = kBins - 1; b > 0; --b) {
        acc.extend(bin_box[b]);
        cnt += bin_count[b];
        right_area[b] = acc.half_area();
        right_count[b] = cnt;
      }
      acc = Aabb{};
      cnt = 0;
      for (int b = 0; b < kBins - 1; ++b) {
        acc.extend(bin_box[b]);
        cnt += bin_count[b];
        if (cnt == 0 || right_count[b + 1] == 0) continue;
        const double cost = acc.half_area() * cnt + right_area[b + 1] * right_count[b + 1];
        if (cost < best_cost) {
          best_cost = cost;
          best_axis = ax;
          best_bin = b;
        }
      }
    }
    if (best_axis < 0) return median_split(prims, centroid, begin, end, axis);
    const double scale = kBins / ext[best_axis];
    auto it = std::partition(prims.begin() + begin, prims.begin() + end, [&](int p) {
      return std::min(kBins - 1, static_cast<int>((centroid[p][best_axis] - cb.lo[best_axis]) * scale)) <= best_bin;
    });
    return static_cast<int>(it - prims.begin());
  }

  // Middle of the longest axis [Gottschalk et al. 1996; the sphere/OBB and S-AABB papers].
  const double cut = 0.5 * (cb.lo[axis] + cb.hi[axis]);
  auto it = std::partition(prims.begin() + begin, prims.begin() + end,
                           [&](int p) { return centroid[p][axis] < cut; });
  const int mid = static_cast<int>(it - prims.begin());
  if (mid == begin || mid == end) return median_split(prims, centroid, begin, end, axis);
  return mid;
}

}  // namespace tryon::collision
