// Step 1 of Contact::resolve, body proximity, and the penalty contacts' depths at the step's end
// (see cloth/contact.hpp).
#include <algorithm>
#include <cstddef>
#include <vector>

#include "cloth/contact_impl.hpp"

namespace tryon::cloth {

namespace {

// Removes the approaching normal velocity relative to the body (whose velocity there is
// `body`) and applies Coulomb friction to the relative tangential part [Bridson, Fedkiw &
// Anderson 2002, §7.2]: |Δv_t| ≤ μ |Δv_n|.
void contact_velocity(Eigen::Ref<Eigen::RowVector3d> v, const Vec3& n, double mu, const Vec3& body = Vec3::Zero()) {
  const Vec3 vel = v.transpose() - body;
  const double vn = vel.dot(n);
  if (vn >= 0) return;
  Vec3 vt = vel - vn * n;
  const double t = vt.norm();
  if (t > 0) vt *= std::max(0.0, 1.0 - mu * (-vn) / t);
  v = (body + vt).transpose();
}

// Index of the closest hit of each key in `hits`, which come sorted by key (the first of equally
// close ones): `key` picks the element a hit is grouped by (a vertex, a cloth edge).
template <class Hit, class Key>
std::vector<std::size_t> closest_per(const std::vector<Hit>& hits, Key key) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < hits.size();) {
    std::size_t best = k;
    const int group = key(hits[k]);
    for (; k < hits.size() && key(hits[k]) == group; ++k)
      if (hits[k].distance < hits[best].distance) best = k;
    out.push_back(best);
  }
  return out;
}

std::vector<std::size_t> closest_per_vertex(const std::vector<collision::VertexTriangleHit>& hits) {
  return closest_per(hits, [](const collision::VertexTriangleHit& h) { return h.vertex; });
}

}  // namespace

void Contact::Impl::body_proximity(const ClothModel& model, ConstRef<Points3> x_prev, Points3& x_new,
                                   Points3& v_new, ContactStats& stats) {
  const ContactSettings& s = settings;
  const int n = model.num_particles();
  // 1. Body proximity.
  const bool with_penalty = s.body_stiffness > 0;
  pending.clear();
  was_in_contact.swap(in_contact);
  in_contact.assign(n, 0);
  contact_normal.setZero(n, 3);
  if (body_moving()) contact_body_velocity.setZero(n, 3);
  // In the drape, each cloth vertex looks `thickness` plus its own displacement in this step far
  // (at most 5 cm), so one that got into the body in this step is found from inside. With one
  // reach for all, the largest displacement of the step (6.4 mm on average in the shirt's drape
  // at 3 cm, against 1.3 mm for the mean particle) sent every vertex that far. While sewing
  // (projected contacts), every vertex still looks that far, because the sewing relies on what
  // the far reach finds: cloth beside a ridge of the body (its closest point on a convex body
  // edge, e.g. 7 mm away, but only 2 mm along the edge's normal) is found, counted as closer
  // than `thickness`, and put at `thickness` from the ridge, pulled onto the body. With their
  // own reach such vertices were left where they were, and the hoody on makehuman_female at
  // 2.98 cm sewed 3× as long and ended at strain max 31.5 % instead of 4.0 %; the shirt there
  // at 3.05 cm closed 137 of 139 seam pairs. That pull depends on the fastest particle's speed:
  // a quirk the sewing is tuned with, not a rule (see the issue note).
  reach_extra = (x_new - x_prev).rowwise().norm().cwiseMin(0.05);
  if (!with_penalty) reach_extra.setConstant(reach_extra.maxCoeff());
  // A moving body reaches cloth as far as it moved in the step.
  if (body_moving()) reach_extra = (reach_extra.array() + body_step_max).cwiseMin(0.05).matrix();
  collision::refit_inflated(cloth_bvh, x_new, cloth_F, reach_extra);
  const collision::ProximityMesh cloth{x_new, cloth_F, cloth_topo, cloth_bvh};
  const collision::ProximityMesh body{body_V, body_F, body_topo, body_bvh};
  // Far for the cloth's vertices, `thickness` for the body's and, with penalties, for edges
  // (only those nearer are used below).
  collision::ProximityResult prox = collision::proximity(
      cloth, body,
      collision::ProximityReach{s.thickness, s.thickness, with_penalty ? s.thickness : 0.0, &reach_extra},
      body_pairs);
  filter(prox);
  project_cloth_vertices(model, prox, x_new, v_new, stats);
  push_by_body_vertices(model, prox, x_new, v_new);
  if (with_penalty) collect_edge_penalties(prox);
  // Without penalties (sewing), body edges against cloth edges are left to the continuous
  // fail-safe below: pushing cloth edges off every body edge closer than the thickness
  // (nearly parallel edges give ill-defined closest points) held sewing seams open (measured:
  // skirt_2_panels at 3 cm, 19-21 of 48 seam pairs closed with it, 46 of 48 without, and no
  // intersection either way).
}

