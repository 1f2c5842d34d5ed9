#pragma once
// Internal to the contact stage (cloth/contact*.cpp): the state of a Contact and the steps of
// Contact::resolve, one function each (see the step list at the top of cloth/contact.hpp).
//   contact.cpp           the public interface, begin_frame, push_out; resolve, the speed
//                         guard, sewing (step 0) and strain limiting on the body (1b)
//   contact_body.cpp      body proximity (step 1) and the penalty contacts' depths
//   contact_self.cpp      self repulsion (step 2) and untangling (2b)
//   contact_failsafe.cpp  the continuous-collision fail-safe (step 3)
#include <functional>
#include <initializer_list>
#include <utility>
#include <vector>

#include "cloth/contact.hpp"
#include "collision/geometry.hpp"
#include "collision/proximity.hpp"
#include "collision/surface_queries.hpp"
#include "collision/untangle.hpp"

namespace tryon::cloth {

// Whether particle i moves (pinned particles have zero inverse mass).
inline bool movable(const ClothModel& model, int i) { return model.inv_mass[i] > 0; }

struct Contact::Impl {
  ContactSettings settings;
  double seam_close_distance = 0;  // see Contact::set_seam_close_distance
  // Body: static, its tree built once.
  Points3 body_V;
  Triangles body_F;
  collision::MeshTopology body_topo;
  collision::Bvh<collision::Aabb> body_bvh;
  Points3 face_normal;    // |F_b|×3 unit outward
  Points3 vertex_normal;  // |V_b|×3 angle-weighted pseudo-normals [Bærentzen & Aanæs 2005]
  Points3 edge_normal;    // |E_b|×3 mean of the two face normals
  // Growth: body_V = body_full + (1 − growth) · body_inset (see Contact::shrink_body).
  Points3 body_full, body_inset;
  double growth = 1;
  // Motion (see Contact::set_body_motion): the pose at a time, the body at the step's start
  // (body_V is at its end), its vertices' velocities over the step (empty: the body stands
  // still), a swept tree over the step, its largest displacement and speed in the step.
  std::function<Points3(double)> body_pose;
  Points3 body_start, body_velocity;
  collision::Bvh<collision::Aabb> body_swept_bvh;
  double body_step_max = 0, body_speed_max = 0;
  bool body_moving() const { return body_velocity.rows() > 0; }
  // The body's velocity at a point of triangle t with weights `bary`, of vertex v, along edge e
  // at (1 − s) a + s b (zero when the body stands still).
  Vec3 body_velocity_at(int t, const Vec3& bary) const {
    if (!body_moving()) return Vec3::Zero();
    Vec3 v = Vec3::Zero();
    for (int k = 0; k < 3; ++k) v += bary[k] * body_velocity.row(body_F(t, k)).transpose();
    return v;
  }
  Vec3 body_vertex_velocity(int v) const { return body_moving() ? Vec3(body_velocity.row(v)) : Vec3::Zero(); }
  Vec3 body_edge_velocity(int e, double s) const {
    if (!body_moving()) return Vec3::Zero();
    return (1 - s) * body_velocity.row(body_topo.edges(e, 0)).transpose() + s * body_velocity.row(body_topo.edges(e, 1)).transpose();
  }
  // Cloth: one tree refitted every step, one swept tree for the continuous tests.
  Triangles cloth_F;
  collision::MeshTopology cloth_topo;
  collision::Bvh<collision::Aabb> cloth_bvh, swept_bvh;
  // The contour of each tree node's region, for the self queries' culling: one for both trees,
  // which are copies of one build (refits keep the structure).
  collision::NodeContours contours;
  // The pairs of cloth and body leaves of the body queries, remembered between steps (cleared
  // when the body changes): proximity (cloth_bvh) and continuous (swept_bvh).
  collision::LeafPairCache body_pairs{1e-3}, body_swept_pairs{1e-3};
  // Sewing.
  Segments seams;                         // |S|×2 particle pairs
  std::vector<char> seam_closed;          // |S|
  Segments closed_pairs;                  // the rows of `seams` closed so far
  // Body contacts of the current step (cloth vertex near a body triangle): outward normal,
  // zero rows for the particles not in contact (the integrator's resting contacts).
  std::vector<char> in_contact;
  std::vector<char> was_in_contact;  // in_contact of the step before
  Points3 contact_normal, x_before_limit;
  Points3 contact_body_velocity;  // the body's velocity under each particle in contact (moving body)
  Points3 push;  // per particle: the push out of the body's vertices (step 1)
  Points3 push_velocity;  // per particle: the velocity of the body vertex that pushed it (moving body)
  Eigen::VectorXd reach_extra;  // per particle: how much farther than `thickness` it looks (step 1)
  // Penalty contacts (settings.body_stiffness > 0): found in step 1, each with its point on
  // the body (anchor); their depths are measured at the end of resolve.
  std::vector<std::pair<PenaltyContact, Vec3>> pending;
  PenaltyContacts penalty;
  // Per particle: its seam group, the particles joined to it by a chain of seam pairs (where
  // three panels meet, two corners sewn to a third one coincide without being sewn directly).
  std::vector<int> seam_group;
  std::vector<char> tangled;               // per particle: in a cloth self-intersection at frame start
  Points3 untangle;                        // per particle: its direction of untangling (see begin_frame)
  int crossings = 0;                       // edges through triangles found by begin_frame
  // Whether cloth may have crossed itself since the last search for crossings (see
  // ContactSettings::crossing_check_interval), and the frames begun since that search.
  bool may_have_crossed = true;
  int frames_unsearched = 0;
  // A body part some particles ignore (see Contact::ignore_body_part): per body vertex, face and
  // edge whether it is in the part, per particle whether it ignores the part.
  std::vector<char> part_vertex, part_face, part_edge, ignores_part;
  bool part_ignored = false;

