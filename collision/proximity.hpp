#pragma once
// Proximity (all pairs closer than d) and continuous collision queries between two meshes or
// within one mesh, over AABB trees. These are the cloth simulator's contact queries: a body tree
// built once, a cloth tree refitted every step (Bvh<Aabb>::refit), swept trees for continuous
// collisions (Bvh<Aabb>::build on x0, then refit_swept).
//
// Each vertex and edge is "owned" by the lowest-index triangle using it; a pair is reported from
// its owner's leaf only, so no pair is reported twice and no sort-unique pass is needed.
// Vertices used by no triangle are ignored. Results are sorted (independent of the thread count).
#include <compare>
#include <vector>

#include "collision/ccd.hpp"
#include "collision/normal_cone.hpp"
#include "collision/queries.hpp"
#include "collision/topology.hpp"

namespace tryon::collision {

/// Vertex `vertex` against triangle `triangle` (of the other mesh, or of the same mesh).
struct VertexTriangleHit {
  int vertex = 0;
  int triangle = 0;
  double distance = 0;
  Vec3 bary = Vec3::Zero();    ///< barycentric weights of the closest point on the triangle
  Vec3 point = Vec3::Zero();   ///< the closest point on the triangle
  Vec3 normal = Vec3::Zero();  ///< unit, from the closest point towards the vertex (triangle normal at distance 0)
  bool operator<(const VertexTriangleHit& o) const {
    return vertex < o.vertex || (vertex == o.vertex && triangle < o.triangle);
  }
};

/// Edge `edge_a` against edge `edge_b` (edge ids of MeshTopology::edges).
struct EdgeEdgeHit {
  int edge_a = 0;
  int edge_b = 0;
  double distance = 0;
  double s = 0, t = 0;           ///< closest points at (1−s) x0 + s x1 of each edge (edge order as in `edges`)
  Vec3 point_a = Vec3::Zero();
  Vec3 point_b = Vec3::Zero();
  Vec3 normal = Vec3::Zero();    ///< unit, from point_b towards point_a (edges' cross product at distance 0)
  bool operator<(const EdgeEdgeHit& o) const {
    return edge_a < o.edge_a || (edge_a == o.edge_a && edge_b < o.edge_b);
  }
};

struct ProximityResult {
  std::vector<VertexTriangleHit> vertex_triangle;  ///< vertices of A against triangles of B (self: the one list)
  std::vector<VertexTriangleHit> triangle_vertex;  ///< vertices of B against triangles of A (empty for self)
  std::vector<EdgeEdgeHit> edge_edge;              ///< edges of A against edges of B (self: edge_a < edge_b)
};

/// A mesh with its AABB tree and topology for the proximity queries (non-owning).
struct ProximityMesh {
  const Points3& V;          ///< |V|×3 positions (world frame)
  const Triangles& F;        ///< |F|×3
  const MeshTopology& topo;
  const Bvh<Aabb>& bvh;      ///< up to date for V
  const NodeContours* contours = nullptr;  ///< of bvh, for the self query's culling (optional)
};

/// All vertex–triangle and edge–edge pairs of A and B closer than d (strictly).
ProximityResult proximity(const ProximityMesh& A, const ProximityMesh& B, double d);

/// How far proximity() looks for each kind of pair (strictly closer; 0 finds none of that kind).
struct ProximityReach {
  double a_vertices = 0;  ///< vertices of A against triangles of B
  double b_vertices = 0;  ///< vertices of B against triangles of A
  double edges = 0;       ///< edges of A against edges of B
  /// Optional, |V_A|: vertex v of A looks a_vertices + a_extra[v] far (each ≥ 0). A's tree must
  /// bound every vertex inflated by its extra: refit it with refit_inflated.
  const Eigen::VectorXd* a_extra = nullptr;
};
/// The pairs of A and B within their reach: a query asking only for what its caller uses (the
/// cloth's contact looks far for its own vertices, near for the body's, not at edges) visits
/// fewer pairs of leaves and tests fewer pairs in each.
ProximityResult proximity(const ProximityMesh& A, const ProximityMesh& B, const ProximityReach& reach);

/// Refit whose leaves bound their triangles' vertices, each inflated by its `extra` (|V|, ≥ 0;
/// for ProximityReach::a_extra): a cloth vertex that moved far this step looks far, the others
/// near, and the traversal visits only the pairs of leaves within their own reach.
void refit_inflated(Bvh<Aabb>& bvh, ConstRef<Points3> V, ConstRef<Triangles> F, const Eigen::VectorXd& extra);

/// All pairs of one mesh closer than d, excluding a vertex against a triangle that uses it and
/// edges that share a vertex.
/// Regions that are height fields with every such pair at least d apart (see
/// region_pairs_farther_than) are skipped unless `normal_cones` is false: the same result.
ProximityResult self_proximity(const ProximityMesh& M, double d, bool normal_cones = true);

/// The pairs of `candidates` (from self_proximity at a larger distance, on earlier positions)
/// closer than d at M's positions now, in the same order, without a traversal: for repeated
/// sweeps that move the mesh a little. A pair that was farther than the candidates' distance is
/// not found.
ProximityResult self_proximity_among(const ProximityMesh& M, const ProximityResult& candidates, double d);

/// Brute-force references (O(|V||F| + |E|²)) for the tests.
ProximityResult proximity_brute_force(const ProximityMesh& A, const ProximityMesh& B, double d);
ProximityResult proximity_brute_force(const ProximityMesh& A, const ProximityMesh& B,
                                      const ProximityReach& reach);
ProximityResult self_proximity_brute_force(const ProximityMesh& M, double d);

// ---- continuous ----

/// Pairs of leaves of a moving mesh A and a static mesh B remembered between calls (Verlet
/// lists with a skin [Verlet 1967], per leaf of A): each leaf of A keeps the leaves of B within
/// the query's margin of its box grown by `skin`, and looks them up again in B's tree only when
/// its box has left that grown box or the margin has grown. Between lookups a query tests only
/// the remembered pairs, with the same box test as the traversal, so it finds the same pairs.
/// Proximity also keeps B's edges' boxes here. Call clear() when B moves or either tree is
/// rebuilt; one cache per kind of query.
class LeafPairCache {
 public:
  explicit LeafPairCache(double skin = 1e-3) : skin_(skin) {}
  void clear() {
    leaves_.clear();
    b_edge_boxes_.clear();
  }
  double skin() const { return skin_; }
  long long lookups() const { return lookups_; }  ///< leaves of A looked up again, in all calls