void Contact::Impl::project_cloth_vertices(const ClothModel& model, const collision::ProximityResult& prox,
                                           Points3& x_new, Points3& v_new, ContactStats& stats) {
  const ContactSettings& s = settings;
  const bool with_penalty = s.body_stiffness > 0;
  // Cloth vertices near body triangles: the closest hit per vertex decides.
  for (const std::size_t best : closest_per_vertex(prox.vertex_triangle)) {
    const auto& h = prox.vertex_triangle[best];
    const int v = h.vertex;
    if (!movable(model, v)) continue;
    const Vec3 x = x_new.row(v);
    const Vec3 nrm = body_normal_at(h.triangle, h.bary);
    const double signed_dist = (x - h.point).dot(nrm);
    if (signed_dist >= s.thickness) continue;
    const Vec3 dir = (signed_dist > 1e-12 && h.distance > 1e-12) ? Vec3((x - h.point) / h.distance) : nrm;
    if (!with_penalty || signed_dist < s.body_floor) {
      x_new.row(v) = (h.point + (with_penalty ? s.body_floor : s.thickness) * dir).transpose();
      contact_velocity(v_new.row(v), dir, s.friction, body_velocity_at(h.triangle, h.bary));
    }
    if (with_penalty)
      pending.push_back(
          {PenaltyContact{{v, -1, -1}, Vec3(1, 0, 0), dir, 0, body_velocity_at(h.triangle, h.bary)}, h.point});
    in_contact[v] = 1;
    contact_normal.row(v) = dir.transpose();
    if (body_moving()) contact_body_velocity.row(v) = body_velocity_at(h.triangle, h.bary).transpose();
    ++stats.body_contacts;
  }
}

void Contact::Impl::push_by_body_vertices(const ClothModel& model, const collision::ProximityResult& prox,
                                          Points3& x_new, Points3& v_new) {
  const ContactSettings& s = settings;
  const bool with_penalty = s.body_stiffness > 0;
  const int n = model.num_particles();
  // Body vertices poking into cloth triangles: push the triangle out along the body normal.
  // Only pairs closer than the thickness: the sign test is trustworthy only that close.
  // Every hit asks its triangle's corners to move; a corner takes the largest push asked of
  // it, not the sum: a cloth triangle lies over several body vertices and a cloth vertex is
  // a corner of about six triangles, and summed, the pushes moved cloth vertices up to 11 cm
  // in one step (skirt_2_panels on mean_female at 3 cm), which the strain limiter turned into
  // metres per second of jitter. A pushed vertex counts as resting on the body, as one found
  // near a body triangle above does, so that neither the strain limiting of step 1b nor the
  // integrator's contact filter in the next step pulls it back in.
  push.setZero(n, 3);
  if (body_moving()) push_velocity.setZero(n, 3);
  // As penalty forces, one contact per body vertex, with its closest cloth triangle. A body
  // vertex is within `thickness` of every cloth triangle around the one it lies under, and
  // summed, its push changed by whole multiples as the cloth slid over it (the slim tank on
  // makehuman_female at 3 cm: 8.6 % moving at frame 600 with every hit, 7.8 % with the
  // closest).
  std::vector<char> counted(prox.triangle_vertex.size(), !with_penalty);
  if (with_penalty)
    for (const std::size_t best : closest_per_vertex(prox.triangle_vertex)) counted[best] = 1;
  for (std::size_t k = 0; k < prox.triangle_vertex.size(); ++k) {
    const auto& h = prox.triangle_vertex[k];
    if (h.distance >= s.thickness || !counted[k]) continue;
    const Vec3 nrm = vertex_normal.row(h.vertex);
    const double signed_dist = (h.point - Vec3(body_V.row(h.vertex))).dot(nrm);
    if (signed_dist >= s.thickness) continue;
    if (with_penalty) {
      PenaltyContact c{{cloth_F(h.triangle, 0), cloth_F(h.triangle, 1), cloth_F(h.triangle, 2)}, h.bary, nrm, 0,
                       body_vertex_velocity(h.vertex)};
      for (int k = 0; k < 3; ++k) {
        const int p = c.particle[k];
        if (h.bary[k] > 0 && !in_contact[p]) {
          in_contact[p] = 1;
          contact_normal.row(p) = nrm.transpose();
          if (body_moving()) contact_body_velocity.row(p) = body_velocity.row(h.vertex);
        }
      }
      pending.push_back({c, Vec3(body_V.row(h.vertex))});
      if (signed_dist >= s.body_floor) continue;
    }
    const double delta = (with_penalty ? s.body_floor : s.thickness) - signed_dist;
    const double w2 = h.bary.squaredNorm();
    for (int k = 0; k < 3; ++k) {
      const int p = cloth_F(h.triangle, k);
      if (!movable(model, p) || h.bary[k] <= 0) continue;
      const Vec3 push_p = (h.bary[k] * delta / w2) * nrm;
      if (push_p.squaredNorm() > push.row(p).squaredNorm()) {
        push.row(p) = push_p.transpose();
        if (body_moving()) push_velocity.row(p) = body_velocity.row(h.vertex);
      }
    }
  }
  for (int p = 0; p < n; ++p) {
    const double len = push.row(p).norm();
    if (len == 0) continue;
    const Vec3 dir = push.row(p).transpose() / len;
    x_new.row(p) += push.row(p);
    contact_velocity(v_new.row(p), dir, s.friction, body_moving() ? Vec3(push_velocity.row(p)) : Vec3::Zero());
    if (!in_contact[p]) {
      in_contact[p] = 1;
      contact_normal.row(p) = dir.transpose();
      if (body_moving()) contact_body_velocity.row(p) = push_velocity.row(p);
    }
  }
}