  Impl(const TriMesh& body, const ClothModel& model, const ContactSettings& s, const Segments& seam_pairs);

  // Face normals, angle-weighted vertex pseudo-normals and edge normals of the body as it is now.
  void compute_body_normals();

  // --- The steps of Contact::resolve, in the order it runs them. ---

  // Speed guard: particles faster than max_speed are slowed to it, x_new = x_prev + dt v_new.
  void slow_down(const ClothModel& model, ConstRef<Points3> x_prev, Points3& x_new, Points3& v_new,
                 double dt) const;
  // 0. Sewing: closes the seam pairs now closer than `close_within` (in a step: sew_distance)
  //    and holds the closed ones together.
  void hold_sewn_pairs(const ClothModel& model, Points3& x_new, Points3& v_new, double close_within);
  // 1. Body proximity (contact_body.cpp): projected contacts, or penalty contacts (pending)
  //    with only cloth closer than body_floor projected; marks in_contact and contact_normal.
  void body_proximity(const ClothModel& model, ConstRef<Points3> x_prev, Points3& x_new, Points3& v_new,
                      ContactStats& stats);
  //    Its parts: cloth vertices near body triangles, body vertices poking into cloth triangles,
  //    cloth edges near body edges (penalty contacts only).
  void project_cloth_vertices(const ClothModel& model, const collision::ProximityResult& prox, Points3& x_new,
                              Points3& v_new, ContactStats& stats);
  void push_by_body_vertices(const ClothModel& model, const collision::ProximityResult& prox, Points3& x_new,
                             Points3& v_new);
  void collect_edge_penalties(const collision::ProximityResult& prox);
  //    The resting figures of ContactStats from in_contact and was_in_contact.
  void count_resting(ContactStats& stats) const;
  // 1b. Strain limiting with the body contacts as constraints.
  void limit_strain_on_body(const ClothModel& model, Points3& x_new, Points3& v_new, double dt);
  // 2. Self repulsion (contact_self.cpp).
  void repel_self(const ClothModel& model, Points3& x_new, Points3& v_new, ContactStats& stats);
  // 2b. Untangling: tangled cloth moves untangle_step along its direction of untangling.
  void move_tangled(const ClothModel& model, Points3& x_new) const;
  // 3. The fail-safe (contact_failsafe.cpp). Returns false when its rounds ran out.
  bool fail_safe(const ClothModel& model, ConstRef<Points3> x_prev, Points3& x_new, Points3& v_new, double dt,
                 ContactStats& stats);
  // The penalty contacts' depths where the step ends (contact_body.cpp).
  void measure_penalty_depths(const Points3& x_new);

  // The state of one step's fail-safe and its parts (contact_failsafe.cpp).
  struct FailSafe;

  // --- Helpers. ---

