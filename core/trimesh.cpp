#include "core/trimesh.hpp"

#include <algorithm>
#include <array>
#include <tuple>
#include <cmath>
#include <unordered_map>

#include "core/error.hpp"

namespace tryon {

Bounds3 bounds(ConstRef<Points3> V) {
  Bounds3 b;
  for (Eigen::Index i = 0; i < V.rows(); ++i) {
    b.min = b.min.cwiseMin(V.row(i).transpose());
    b.max = b.max.cwiseMax(V.row(i).transpose());
  }
  return b;
}

void check_mesh(const TriMesh& mesh, const std::string& what) {
  if (!mesh.V.allFinite())
    throw InputError(what + ": a vertex coordinate is not a finite number");
  const int n = mesh.num_vertices();
  for (int f = 0; f < mesh.num_triangles(); ++f)
    for (int k = 0; k < 3; ++k)
      if (mesh.F(f, k) < 0 || mesh.F(f, k) >= n)
        throw InputError(what + ": face " + std::to_string(f) + " refers to vertex " +
                         std::to_string(mesh.F(f, k)) + ", but there are only " +
                         std::to_string(n) + " vertices");
  if (mesh.UV.rows() != 0 && mesh.UV.rows() != n)
    throw InputError(what + ": texture coordinates do not match the vertices");
}

int weld_vertices(TriMesh& mesh, double tolerance, std::vector<int>* kept_out) {
  const int n = mesh.num_vertices();
  if (kept_out) kept_out->clear();
  if (n == 0) return 0;
  std::vector<int> remap(n, -1);
  std::vector<int> kept;
  kept.reserve(n);
  if (!(tolerance > 0)) {
    // Exact duplicates only: a stable sort by coordinates puts each run of equal points in
    // input order, so every point's representative (the run's first) precedes it.
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    auto key = [&](int i) { return std::tuple(mesh.V(i, 0), mesh.V(i, 1), mesh.V(i, 2)); };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
    std::vector<int> first(n);
    for (int k = 0; k < n; ++k)
      first[order[k]] = (k > 0 && key(order[k]) == key(order[k - 1])) ? first[order[k - 1]] : order[k];
    for (int i = 0; i < n; ++i) {
      if (first[i] == i) {
        remap[i] = static_cast<int>(kept.size());
        kept.push_back(i);
      } else {
        remap[i] = remap[first[i]];
      }
    }
  } else {
    // Hash grid of cell size = tolerance; compare against the 27 neighbouring cells.
    using Key = std::array<long long, 3>;
    struct KeyHash {
      std::size_t operator()(const Key& k) const {
        // Teschner et al. 2003's spatial hash, in unsigned arithmetic: wrap-around is defined there,
        // while the signed product overflows for far cells (UBSan found it).
        return static_cast<std::size_t>(static_cast<unsigned long long>(k[0]) * 73856093ULL ^
                                        static_cast<unsigned long long>(k[1]) * 19349663ULL ^
                                        static_cast<unsigned long long>(k[2]) * 83492791ULL);
      }
    };
    std::unordered_map<Key, std::vector<int>, KeyHash> grid;
    for (int i = 0; i < n; ++i) {
      const Vec3 p = mesh.V.row(i).transpose();
      // Clamped before the conversion, which is undefined beyond long long's range (far points
      // then share the outermost cells and are compared by distance as usual).
      auto cell = [&](double x) {
        return static_cast<long long>(std::clamp(std::floor(x / tolerance), -4.0e18, 4.0e18));
      };
      const Key key{cell(p.x()), cell(p.y()), cell(p.z())};
      int found = -1;
      for (int dx = -1; dx <= 1 && found < 0; ++dx)
        for (int dy = -1; dy <= 1 && found < 0; ++dy)
          for (int dz = -1; dz <= 1 && found < 0; ++dz) {
            auto it = grid.find(Key{key[0] + dx, key[1] + dy, key[2] + dz});
            if (it == grid.end()) continue;
            for (int j : it->second)
              if ((mesh.V.row(kept[j]).transpose() - p).norm() <= tolerance) {
                found = j;
                break;
              }
          }
      if (found < 0) {
        found = static_cast<int>(kept.size());
        kept.push_back(i);
        grid[key].push_back(found);
      }
      remap[i] = found;
    }
  }
  Points3 V(kept.size(), 3);
  Points2 UV(mesh.UV.rows() ? kept.size() : 0, 2);
  for (std::size_t j = 0; j < kept.size(); ++j) {
    V.row(j) = mesh.V.row(kept[j]);
    if (UV.rows()) UV.row(j) = mesh.UV.row(kept[j]);
  }
  std::vector<Eigen::Vector3i> faces;
  faces.reserve(mesh.num_triangles());
  for (int f = 0; f < mesh.num_triangles(); ++f) {
    Eigen::Vector3i t(remap[mesh.F(f, 0)], remap[mesh.F(f, 1)], remap[mesh.F(f, 2)]);
    if (t[0] != t[1] && t[1] != t[2] && t[0] != t[2]) faces.push_back(t);
  }
  Triangles F(faces.size(), 3);
  for (std::size_t f = 0; f < faces.size(); ++f) F.row(f) = faces[f].transpose();
  const int removed = n - static_cast<int>(kept.size());
  mesh.V = std::move(V);
  mesh.F = std::move(F);
  mesh.UV = std::move(UV);
  if (kept_out) *kept_out = std::move(kept);
  return removed;
}

namespace {
// Every triangle side as (smaller, larger) vertex index, sorted: equal runs are one edge.
std::vector<std::pair<int, int>> sorted_sides(ConstRef<Triangles> F) {
  std::vector<std::pair<int, int>> e;
  e.reserve(F.rows() * 3);
  for (Eigen::Index f = 0; f < F.rows(); ++f)
    for (int k = 0; k < 3; ++k) {
      const int a = F(f, k), b = F(f, (k + 1) % 3);
      e.emplace_back(std::min(a, b), std::max(a, b));
    }
  std::sort(e.begin(), e.end());
  return e;
}
}  // namespace

Segments unique_edges(ConstRef<Triangles> F) {
  std::vector<std::pair<int, int>> e = sorted_sides(F);
  e.erase(std::unique(e.begin(), e.end()), e.end());
  Segments E(e.size(), 2);
  for (std::size_t i = 0; i < e.size(); ++i) E.row(i) << e[i].first, e[i].second;
  return E;
}

EdgeTopology edge_topology(ConstRef<Triangles> F) {
  const std::vector<std::pair<int, int>> e = sorted_sides(F);
  EdgeTopology t;
  for (std::size_t i = 0; i < e.size();) {
    std::size_t j = i;
    while (j < e.size() && e[j] == e[i]) ++j;
    ++t.edges;
    if (j - i == 1) ++t.boundary_edges;
    if (j - i >= 3) ++t.non_manifold_edges;
    i = j;
  }
  return t;
}

Points3 triangle_normals(ConstRef<Points3> V, ConstRef<Triangles> F) {
  Points3 N(F.rows(), 3);
  for (Eigen::Index f = 0; f < F.rows(); ++f) {
    const Vec3 a = V.row(F(f, 0)), b = V.row(F(f, 1)), c = V.row(F(f, 2));
    Vec3 n = (b - a).cross(c - a);
    const double len = n.norm();
    N.row(f) = len > 0 ? Vec3(n / len) : Vec3::Zero();
  }
  return N;
}

double surface_area(ConstRef<Points3> V, ConstRef<Triangles> F) {
  double area = 0;
  for (Eigen::Index f = 0; f < F.rows(); ++f) {
    const Vec3 a = V.row(F(f, 0)), b = V.row(F(f, 1)), c = V.row(F(f, 2));
    area += 0.5 * (b - a).cross(c - a).norm();
  }
  return area;
}

Points3 vertex_normals(ConstRef<Points3> V, ConstRef<Triangles> F) {
  Points3 N = Points3::Zero(V.rows(), 3);
  // Serial, in triangle order: the sums do not depend on the thread count.
  for (Eigen::Index f = 0; f < F.rows(); ++f) {
    const Vec3 a = V.row(F(f, 0)), b = V.row(F(f, 1)), c = V.row(F(f, 2));
    const Vec3 area_vector = (b - a).cross(c - a);  // |·| = 2 × area: area-weighted [Gouraud 1971]
    for (int k = 0; k < 3; ++k) N.row(F(f, k)) += area_vector.transpose();
  }
  for (Eigen::Index i = 0; i < N.rows(); ++i) {
    const double n = N.row(i).norm();
    if (n > 0 && std::isfinite(n))
      N.row(i) /= n;
    else
      N.row(i) = Vec3::UnitY().transpose();
  }
  return N;
}

}  // namespace tryon