  // Internal state, used by the queries.
  struct Leaf {
    int node = 0;        ///< node of A's tree
    Aabb grown;          ///< its box when looked up, grown by the skin
    double margin = -1;  ///< the margin it was looked up with
    std::vector<int> b_leaves;
  };
  std::vector<Leaf> leaves_;
  std::vector<Aabb> b_edge_boxes_;  ///< proximity: the boxes of B's edges
  const void* a_tree_ = nullptr;
  const void* b_tree_ = nullptr;
  long long lookups_ = 0;

 private:
  double skin_;
};

/// proximity() and continuous_collisions() with B static (its tree and vertices unchanged since
/// the cache was cleared) and the pairs of leaves remembered in `cache`: the same results.
ProximityResult proximity(const ProximityMesh& A, const ProximityMesh& B, const ProximityReach& reach,
                          LeafPairCache& cache);

/// A mesh moving linearly from V0 to V1 with a swept tree (build on V0, then refit_swept(V0, V1)).
/// A static mesh passes the same Points3 as V0 and V1 (the queries then also cull by its planes).
struct MovingMesh {
  const Points3& V0;
  const Points3& V1;
  const Triangles& F;
  const MeshTopology& topo;
  const Bvh<Aabb>& swept_bvh;
  const NodeContours* contours = nullptr;  ///< of swept_bvh, for the self query's culling (optional)
};

struct VertexFaceImpact {
  int vertex = 0;
  int triangle = 0;
  Impact impact;
  bool operator<(const VertexFaceImpact& o) const {
    return vertex < o.vertex || (vertex == o.vertex && triangle < o.triangle);
  }
};
struct EdgeEdgeImpact {
  int edge_a = 0;
  int edge_b = 0;
  Impact impact;
  bool operator<(const EdgeEdgeImpact& o) const {
    return edge_a < o.edge_a || (edge_a == o.edge_a && edge_b < o.edge_b);
  }
};
struct ContinuousResult {
  std::vector<VertexFaceImpact> vertex_face;  ///< vertices of A against faces of B (self: the one list)
  std::vector<VertexFaceImpact> face_vertex;  ///< vertices of B against faces of A (empty for self)
  std::vector<EdgeEdgeImpact> edge_edge;
};

/// Every vertex–face and edge–edge pair that comes within eta during the motion, with its
/// time of impact [Bridson, Fedkiw & Anderson 2002].
ContinuousResult continuous_collisions(const MovingMesh& A, const MovingMesh& B, double eta = 1e-9);
ContinuousResult continuous_collisions(const MovingMesh& A, const MovingMesh& B, double eta, LeafPairCache& cache);
/// Self: regions that cannot touch themselves during the motion (normal cones and contours over
/// the motion, see swept_cone_axis) are skipped unless `normal_cones` is false. What they skip is
/// only pairs that come within eta without ever touching.
ContinuousResult continuous_self_collisions(const MovingMesh& M, double eta = 1e-9, bool normal_cones = true);

/// Swept refit: every leaf bounds its triangles at both V0 and V1, internal nodes are merged.
void refit_swept(Bvh<Aabb>& bvh, ConstRef<Points3> V0, ConstRef<Points3> V1, ConstRef<Triangles> F);

}  // namespace tryon::collision
