#pragma once
// Cloth contact: the body and the cloth itself, through the collision library. A contact
// stage the Simulator calls after every step: the body's AABB tree is built once, the cloth's
// is refitted bottom-up every step [the try-on paper].
//
// Per step, on the candidate positions x_new (from x_prev, which is intersection-free):
//  0. sewing: seam pairs the sewing springs have closed are held together;
//  1. body proximity, each cloth vertex within thickness + its own displacement in the step
//     (the drape; while sewing, + the step's largest displacement): cloth vertices are put back
//     outside at `thickness` along the body normal, their inward normal velocity removed and
//     their tangential velocity reduced by Coulomb friction [Bridson, Fedkiw & Anderson 2002,
//     §7]; body vertices that poke into the cloth push the cloth triangle away, spread by
//     barycentric weights, each corner taking the largest push asked of it;
//     with body_stiffness > 0 (the drape) these contacts are not projected: each one found
//     within `thickness` becomes a penalty force of the next implicit step (PenaltyContacts;
//     a body vertex with its closest cloth triangle only, a cloth edge with its closest body
//     edge: across a ridge of the body no vertex contact holds it);
//     only cloth closer than body_floor is still projected, out to body_floor;
//  1b. strain limiting again [Provot 1995], particles on the body kept from moving into it;
//  2. self proximity within self_thickness: vertex–triangle and edge–edge pairs are pushed
//     apart to self_thickness and their approaching normal velocity removed (inelastic
//     repulsion, ibid. §7.1), a few sweeps; not between two particles in self intersections;
//  2b. untangling: cloth in a self intersection at the frame's start (an edge through a
//     triangle, found in begin_frame) moves untangle_step along the direction that shortens
//     the intersection contour [Volino & Magnenat-Thalmann 2006] (collision/untangle.hpp),
//     and cloth that a contour cuts off moves back through the sheet it crossed as a whole
//     [Baraff, Witkin & Kass 2003];
//  3. fail-safe [Bridson, Fedkiw & Anderson 2002, §8, in the spirit of impact zones]:
//     continuous tests of x_prev → x_new against the body and the cloth. Cloth that would
//     pass into the body (it starts the step outside) goes back to its x_prev, keeping its
//     tangential velocity; cloth that starts inside is let out. Cloth pairs that would pass
//     through each other join an impact zone (with the seam partners of its particles) that
//     moves with its mean velocity, or stops if it holds a pinned particle or one the body
//     sent back. The test repeats until no pass-through is left, or the rounds run out: then
//     the involved particles stop at x_prev, and the whole cloth does if that is not enough.
#include <functional>
#include <memory>

#include "cloth/simulator.hpp"
#include "core/trimesh.hpp"

