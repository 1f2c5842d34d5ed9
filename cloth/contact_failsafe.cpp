// Step 3 of Contact::resolve, the fail-safe [Bridson, Fedkiw & Anderson 2002, §8, in the spirit
// of impact zones]: nothing may pass through the body or the cloth during the step (see
// cloth/contact.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "cloth/contact_impl.hpp"

namespace tryon::cloth {

// The state of one step's fail-safe: which particles the body sent back, the impact zones,
// the seam pairs sent back apart.
struct Contact::Impl::FailSafe {
  Impl& m;
  const ClothModel& model;
  ConstRef<Points3> x_prev;
  Points3& x_new;
  Points3& v_new;
  const double dt;
  const ContactSettings& s;
  const int n;
  const collision::MovingMesh body_moving;
  std::vector<char> reverted;  // per particle: sent back to x_prev by the body tests
  // Per particle: how far a moving body carried it from x_prev, where the body sent it back
  // (zero when the body stands still): such a particle starts again from x_prev + carry.
  Points3 carry;
  // Per seam pair: sent back apart (see hold_closed_pairs), to open again (reopen_sent_apart).
  std::vector<char> sent_apart;
  // Impact zones (see move_zones): a union–find over the particles, merged across rounds.
  std::vector<int> zone;
  std::vector<char> in_zone;  // particles of a zone: in a hit, or sewn to one that is
  const Points3 v_start;      // the velocities the fail-safe started from

  FailSafe(Impl& impl, const ClothModel& cloth_model, ConstRef<Points3> prev, Points3& x, Points3& v, double step)
      : m(impl),
        model(cloth_model),
        x_prev(prev),
        x_new(x),
        v_new(v),
        dt(step),
        s(impl.settings),
        n(cloth_model.num_particles()),
        body_moving{impl.body_moving() ? impl.body_start : impl.body_V, impl.body_V, impl.body_F, impl.body_topo,
                    impl.body_moving() ? impl.body_swept_bvh : impl.body_bvh},
        reverted(n, 0),
        carry(Points3::Zero(n, 3)),
        sent_apart(impl.seams.rows(), 0),
        zone(n),
        in_zone(n, 0),
        v_start(v) {
    for (int i = 0; i < n; ++i) zone[i] = i;
  }

  // Where particle i starts again when sent back: x_prev, carried with a moving body.
  Vec3 start(int i) const { return (x_prev.row(i) + carry.row(i)).transpose(); }

  int find(int i) {
    while (zone[i] != i) i = zone[i] = zone[zone[i]];
    return i;
  }
  void join(int a, int b) {
    const int ra = find(a), rb = find(b);
    if (ra != rb) zone[std::max(ra, rb)] = std::min(ra, rb);
  }