void Contact::Impl::collect_edge_penalties(const collision::ProximityResult& prox) {
  const ContactSettings& s = settings;
  // Cloth edges near body edges, as penalty forces only: one contact per cloth edge, with its
  // closest body edge, on the edge's two particles at the closest point. A cloth edge lying
  // across a convex body edge (a ridge of the mesh) is held by no vertex contact: its ends are
  // off the body, its middle is not. The continuous fail-safe then sent its ends back in
  // every step the cloth's tension pulled it onto the ridge, and the edges beside it stayed
  // over-stretched, held there (the hoody on mean_all at 3 cm: two armhole edges 12-14 %
  // long, sent back every step). The shirt, hoody and dress specs on both bodies at 2.95, 2.98,
  // 3.02 and 3.05 cm: strain max over 10 % in 2 of the 23 clean drapes instead of 11 of 22.
  // During sewing (projected contacts) cloth edges are left to the fail-safe.
  for (const std::size_t best :
       closest_per(prox.edge_edge, [](const collision::EdgeEdgeHit& h) { return h.edge_a; })) {
    const auto& h = prox.edge_edge[best];
    const int e = h.edge_a;
    if (h.distance >= s.thickness || h.distance < 1e-9) continue;        // at 0 the normal is undefined
    if (h.normal.dot(Vec3(edge_normal.row(h.edge_b))) <= 0) continue;  // on the body edge's inner side
    const int a = cloth_topo.edges(e, 0), b = cloth_topo.edges(e, 1);
    pending.push_back(
        {PenaltyContact{{a, b, -1}, Vec3(1 - h.s, h.s, 0), h.normal, 0, body_edge_velocity(h.edge_b, h.t)}, h.point_b});
  }
}

void Contact::Impl::count_resting(ContactStats& stats) const {
  for (std::size_t i = 0; i < in_contact.size(); ++i) {
    if (!in_contact[i]) continue;
    ++stats.resting;
    if (i < was_in_contact.size() && was_in_contact[i]) ++stats.resting_kept;
  }
}

void Contact::Impl::measure_penalty_depths(const Points3& x_new) {
  // The penalty contacts' depths where the step ends (the fail-safe may have moved them).
  const ContactSettings& s = settings;
  penalty.stiffness = s.body_stiffness;
  penalty.friction = s.friction;
  penalty.list.clear();
  for (auto& [c, anchor] : pending) {
    Vec3 x = Vec3::Zero();
    for (int k = 0; k < 3; ++k)
      if (c.particle[k] >= 0) x += c.weight[k] * x_new.row(c.particle[k]).transpose();
    c.depth = s.thickness - (x - anchor).dot(c.normal);
    if (c.depth > 0) penalty.list.push_back(c);
  }
}

}  // namespace tryon::cloth