namespace tryon::cloth {

struct ContactSettings {
  // Sewing (open seams, pulled by the model's sewing springs): a seam pair is held together
  // for good once closer than sew_distance. More than self_thickness: a pair not yet held is
  // two cloth particles to the self repulsion, which kept the last pairs where four panels
  // meet 1.3–1.7 mm apart (the shirt spec's shoulder points on mean_all, with 1 mm).
  double sew_distance = 2e-3;      ///< m
  double thickness = 2.5e-3;       ///< cloth–body distance kept (m)
  double self_thickness = 1.5e-3;  ///< cloth–cloth distance kept (m)
  double friction = 0.45;          ///< Coulomb coefficient against the body
  bool self_collision = true;
  int self_sweeps = 3;
  /// Cloth in a self intersection moves this far a step to undo it (m; 0: not at all).
  /// Measured on the shirt spec on makehuman_female at 3 cm, 600 frames: 0.5 mm left 39
  /// self intersections, 1 mm 21, 1.5 mm and 3 mm none (3 mm: 8 % still moving).
  double untangle_step = 1.5e-3;
  /// Cloth that a contour cuts off (it lies through the other sheet) moves as a whole
  /// (collision::wrong_side_directions), not only at the contour. Measured: the trouser
  /// template 10 % larger on mean_all at 3 cm, 73 cloth edges through cloth after sewing,
  /// 0 after 22 frames of untangling with it, 67 after 139 without.
  bool untangle_regions = true;
  int failsafe_rounds = 8;
  /// Frames between the searches for cloth edges through cloth at a frame's start, once one
  /// found none (1: every frame). Cloth can only cross itself in a step the fail-safe did not
  /// settle, a step with self-collision off, or a push_out that moved it: after any of these,
  /// and while any crossing is left, the search runs every frame. Every frame, it took 10 % of
  /// the shirt's drape at 1 cm.
  int crossing_check_interval = 8;
  /// Strain-limiting sweeps after the body push-out, body contacts as constraints (0: none).
  int strain_limit_sweeps = 20;
  double max_speed = 2.0;          ///< m/s: faster particles are slowed (a numerical guard)
  /// Body contact as penalty forces in the implicit solve (N/m per contact; 0: cloth closer
  /// than `thickness` is projected out to it after each step). With penalties, only cloth
  /// closer than body_floor is still projected, out to body_floor. Only the implicit
  /// integrator applies penalty forces.
  double body_stiffness = 0;
  double body_floor = 1e-3;  ///< m
};

/// Figures of the contact work (the report's collision share).
struct ContactStats {
  double seconds = 0;          ///< wall time spent in contact handling
  long long body_contacts = 0;  ///< vertex contacts resolved (summed over steps)
  long long self_contacts = 0;
  long long failsafe_reverts = 0;  ///< vertices returned to x_prev by the fail-safe
  long long failsafe_unsettled = 0;  ///< steps whose fail-safe rounds ran out with moves still to check
  /// Particles resting on the body after a step (found near a body triangle or pushed by a body
  /// vertex), summed over every step the stage ran (a drape's sewing included), and those of
  /// them that were resting after the step before: resting_kept / resting near 1 means steady
  /// contacts; well below 1, contacts that come and go (0 when every contact alternates with a
  /// step off the body: the cloth bounces on the body instead of lying on it).
  long long resting = 0;
  long long resting_kept = 0;
};

class Contact : public ContactStage {
 public:
  /// @param[in] body  the body (metres, the cloth's frame); its tree is built here, once
  /// @param[in] seams |S|×2 particle pairs to sew (empty when the model merged its seams);
  ///                  sewn particles do not repel each other or their neighbours across the seam
  Contact(const TriMesh& body, const ClothModel& model, const ContactSettings& settings = {},
          const Segments& seams = {});
  ~Contact() override;

  /// Marks the particles of cloth self-intersections present at the frame's start (edges
  /// through triangles) and their directions of untangling: the fail-safe lets them move and
  /// the repulsion leaves them alone, so that step 2b can undo the tangle.
  void begin_frame(const ClothModel& model, double time) override;

  void resolve(const ClothModel& model, ConstRef<Points3> x_prev, Points3& x_new, Points3& v_new,
               double dt) override;

  /// Moves particles that start inside the body (or closer than thickness) out to `thickness`
  /// along the nearest surface normal, before draping. Returns how many moved.
  int push_out(ClothModel& model);

  /// Shrinks the body inwards along its vertex normals, by up to `max_inset` metres and at most
  /// 40 % of the local thickness (so arms become thin, the torso a little smaller): seams close
  /// around a slimmer body without it in the way, then set_body_growth brings it back and the
  /// contact pushes the sewn cloth out with it (as GarmentCode starts from a smoothed body
  /// [Korosteleva et al. 2023]). Returns the largest inset used; the body starts at growth 0.
  double shrink_body(double max_inset);
  /// Body between shrunk (0) and as given (1). Grow by less than `thickness` a frame, so cloth
  /// the body reaches is still outside it and is pushed out with it.
  void set_body_growth(double s);
  double body_growth() const;

  /// The body moves: `pose(t)` gives its vertices (|V_body|×3, over its triangles) at simulated
  /// time t (s). Before every step the body takes its pose at the step's end (its trees
  /// refitted, its normals found again); contacts work with the body's velocity, so friction
  /// carries the cloth with it [Bridson, Fedkiw & Anderson 2002, §7.2: relative velocities],
  /// the continuous tests with its motion over the step, and cloth the body would pass through
  /// moves with the body instead of back to where it was. The body must stand at pose(t) when
  /// the first step at time t begins (nothing else moves it; growth stays 1).
  void set_body_motion(std::function<Points3(double)> pose);
  void begin_step(const ClothModel& model, double time, double dt) override;

