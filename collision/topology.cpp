#include "collision/topology.hpp"

#include <algorithm>

#include "core/trimesh.hpp"

namespace tryon::collision {

MeshTopology MeshTopology::build(ConstRef<Triangles> F, int num_vertices) {
  MeshTopology topo;
  topo.edges = unique_edges(F);
  topo.triangle_edges.resize(F.rows(), 3);
  topo.vertex_owner.assign(num_vertices, -1);
  topo.edge_owner.assign(topo.edges.rows(), -1);
  const auto find_edge = [&](int a, int b) {
    const int lo = std::min(a, b), hi = std::max(a, b);
    int l = 0, r = static_cast<int>(topo.edges.rows());
    while (l < r) {  // lower bound on (lo, hi)
      const int m = (l + r) / 2;
      if (topo.edges(m, 0) < lo || (topo.edges(m, 0) == lo && topo.edges(m, 1) < hi)) l = m + 1;
      else r = m;
    }
    return l;
  };
  for (int i = static_cast<int>(F.rows()) - 1; i >= 0; --i)  // descending: the lowest index wins
    for (int k = 0; k < 3; ++k) {
      const int e = find_edge(F(i, k), F(i, (k + 1) % 3));
      topo.triangle_edges(i, k) = e;
      topo.edge_owner[e] = i;
      topo.vertex_owner[F(i, k)] = i;
    }
  return topo;
}

}  // namespace tryon::collision
