#include "cloth/contact.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <stdexcept>
#include <utility>

#include "cloth/contact_impl.hpp"
#include "cloth/strain_limit.hpp"
#include "collision/untangle.hpp"
#include "core/parallel.hpp"

namespace tryon::cloth {

Contact::Impl::Impl(const TriMesh& body, const ClothModel& model, const ContactSettings& s,
                    const Segments& seam_pairs)
    : settings(s), body_V(body.V), body_F(body.F), seams(seam_pairs) {
  body_topo = collision::MeshTopology::build(body_F, static_cast<int>(body_V.rows()));
  body_bvh.build(body_V, body_F);
  body_full = body_V;
  body_inset = Points3::Zero(body_V.rows(), 3);
  compute_body_normals();
  seam_closed.assign(seams.rows(), 0);
  seam_group.resize(model.num_particles());
  for (int i = 0; i < model.num_particles(); ++i) seam_group[i] = i;
  auto root = [&](int i) {
    while (seam_group[i] != i) i = seam_group[i] = seam_group[seam_group[i]];
    return i;
  };
  for (Eigen::Index i = 0; i < seams.rows(); ++i) {
    const int a = root(seams(i, 0)), b = root(seams(i, 1));
    if (a != b) seam_group[std::max(a, b)] = std::min(a, b);
  }
  for (int i = 0; i < model.num_particles(); ++i) seam_group[i] = root(i);
  tangled.assign(model.num_particles(), 0);
  untangle = Points3::Zero(model.num_particles(), 3);
  cloth_F = model.F;
  cloth_topo = collision::MeshTopology::build(cloth_F, model.num_particles());
  cloth_bvh.build(model.x, cloth_F);
  swept_bvh = cloth_bvh;
  contours = collision::NodeContours(cloth_bvh, cloth_F, cloth_topo);
}

void Contact::Impl::compute_body_normals() {
  face_normal = triangle_normals(body_V, body_F);
  // The corners' angles in parallel (a moving body finds its normals every step), summed in
  // one order: the same normals on any thread count.
  Points3 angle(body_F.rows(), 3);
  parallel_for(static_cast<std::size_t>(body_F.rows()), [&](std::size_t f) {
    for (int k = 0; k < 3; ++k) {
      const Vec3 p = body_V.row(body_F(f, k));
      const Vec3 a = Vec3(body_V.row(body_F(f, (k + 1) % 3))) - p, b = Vec3(body_V.row(body_F(f, (k + 2) % 3))) - p;
      angle(f, k) = std::atan2(a.cross(b).norm(), a.dot(b));
    }
  });
  vertex_normal = Points3::Zero(body_V.rows(), 3);
  for (Eigen::Index f = 0; f < body_F.rows(); ++f)
    for (int k = 0; k < 3; ++k) vertex_normal.row(body_F(f, k)) += angle(f, k) * face_normal.row(f);
  vertex_normal.rowwise().normalize();
  edge_normal = Points3::Zero(body_topo.edges.rows(), 3);
  for (Eigen::Index f = 0; f < body_F.rows(); ++f)
    for (int k = 0; k < 3; ++k) edge_normal.row(body_topo.triangle_edges(f, k)) += face_normal.row(f);
  edge_normal.rowwise().normalize();
}

Contact::Contact(const TriMesh& body, const ClothModel& model, const ContactSettings& settings,
                 const Segments& seams)
    : impl_(std::make_unique<Impl>(body, model, settings, seams)) {}

double Contact::seam_gap(ConstRef<Points3> x) const {
  double gap = 0;
  for (Eigen::Index i = 0; i < impl_->seams.rows(); ++i)
    gap = std::max(gap, (x.row(impl_->seams(i, 0)) - x.row(impl_->seams(i, 1))).norm());
  return gap;
}

void Contact::ignore_body_part(const std::vector<char>& part_vertex, const std::vector<char>& ignores) {
  Impl& m = *impl_;
  if (part_vertex.size() != static_cast<std::size_t>(m.body_V.rows()) || ignores.size() != m.tangled.size())
    throw std::invalid_argument("ignore_body_part: one flag per body vertex and per particle");
  m.part_vertex = part_vertex;
  m.part_face.assign(m.body_F.rows(), 0);
  for (Eigen::Index f = 0; f < m.body_F.rows(); ++f)
    m.part_face[f] = part_vertex[m.body_F(f, 0)] && part_vertex[m.body_F(f, 1)] && part_vertex[m.body_F(f, 2)];
  m.part_edge.assign(m.body_topo.edges.rows(), 0);
  for (Eigen::Index e = 0; e < m.body_topo.edges.rows(); ++e)
    m.part_edge[e] = part_vertex[m.body_topo.edges(e, 0)] && part_vertex[m.body_topo.edges(e, 1)];
  m.ignores_part = ignores;
  m.part_ignored = true;
}

int Contact::collide_with_part_where_clear(const ClothModel& model, const std::vector<char>& keep_ignoring) {
  Impl& m = *impl_;
  if (m.ignores_part.empty()) return 0;
  // Not clear: inside the body, on an edge through it, or next to such a particle.
  const std::vector<double> w = collision::winding_numbers(model.x, m.body_V, m.body_F, m.body_bvh);
  std::vector<char> caught(model.num_particles(), 0);
  for (int i = 0; i < model.num_particles(); ++i) caught[i] = w[i] >= 0.5;
  const Segments& E = m.cloth_topo.edges;
  for (Eigen::Index e = 0; e < E.rows(); ++e) {
    const Vec3 p = model.x.row(E(e, 0)), q = model.x.row(E(e, 1));
    collision::Aabb box;
    box.extend(p);
    box.extend(q);
    collision::for_each_triangle_near(m.body_bvh, box, [&](int f) {
      if (!collision::segment_triangle_intersect(p, q, m.body_V.row(m.body_F(f, 0)), m.body_V.row(m.body_F(f, 1)),
                                                 m.body_V.row(m.body_F(f, 2))))
        return true;
      caught[E(e, 0)] = caught[E(e, 1)] = 1;
      return false;
    });
  }
  std::vector<char> near_caught = caught;
  for (Eigen::Index e = 0; e < E.rows(); ++e)
    if (caught[E(e, 0)] || caught[E(e, 1)]) near_caught[E(e, 0)] = near_caught[E(e, 1)] = 1;
  int count = 0;
  for (int i = 0; i < model.num_particles(); ++i)
    if (m.ignores_part[i] && !near_caught[i] && (keep_ignoring.empty() || !keep_ignoring[i])) {
      m.ignores_part[i] = 0;
      ++count;
    }
  return count;
}

int Contact::move_out_of_part(ClothModel& model, const std::vector<char>& keep_ignoring) {
  Impl& m = *impl_;
  if (m.ignores_part.empty()) return 0;
  const std::vector<double> w = collision::winding_numbers(model.x, m.body_V, m.body_F, m.body_bvh);
  const Points3 before = model.x;
  std::vector<int> moved;
  for (int i = 0; i < model.num_particles(); ++i) {
    if (!m.ignores_part[i] || w[i] < 0.5 || (!keep_ignoring.empty() && keep_ignoring[i]) || !movable(model, i))
      continue;
    const Vec3 x = model.x.row(i);
    const collision::ClosestPoint in = collision::closest_point(x, m.body_V, m.body_F, m.body_bvh);
    if (in.triangle < 0 || !m.part_face[in.triangle]) continue;  // inside, but not in the part
    const collision::ClosestPoint out = collision::closest_point(x, m.body_V, m.body_F, m.body_bvh, m.part_face);
    if (out.triangle < 0) continue;
    model.x.row(i) = (out.point + m.settings.thickness * m.body_normal_at(out.triangle, out.bary)).transpose();
    moved.push_back(i);
  }
  if (moved.empty()) return 0;
  // A particle moved may fold its cloth through other cloth: such moves are taken back, until
  // the moves left make no crossing that was not there before.
  std::set<std::pair<int, int>> crossing_before;
  for (const auto& h : m.cloth_crossings(before)) crossing_before.emplace(h.edge, h.triangle);
  for (bool undone = true; undone && !moved.empty();) {
    std::vector<char> in_new_crossing(model.num_particles(), 0);
    for (const auto& h : m.cloth_crossings(model.x))
      if (!crossing_before.count({h.edge, h.triangle})) m.flag_particles(h, in_new_crossing);
    undone = false;
    for (auto it = moved.begin(); it != moved.end();)
      if (in_new_crossing[*it]) {
        model.x.row(*it) = before.row(*it);
        it = moved.erase(it);
        undone = true;
      } else {
        ++it;
      }
  }
  for (const int i : moved) model.v.row(i).setZero();
  m.cloth_bvh.refit(model.x, m.cloth_F);
  if (!moved.empty()) m.may_have_crossed = true;  // moved without the fail-safe
  return static_cast<int>(moved.size());
}

void Contact::set_body_part_ignored(bool on) { impl_->part_ignored = on && !impl_->ignores_part.empty(); }

void Contact::set_self_collision(bool on) { impl_->settings.self_collision = on; }

void Contact::set_friction(double mu) { impl_->settings.friction = mu; }

void Contact::set_body_stiffness(double stiffness) {
  impl_->settings.body_stiffness = stiffness;
  impl_->penalty.list.clear();
}

void Contact::set_strain_limit_sweeps(int sweeps) { impl_->settings.strain_limit_sweeps = sweeps; }

void Contact::set_seam_close_distance(double distance) {
  impl_->seam_close_distance = distance;
}

void Contact::set_untangle_step(double step) {
  impl_->settings.untangle_step = step;
}

int Contact::crossings() const {
  return impl_->crossings;
}

int Contact::num_seam_pairs() const { return static_cast<int>(impl_->seams.rows()); }

const Segments* Contact::joined_particles() const {
  return impl_->closed_pairs.rows() > 0 ? &impl_->closed_pairs : nullptr;
}

const Points3* Contact::resting_normals() const {
  if (impl_->settings.body_stiffness > 0) return nullptr;
  return impl_->contact_normal.rows() > 0 ? &impl_->contact_normal : nullptr;
}

const Points3* Contact::resting_velocities() const {
  return impl_->body_moving() && impl_->contact_body_velocity.rows() > 0 ? &impl_->contact_body_velocity : nullptr;
}

const PenaltyContacts* Contact::penalty_contacts() const {
  return impl_->settings.body_stiffness > 0 ? &impl_->penalty : nullptr;
}

double Contact::body_friction() const { return impl_->settings.friction; }

int Contact::stitch_pairs_within(const ClothModel& model, Points3& x, double distance) {
  const int before = closed_seam_pairs();
  Points3 v = Points3::Zero(x.rows(), 3);
  impl_->hold_sewn_pairs(model, x, v, std::max(distance, impl_->settings.sew_distance));
  return closed_seam_pairs() - before;
}

int Contact::closed_seam_pairs() const {
  return static_cast<int>(std::count(impl_->seam_closed.begin(), impl_->seam_closed.end(), 1));
}
Contact::~Contact() = default;

double Contact::shrink_body(double max_inset) {
  Impl& m = *impl_;
  m.body_inset.setZero();
  double largest = 0;
  if (max_inset > 0) {
    m.body_V = m.body_full;
    m.body_bvh.refit(m.body_V, m.body_F);
    m.compute_body_normals();
    for (Eigen::Index i = 0; i < m.body_V.rows(); ++i) {
      const Vec3 p = m.body_full.row(i), n = m.vertex_normal.row(i);
      // The body's local thickness along the inward normal: a limb shrinks by at most 40 % of
      // its diameter, so its two sides never pass each other.
      const collision::RayHit hit = collision::first_ray_hit(p, -n, 1e-6, 1.0, m.body_full, m.body_F, m.body_bvh);
      const double d = hit.triangle < 0 ? max_inset : std::min(max_inset, 0.4 * hit.t);
      m.body_inset.row(i) = -d * n.transpose();
      largest = std::max(largest, d);
    }
  }
  set_body_growth(largest > 0 ? 0 : 1);
  return largest;
}

void Contact::set_body_growth(double s) {
  Impl& m = *impl_;
  m.growth = std::clamp(s, 0.0, 1.0);
  m.body_V = m.body_full + (1 - m.growth) * m.body_inset;
  m.body_bvh.refit(m.body_V, m.body_F);
  m.body_pairs.clear();
  m.body_swept_pairs.clear();
  m.compute_body_normals();
}

std::vector<collision::EdgeThroughTriangle> Contact::Impl::cloth_crossings(ConstRef<Points3> x) {
  cloth_bvh.refit(x, cloth_F);
  return collision::edges_through_triangles(x, cloth_F, cloth_topo, cloth_bvh, [&](int e, int f) {
    const int a = cloth_topo.edges(e, 0), b = cloth_topo.edges(e, 1);
    return across_seam({a, b}, {cloth_F(f, 0), cloth_F(f, 1), cloth_F(f, 2)});  // meets at a seam by design
  });
}

double Contact::body_growth() const { return impl_->growth; }

void Contact::begin_frame(const ClothModel& model, double /*time*/) {
  Impl& m = *impl_;
  unsettled_this_frame_ = 0;
  std::fill(m.tangled.begin(), m.tangled.end(), 0);
  m.untangle.setZero();
  m.crossings = 0;
  if (!m.settings.self_collision) return;
  if (!m.may_have_crossed && ++m.frames_unsearched < m.settings.crossing_check_interval) return;
  m.frames_unsearched = 0;
  const auto crossings = m.cloth_crossings(model.x);
  m.crossings = static_cast<int>(crossings.size());
  for (const auto& h : crossings) m.flag_particles(h, m.tangled);
  m.untangle = collision::untangling_directions(model.num_particles(), m.cloth_F, m.cloth_topo, crossings);
  if (m.settings.untangle_regions) {
    // Cloth cut off by a contour lies through the other sheet: all of it moves back through
    // (collision::wrong_side_directions), and is tangled for the repulsion and the fail-safe.
    const Points3 through =
        collision::wrong_side_directions(model.x, m.cloth_F, m.cloth_topo, crossings, m.seam_group);
    for (int i = 0; i < model.num_particles(); ++i)
      if (through.row(i).squaredNorm() > 0) {
        m.untangle.row(i) = through.row(i);
        m.tangled[i] = 1;
      }
  }
  m.may_have_crossed = m.crossings > 0;
}

int Contact::push_out(ClothModel& model) {
  Impl& m = *impl_;
  const std::vector<double> w = collision::winding_numbers(model.x, m.body_V, m.body_F, m.body_bvh);
  int moved = 0;
  for (int i = 0; i < model.num_particles(); ++i) {
    const Vec3 x = model.x.row(i);
    const collision::ClosestPoint c = collision::closest_point(x, m.body_V, m.body_F, m.body_bvh);
    if (c.triangle < 0 || (m.part_ignored && m.ignored({i}, m.part_face[c.triangle]))) continue;
    const Vec3 n = m.body_normal_at(c.triangle, c.bary);
    const bool inside = w[i] >= 0.5;
    if (!inside && c.distance >= m.settings.thickness) continue;
    const Vec3 dir = (!inside && c.distance > 1e-12) ? Vec3((x - c.point) / c.distance) : n;
    model.x.row(i) = (c.point + m.settings.thickness * dir).transpose();
    model.v.row(i).setZero();
    ++moved;
  }
  m.cloth_bvh.refit(model.x, m.cloth_F);
  if (moved > 0) m.may_have_crossed = true;  // moved without the fail-safe
  return moved;
}

void Contact::resolve(const ClothModel& model, ConstRef<Points3> x_prev, Points3& x_new, Points3& v_new, double dt) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& m = *impl_;
  // Without self-collision, nothing keeps the cloth from crossing itself in this step.
  if (!m.settings.self_collision) m.may_have_crossed = true;
  m.slow_down(model, x_prev, x_new, v_new, dt);
  const double close_within = std::max(m.settings.sew_distance, m.seam_close_distance);
  m.hold_sewn_pairs(model, x_new, v_new, close_within);   // 0. sewing
  m.body_proximity(model, x_prev, x_new, v_new, stats_);  // 1. body proximity
  m.count_resting(stats_);
  m.limit_strain_on_body(model, x_new, v_new, dt);        // 1b. strain limiting on the body
  m.repel_self(model, x_new, v_new, stats_);              // 2. self repulsion
  m.move_tangled(model, x_new);                           // 2b. untangling
  if (!m.fail_safe(model, x_prev, x_new, v_new, dt, stats_)) ++unsettled_this_frame_;  // 3. fail-safe
  if (m.settings.body_stiffness > 0) m.measure_penalty_depths(x_new);
  stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void Contact::Impl::slow_down(const ClothModel& model, ConstRef<Points3> x_prev, Points3& x_new, Points3& v_new,
                              double dt) const {
  const ContactSettings& s = settings;
  // Speed guard: x_new = x_prev + dt v_new for the particles slowed down. Cloth a moving body
  // carries may go as fast as the body's fastest point besides.
  const double max_speed = s.max_speed + body_speed_max;
  for (int i = 0; i < model.num_particles(); ++i) {
    if (!movable(model, i)) continue;
    const double speed = v_new.row(i).norm();
    if (speed > max_speed) {
      v_new.row(i) *= max_speed / speed;
      x_new.row(i) = x_prev.row(i) + dt * v_new.row(i);
    }
  }
}

void Contact::Impl::hold_sewn_pairs(const ClothModel& model, Points3& x_new, Points3& v_new, double close_within) {
  // 0. Sewing: the sewing springs pull the pairs together; a pair closer than close_within is
  //    closed for good and held together (mass-weighted position and momentum).
  for (Eigen::Index k = 0; k < seams.rows(); ++k) {
    const int a = seams(k, 0), b = seams(k, 1);
    const Vec3 d = x_new.row(b) - x_new.row(a);
    const double len = d.norm();
    if (len < close_within && !seam_closed[k]) {
      seam_closed[k] = 1;
      closed_pairs.conservativeResize(closed_pairs.rows() + 1, 2);
      closed_pairs.row(closed_pairs.rows() - 1) = seams.row(k);
    }
    const double wa = model.inv_mass[a], wb = model.inv_mass[b];
    // Pairs already coincident keep their own velocities (see the issue note).
    if (!seam_closed[k] || wa + wb <= 0 || len == 0) continue;
    const Vec3 step = d / len * len;  // the whole gap, as unit direction × length
    x_new.row(a) += (step * (wa / (wa + wb))).transpose();
    x_new.row(b) += (-step * (wb / (wa + wb))).transpose();
    const Vec3 v = (v_new.row(a) * (wb / (wa + wb)) + v_new.row(b) * (wa / (wa + wb))).transpose();
    v_new.row(a) = v.transpose();
    v_new.row(b) = v.transpose();
  }
}

void Contact::Impl::limit_strain_on_body(const ClothModel& model, Points3& x_new, Points3& v_new, double dt) {
  // 1b. Strain limiting on the body [Provot 1995, with the contacts as constraints]: the
  //     simulator limited the strain before contact, and the body's push-out can stretch the
  //     cloth again (a band too tight for where it is, pushed outward). Sweeps of the same
  //     projection follow in which a particle held by the body may not move into it (the inward
  //     part of its correction is dropped, friction holds it against the tangential rest), so
  //     such a band slides along the body to where it fits instead of stretching without
  //     limit; closed seam pairs move as one. Velocities change by the same displacement / dt.
  const ContactSettings& s = settings;
  if (s.strain_limit_sweeps > 0 && model.material.strain_limit > 0) {
    x_before_limit = x_new;
    StrainLimitConstraints on_body;
    on_body.joined = &closed_pairs;
    on_body.on_body = &in_contact;
    on_body.body_normal = &contact_normal;
    on_body.friction = s.friction;
    limit_strain(model, model.material.strain_limit, x_new, s.strain_limit_sweeps, 1e-4, on_body);
    v_new += (x_new - x_before_limit) / dt;
  }
}

void Contact::set_body_motion(std::function<Points3(double)> pose) {
  Impl& m = *impl_;
  m.body_pose = std::move(pose);
  m.body_velocity.resize(0, 3);
  m.body_swept_bvh = m.body_bvh;  // the same structure, refitted over each step
}

void Contact::begin_step(const ClothModel& /*model*/, double time, double dt) {
  Impl& m = *impl_;
  if (!m.body_pose || !(dt > 0)) return;
  // The start pose is computed, not taken from body_V: after a rollback the body stands where
  // the failed attempt left it.
  m.body_start = m.body_pose(time);
  Points3 end = m.body_pose(time + dt);
  if (end.rows() != m.body_V.rows() || m.body_start.rows() != m.body_V.rows())
    throw std::invalid_argument("Contact: the body's pose has a different vertex count");
  m.body_velocity = (end - m.body_start) / dt;
  m.body_step_max = (end - m.body_start).rowwise().norm().maxCoeff();
  m.body_speed_max = m.body_step_max / dt;
  m.body_V = std::move(end);
  m.body_full = m.body_V;
  m.body_inset.setZero(m.body_V.rows(), 3);
  m.growth = 1;
  m.body_bvh.refit(m.body_V, m.body_F);
  collision::refit_swept(m.body_swept_bvh, m.body_start, m.body_V, m.body_F);
  // The pair caches hold for a body standing still only.
  m.body_pairs.clear();
  m.body_swept_pairs.clear();
  m.compute_body_normals();
}

}  // namespace tryon::cloth