  const ContactStats& stats() const { return stats_; }
  /// Whether a step of the current frame ran out of fail-safe rounds and stopped cloth that
  /// wanted to move: such a frame is not evidence of rest.
  bool held_back() const override { return unsettled_this_frame_ > 0; }
  /// The closed seam pairs (held together for good).
  const Segments* joined_particles() const override;
  /// The body contacts of the last step (normals of the particles the body pushed out).
  const Points3* resting_normals() const override;
  /// The body's velocity under the particles of resting_normals (null while it stands still).
  const Points3* resting_velocities() const override;
  /// The body contacts of the last step as penalty forces (with body_stiffness > 0).
  const PenaltyContacts* penalty_contacts() const override;
  double body_friction() const override;
  /// A body part some of the cloth does not collide with, as GarmentCode filters body parts by
  /// panel [Korosteleva et al. 2024]: torso panels ignore the arms, so the arm does not hold
  /// open the side and armhole seams that run between it and the torso in an A-pose (measured,
  /// the shirt spec on mean_all sewn torso first: strain max 21 % → 14 %, 110 s → 53 s).
  /// @param[in] part_vertex |V_body| flags: the part's vertices (a body face, edge or vertex
  ///                        belongs to the part when all its vertices do)
  /// @param[in] ignores     |particles| flags: the particles that pass through the part
  void ignore_body_part(const std::vector<char>& part_vertex, const std::vector<char>& ignores);
  /// The particles that ignore the body part and are clear of the body now (outside it, no
  /// edge of theirs through it, and the same for their neighbours) collide with the part from
  /// now on. Returns how many. For after sewing: the arm was in the way of the torso's seams,
  /// not of the sewn torso, which fell through it as it draped (the dress on makehuman_female:
  /// the back of the armhole through the arm).
  /// Particles flagged in `keep_ignoring` (|particles|, or empty) go on ignoring the part.
  int collide_with_part_where_clear(const ClothModel& model, const std::vector<char>& keep_ignoring = {});
  /// Moves the particles that ignore the body part and are inside it (inside the body, the part
  /// nearest) to the nearest surface outside the part, `thickness` off it, at rest; a move that
  /// would leave cloth through cloth where it was not before is taken back. Returns how many
  /// moved. Particles flagged in `keep_ignoring` (|particles|, or empty) stay. For the torso's
  /// particles caught in an arm when the drape starts: collide_with_part_where_clear leaves them
  /// ignoring the arm, and they come to rest through it.
  int move_out_of_part(ClothModel& model, const std::vector<char>& keep_ignoring = {});
  /// Turns the filter of ignore_body_part on or off (on when set).
  void set_body_part_ignored(bool on);
  /// Turns self-collision on or off (off while sewing: the panels' edges must meet).
  void set_self_collision(bool on);
  /// Sets the Coulomb coefficient against the body (0 while sewing: panels slide into place).
  void set_friction(double mu);
  /// Sets ContactSettings::body_stiffness (0: projected contacts).
  void set_body_stiffness(double stiffness);
  /// Sets the sweeps of strain limiting on the body (ContactSettings::strain_limit_sweeps).
  void set_strain_limit_sweeps(int sweeps);
  /// Open seam pairs closer than `distance` close for good in a step, as those closer than
  /// sew_distance do (sew_distance stays the least). The fail-safe still tells a pair that
  /// closed in the step it sends back by sew_distance: the pair was at least that far apart
  /// at x_prev.
  void set_seam_close_distance(double distance);
  /// Sets how far tangled cloth moves a step (ContactSettings::untangle_step).
  void set_untangle_step(double step);
  /// Cloth edges through cloth triangles that the last begin_frame found (0 when self-collision
  /// was off).
  int crossings() const;
  int num_seam_pairs() const;
  /// Largest distance between the particles of a seam pair now (0 without seams).
  double seam_gap(ConstRef<Points3> x) const;
  /// Seam pairs closer than sew_distance (held together).
  int closed_seam_pairs() const;
  /// Closes the open seam pairs closer than `distance` in `x` now, as if sew_distance were
  /// `distance` for one step: each pair moves to its mass-weighted mean and is held from then
  /// on. Returns how many closed.
  int stitch_pairs_within(const ClothModel& model, Points3& x, double distance);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  ContactStats stats_;
  int unsettled_this_frame_ = 0;
};

}  // namespace tryon::cloth