  int hold_closed_pairs(bool give_up);
  int round();
  int send_back_from_body(const collision::ContinuousResult& body_hits);
  void self_hit_particles(const collision::MovingMesh& cloth, std::vector<int>& out) const;
  void join_zones(const std::vector<int>& involved);
  int move_zones(const std::vector<int>& involved);
  void give_up();
  void reopen_sent_apart();
};

bool Contact::Impl::fail_safe(const ClothModel& model, ConstRef<Points3> x_prev, Points3& x_new, Points3& v_new,
                              double dt, ContactStats& stats) {
  FailSafe f(*this, model, x_prev, x_new, v_new, dt);
  bool settled = false;
  for (int round = 0; round < settings.failsafe_rounds; ++round) {
    if (f.round() == 0) {  // everything in x_new, the held pairs included, has passed the tests
      settled = true;
      break;
    }
  }
  if (!settled) {
    ++stats.failsafe_unsettled;
    may_have_crossed = true;
    f.give_up();
  }
  f.reopen_sent_apart();
  stats.failsafe_reverts += std::count(f.reverted.begin(), f.reverted.end(), 1);
  return settled;
}

// Closed seam pairs move as one particle: back together where one of them was sent back to
// x_prev (both were together there), else at their mass-weighted mean, with one velocity. A
// pair that closed this step (step 0) was apart at x_prev: sent back, it meets at the mean of
// where its particles were. When the rounds run out (`give_up`), such a pair goes back apart,
// and opens again (reopen_sent_apart). Returns how many particles moved.
int Contact::Impl::FailSafe::hold_closed_pairs(bool give_up) {
  int moved = 0;
  for (Eigen::Index k = 0; k < m.seams.rows(); ++k) {
    if (!m.seam_closed[k]) continue;
    const int a = m.seams(k, 0), b = m.seams(k, 1);
    const double wa = model.inv_mass[a], wb = model.inv_mass[b];
    if (wa + wb <= 0) continue;
    const bool back = reverted[a] || reverted[b];
    if (give_up && back && (x_prev.row(a) - x_prev.row(b)).norm() >= s.sew_distance) {
      sent_apart[k] = 1;
      for (int p : {a, b}) {
        if (!movable(model, p)) continue;
        if (x_new.row(p) != start(p).transpose()) ++moved;
        x_new.row(p) = start(p).transpose();
        reverted[p] = 1;
      }
      continue;
    }
    if (back) {  // carried as one by a moving body: by their mean carry
      const Vec3 c = (Vec3(carry.row(a)) * wb + Vec3(carry.row(b)) * wa) / (wa + wb);
      carry.row(a) = carry.row(b) = c.transpose();
    }
    const Vec3 xa = back ? start(a) : Vec3(x_new.row(a)), xb = back ? start(b) : Vec3(x_new.row(b));
    const Vec3 x = (xa * wb + xb * wa) / (wa + wb);  // the heavier (smaller inv_mass) particle weighs more
    const Vec3 v = (Vec3(v_new.row(a)) * wb + Vec3(v_new.row(b)) * wa) / (wa + wb);
    for (int p : {a, b}) {
      if (model.inv_mass[p] <= 0) continue;
      if (x_new.row(p) != x.transpose()) ++moved;
      x_new.row(p) = x.transpose();
      v_new.row(p) = v.transpose();
      if (back) reverted[p] = 1;
    }
  }
  return moved;
}

// One round of continuous tests of x_prev → x_new: cloth that would pass into the body goes
// back, cloth pairs that would pass through each other join impact zones. Returns how many
// particles it moved (0: x_new passed the tests).
int Contact::Impl::FailSafe::round() {
  hold_closed_pairs(false);
  collision::refit_swept(m.swept_bvh, x_prev, x_new, m.cloth_F);
  const collision::MovingMesh cloth{x_prev, x_new, m.cloth_F, m.cloth_topo, m.swept_bvh, &m.contours};
  std::vector<int> involved;
  collision::ContinuousResult body_hits = collision::continuous_collisions(cloth, body_moving, 1e-9, m.body_swept_pairs);
  m.filter(body_hits);
  int changed = send_back_from_body(body_hits);
  if (s.self_collision) self_hit_particles(cloth, involved);
  join_zones(involved);
  if (!involved.empty()) changed += move_zones(involved);
  return changed;
}

// A cloth vertex, edge or triangle that would pass through the body goes back to where it
// was, keeping the part of its velocity along the body (the face's, edge's or vertex's
// normal removed), so it slides on next step instead of sticking. A moving body carries it:
// it goes back to where it was plus how far the body moved there (x_prev itself may be where
// the body now is), and keeps its velocity relative to the body's. Returns how many went back.
int Contact::Impl::FailSafe::send_back_from_body(const collision::ContinuousResult& body_hits) {
  int slid = 0;
  auto slide_back = [&](int i, const Vec3& nrm, const Vec3& body_v) {
    const Vec3 target = Vec3(x_prev.row(i)) + dt * body_v;
    if (!movable(model, i) || x_new.row(i) == target.transpose()) return;
    x_new.row(i) = target.transpose();
    carry.row(i) = (dt * body_v).transpose();
    Vec3 v = Vec3(v_new.row(i)) - body_v;
    const double vn = v.dot(nrm);
    if (vn < 0) v -= vn * nrm;
    v_new.row(i) = (body_v + v).transpose();
    reverted[i] = 1;
    ++slid;
  };
  // A cloth element that starts the step inside the body (a vertex that got in, say) is
  // leaving it and is let through; one that starts outside is entering and goes back. The
  // side is where the pair was at the step's start: the impact's normal points to the side of
  // the cloth vertex or edge (of the body vertex, for a body vertex against a cloth face) at
  // t = 0. Judged by the direction the cloth moved instead, a cloth edge pushed outward by
  // the contact (step 1) while sliding across a body edge was let through and then lay
  // across the body (the dress on makehuman_female: one hem edge through the calf, on and off
  // from frame 560 to 900).
  auto started_outside = [](const Vec3& impact_normal, const Vec3& body_normal) {
    return impact_normal.dot(body_normal) > 0;
  };
  for (const auto& h : body_hits.vertex_face) {
    const Vec3 nrm = m.face_normal.row(h.triangle);
    if (started_outside(h.impact.normal, nrm)) slide_back(h.vertex, nrm, m.body_velocity_at(h.triangle, h.impact.bary));
  }
  for (const auto& h : body_hits.face_vertex) {
    const Vec3 nrm = m.vertex_normal.row(h.vertex);
    // The impact normal points from the cloth face to the body vertex: the cloth was outside
    // when the vertex was on the face's inner side, against the vertex's outward normal.
    if (!started_outside(-h.impact.normal, nrm)) continue;
    for (int k = 0; k < 3; ++k) slide_back(m.cloth_F(h.triangle, k), nrm, m.body_vertex_velocity(h.vertex));
  }
  for (const auto& h : body_hits.edge_edge) {
    const Vec3 nrm = m.edge_normal.row(h.edge_b);
    if (!started_outside(h.impact.normal, nrm)) continue;
    for (int k = 0; k < 2; ++k)
      slide_back(m.cloth_topo.edges(h.edge_a, k), nrm, m.body_edge_velocity(h.edge_b, h.impact.t));
  }
  return slid;
}

// The particles of the cloth pairs that would pass through each other, 4 a hit; pairs meeting
// at a seam by design, or already tangled at the frame's start (holding them back would hold
// the tangle forever; the untangling of step 2b undoes it), are left out.
void Contact::Impl::FailSafe::self_hit_particles(const collision::MovingMesh& cloth, std::vector<int>& out) const {
  const collision::ContinuousResult self_hits = collision::continuous_self_collisions(cloth);
  for (const auto& h : self_hits.vertex_face) {
    const int t0 = m.cloth_F(h.triangle, 0), t1 = m.cloth_F(h.triangle, 1), t2 = m.cloth_F(h.triangle, 2);
    if (m.across_seam({h.vertex}, {t0, t1, t2}) || m.any_tangled({h.vertex, t0, t1, t2})) continue;
    out.insert(out.end(), {h.vertex, t0, t1, t2});
  }
  for (const auto& h : self_hits.edge_edge) {
    const int a0 = m.cloth_topo.edges(h.edge_a, 0), a1 = m.cloth_topo.edges(h.edge_a, 1);
    const int b0 = m.cloth_topo.edges(h.edge_b, 0), b1 = m.cloth_topo.edges(h.edge_b, 1);
    if (m.across_seam({a0, a1}, {b0, b1}) || m.any_tangled({a0, a1, b0, b1})) continue;
    out.insert(out.end(), {a0, a1, b0, b1});
  }
}

// Impact zones [Provot 1997; Bridson, Fedkiw & Anderson 2002, §8]: particles of a cloth pair
// that would pass through each other join one zone (union–find, merged across rounds); a
// zone moves with its mass-weighted mean velocity, so nothing in it moves relative to the
// rest of it and no crossing inside it is left, while the zone as a whole keeps moving (a
// falling fold falls on instead of freezing in the air). A zone with a pinned particle, or
// one the body sent back, stops.
void Contact::Impl::FailSafe::join_zones(const std::vector<int>& involved) {
  for (std::size_t k = 0; k + 3 < involved.size(); k += 4)  // one hit: its 4 particles in one zone
    for (std::size_t j = 1; j < 4; ++j) join(involved[k], involved[k + j]);
  if (involved.empty()) return;
  // A closed seam pair is one particle (hold_closed_pairs puts both in one place): where
  // one of them is in a zone, so is the other. Else holding the pair together pulls the
  // zone's particle off the zone's rigid motion in every round, and the crossing the zone
  // was made for can come back round after round until the rounds run out (the dress on
  // makehuman_female with persistent body contacts: one self hit left, step after step).
  for (int i : involved) in_zone[i] = 1;
  for (Eigen::Index k = 0; k < m.seams.rows(); ++k) {
    const int a = m.seams(k, 0), b = m.seams(k, 1);
    if (!m.seam_closed[k] || !(in_zone[a] || in_zone[b])) continue;
    in_zone[a] = in_zone[b] = 1;
    join(a, b);
  }
}

// Moves every zone touched this round with its mean velocity from x_prev (see join_zones).
// Returns how many particles moved.
int Contact::Impl::FailSafe::move_zones(const std::vector<int>& involved) {
  int changed = 0;
  // Mean momentum and mass of every zone touched this round.
  std::map<int, std::pair<Vec3, double>> sums;  // root -> (Σ m v, Σ m); inf mass when pinned
  for (int i : involved) sums.emplace(find(i), std::make_pair(Vec3::Zero(), 0.0));
  for (int i = 0; i < n; ++i) {
    auto it = sums.find(find(i));
    if (it == sums.end()) continue;
    // A pinned particle stops its zone, and so does one the body sent back this step: moved
    // with the zone, it went into the body again, was sent back again in the next round,
    // and the zone with it, until the rounds ran out (the dress on mean_all at 3 cm, at a
    // side seam: every step from frame 225 on, so the drape never counted as at rest).
    if (!movable(model, i) || reverted[i]) {
      it->second.second = std::numeric_limits<double>::infinity();
      continue;
    }
    const double mass = 1.0 / model.inv_mass[i];
    it->second.first += mass * v_start.row(i).transpose();
    it->second.second += mass;
  }
  for (int i = 0; i < n; ++i) {
    auto it = sums.find(find(i));
    if (it == sums.end() || !movable(model, i)) continue;
    const bool stopped = std::isinf(it->second.second);  // carried by a moving body, if it was
    const Vec3 v = stopped ? Vec3(carry.row(i) / dt) : Vec3(it->second.first / it->second.second);
    const Vec3 x = stopped ? start(i) : Vec3(Vec3(x_prev.row(i)) + dt * v);
    if (x_new.row(i) == x.transpose()) continue;
    x_new.row(i) = x.transpose();
    v_new.row(i) = v.transpose();
    ++changed;
  }
  return changed;
}

// Out of rounds: the zones and the particles held by the body stop at x_prev; if anything
// would still pass through, the whole cloth goes back to x_prev, which is free of crossings.
void Contact::Impl::FailSafe::give_up() {
  std::vector<int> zone_size(n, 0);
  for (int i = 0; i < n; ++i) ++zone_size[find(i)];
  for (int i = 0; i < n; ++i)
    if (reverted[i] || zone_size[find(i)] > 1) {
      x_new.row(i) = start(i).transpose();
      v_new.row(i) = carry.row(i) / dt;
    }
  hold_closed_pairs(true);
  collision::refit_swept(m.swept_bvh, x_prev, x_new, m.cloth_F);
  const collision::MovingMesh cloth{x_prev, x_new, m.cloth_F, m.cloth_topo, m.swept_bvh, &m.contours};
  collision::ContinuousResult body_hits = collision::continuous_collisions(cloth, body_moving, 1e-9, m.body_swept_pairs);
  m.filter(body_hits);
  bool clear = body_hits.vertex_face.empty() && body_hits.face_vertex.empty() && body_hits.edge_edge.empty();
  if (clear && s.self_collision) {
    std::vector<int> left;
    self_hit_particles(cloth, left);
    clear = left.empty();
  }
  if (clear) return;
  x_new = x_prev + carry;
  for (int i = 0; i < n; ++i)
    if (reverted[i] || zone_size[find(i)] > 1) v_new.row(i) = carry.row(i) / dt;
  // Pairs that closed in this step are apart at x_prev: they open again (below), like
  // those sent back apart. Counted closed, every later step snapped them shut, and where
  // the fail-safe could not settle the snap the whole cloth went back again, step after
  // step (seen sewing the trousers with self-collision on, an experiment; see the note).
  for (Eigen::Index k = 0; k < m.seams.rows(); ++k)
    if (m.seam_closed[k] && (x_prev.row(m.seams(k, 0)) - x_prev.row(m.seams(k, 1))).norm() >= s.sew_distance)
      sent_apart[k] = 1;
}

// Pairs sent back apart open again, to be closed when they next meet. Held, they met at
// their mean whatever lay between them: the hoody on mean_all at 1.95 cm closed a side-seam
// pair at the armpit in a step the fail-safe then sent back, 17.5 mm apart across the body;
// their mean was inside it, so the fail-safe sent the whole cloth back in every step from
// then on, and the sewing froze with the hood's seams 216 mm open.
void Contact::Impl::FailSafe::reopen_sent_apart() {
  if (std::find(sent_apart.begin(), sent_apart.end(), 1) == sent_apart.end()) return;
  Segments kept(m.closed_pairs.rows(), 2);
  Eigen::Index count = 0;
  for (Eigen::Index r = 0; r < m.closed_pairs.rows(); ++r) {
    bool reopen = false;
    for (Eigen::Index k = 0; k < m.seams.rows() && !reopen; ++k)
      reopen = sent_apart[k] && m.seams.row(k) == m.closed_pairs.row(r);
    if (!reopen) kept.row(count++) = m.closed_pairs.row(r);
  }
  m.closed_pairs = kept.topRows(count);
  for (Eigen::Index k = 0; k < m.seams.rows(); ++k)
    if (sent_apart[k]) m.seam_closed[k] = 0;
}

}  // namespace tryon::cloth