  // Whether the part filter drops a contact between particles `ps` (all of them ignore the
  // part) and a body element in the part.
  bool ignored(std::initializer_list<int> ps, bool body_in_part) const {
    if (!part_ignored || !body_in_part) return false;
    for (int p : ps)
      if (!ignores_part[p]) return false;
    return true;
  }
  // Drops the body contacts the part filter ignores from a proximity or continuous result
  // (A = cloth, B = body): cloth vertices against body faces, cloth faces against body
  // vertices, cloth edges against body edges.
  template <class Result, class VertexHit, class EdgeHit>
  void drop_ignored(Result& r, std::vector<VertexHit> Result::*cloth_vertex, std::vector<VertexHit> Result::*body_vertex,
                    std::vector<EdgeHit> Result::*edges) const {
    if (!part_ignored) return;
    std::erase_if(r.*cloth_vertex, [&](const auto& h) { return ignored({h.vertex}, part_face[h.triangle]); });
    std::erase_if(r.*body_vertex, [&](const auto& h) {
      return ignored({cloth_F(h.triangle, 0), cloth_F(h.triangle, 1), cloth_F(h.triangle, 2)}, part_vertex[h.vertex]);
    });
    std::erase_if(r.*edges, [&](const auto& h) {
      return ignored({cloth_topo.edges(h.edge_a, 0), cloth_topo.edges(h.edge_a, 1)}, part_edge[h.edge_b]);
    });
  }
  void filter(collision::ProximityResult& r) const {
    using R = collision::ProximityResult;
    drop_ignored(r, &R::vertex_triangle, &R::triangle_vertex, &R::edge_edge);
  }
  void filter(collision::ContinuousResult& r) const {
    using R = collision::ContinuousResult;
    drop_ignored(r, &R::vertex_face, &R::face_vertex, &R::edge_edge);
  }

  // Whether particles a and b are sewn together, directly or through other seam pairs (or are
  // the same particle).
  bool sewn(int a, int b) const { return seam_group[a] == seam_group[b]; }
  // Whether any particle of `p` is sewn to any of `q`: such pairs meet by design at a seam.
  bool across_seam(std::initializer_list<int> p, std::initializer_list<int> q) const {
    if (seams.rows() == 0) return false;
    for (int a : p)
      for (int b : q)
        if (sewn(a, b)) return true;
    return false;
  }

  // The cloth's edges through its triangles at positions x (the cloth's tree refitted to x),
  // but those that meet at a seam by design.
  std::vector<collision::EdgeThroughTriangle> cloth_crossings(ConstRef<Points3> x);
  // Flags the particles of a crossing: its edge's two ends and its triangle's three corners.
  void flag_particles(const collision::EdgeThroughTriangle& h, std::vector<char>& flags) const {
    flags[cloth_topo.edges(h.edge, 0)] = flags[cloth_topo.edges(h.edge, 1)] = 1;
    for (int k = 0; k < 3; ++k) flags[cloth_F(h.triangle, k)] = 1;
  }

  // Whether both sides of a cloth pair, particles `p` and particles `q`, are in a self
  // intersection (see begin_frame): near its contour, where the sheets have crossed, the
  // repulsion would hold each on the side it crossed to. It is left to the untangling.
  bool tangled_pair(std::initializer_list<int> p, std::initializer_list<int> q) const {
    return any_tangled(p) && any_tangled(q);
  }
  bool any_tangled(std::initializer_list<int> ps) const {
    for (int i : ps)
      if (tangled[i]) return true;
    return false;
  }

  // Outward normal at a closest point of body triangle t with weights `bary`: the face's normal
  // inside the face, the edge's or the vertex's pseudo-normal on its border, so that the sign of
  // (x − point)·n tells inside from outside on a closed body [Bærentzen & Aanæs 2005].
  Vec3 body_normal_at(int t, const Vec3& bary) const {
    constexpr double eps = 1e-9;
    const int nonzero = (bary[0] > eps) + (bary[1] > eps) + (bary[2] > eps);
    if (nonzero == 3) return face_normal.row(t);
    if (nonzero == 1) {
      const int k = bary[0] > eps ? 0 : bary[1] > eps ? 1 : 2;
      return vertex_normal.row(body_F(t, k));
    }
    const int k = bary[2] <= eps ? 0 : bary[0] <= eps ? 1 : 2;  // the edge opposite the zero weight
    return edge_normal.row(body_topo.triangle_edges(t, k));
  }
};

}  // namespace tryon::cloth
