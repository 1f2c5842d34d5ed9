// Steps 2 and 2b of Contact::resolve: self repulsion and untangling (see cloth/contact.hpp).
#include "cloth/contact_impl.hpp"

namespace tryon::cloth {

namespace {

// A constraint (Σ w_i x_i)·n ≥ h over up to four particles p with weights w, h = thickness:
// the particles move apart to it and their approaching velocity along n is removed, weighted
// by inverse mass. Returns false when none of them can move.
bool separate(const ClothModel& model, double thickness, const int* p, const double* w, int count, const Vec3& nrm,
              double dist, Points3& x_new, Points3& v_new) {
  double denom = 0;
  for (int k = 0; k < count; ++k) denom += w[k] * w[k] * model.inv_mass[p[k]];
  if (denom <= 0) return false;
  const double lambda = (thickness - dist) / denom;
  double vrel = 0;
  for (int k = 0; k < count; ++k) vrel += w[k] * v_new.row(p[k]).dot(nrm);
  const double impulse = vrel < 0 ? -vrel / denom : 0.0;
  for (int k = 0; k < count; ++k) {
    const double im = model.inv_mass[p[k]] * w[k];
    x_new.row(p[k]) += (lambda * im) * nrm.transpose();
    v_new.row(p[k]) += (impulse * im) * nrm.transpose();
  }
  return true;
}

}  // namespace

void Contact::Impl::repel_self(const ClothModel& model, Points3& x_new, Points3& v_new, ContactStats& stats) {
  // 2. Self repulsion: inelastic, position and velocity, weighted by inverse mass.
  //    The pairs within twice self_thickness are found once; each sweep takes those of them
  //    closer than self_thickness now (a pair the sweeps brought from farther waits for the
  //    next step, and the fail-safe keeps it from crossing meanwhile).
  const ContactSettings& s = settings;
  if (!s.self_collision) return;
  cloth_bvh.refit(x_new, cloth_F);
  const collision::ProximityMesh cloth{x_new, cloth_F, cloth_topo, cloth_bvh, &contours};
  const collision::ProximityResult candidates = collision::self_proximity(cloth, 2 * s.self_thickness);
  for (int sweep = 0; sweep < s.self_sweeps; ++sweep) {
    const collision::ProximityResult prox = collision::self_proximity_among(cloth, candidates, s.self_thickness);
    if (prox.vertex_triangle.empty() && prox.edge_edge.empty()) break;
    for (const auto& h : prox.vertex_triangle) {
      const int p[4] = {h.vertex, cloth_F(h.triangle, 0), cloth_F(h.triangle, 1), cloth_F(h.triangle, 2)};
      if (across_seam({p[0]}, {p[1], p[2], p[3]})) continue;
      if (tangled_pair({p[0]}, {p[1], p[2], p[3]})) continue;
      const double w[4] = {1.0, -h.bary[0], -h.bary[1], -h.bary[2]};
      if (separate(model, s.self_thickness, p, w, 4, h.normal, h.distance, x_new, v_new)) ++stats.self_contacts;
    }
    for (const auto& h : prox.edge_edge) {
      const int p[4] = {cloth_topo.edges(h.edge_a, 0), cloth_topo.edges(h.edge_a, 1), cloth_topo.edges(h.edge_b, 0),
                        cloth_topo.edges(h.edge_b, 1)};
      if (across_seam({p[0], p[1]}, {p[2], p[3]})) continue;
      if (tangled_pair({p[0], p[1]}, {p[2], p[3]})) continue;
      const double w[4] = {1 - h.s, h.s, -(1 - h.t), -h.t};
      if (separate(model, s.self_thickness, p, w, 4, h.normal, h.distance, x_new, v_new)) ++stats.self_contacts;
    }
  }
}

void Contact::Impl::move_tangled(const ClothModel& model, Points3& x_new) const {
  // 2b. Untangling: cloth in a self intersection at the frame's start moves by untangle_step
  //     along its direction of intersection contour minimization [Volino & Magnenat-Thalmann
  //     2006] (collision::untangling_directions); the fail-safe lets it pass (see begin_frame).
  const ContactSettings& s = settings;
  if (s.self_collision && s.untangle_step > 0)
    for (int i = 0; i < model.num_particles(); ++i)
      if (tangled[i] && movable(model, i)) x_new.row(i) += s.untangle_step * untangle.row(i);
}

}  // namespace tryon::cloth
