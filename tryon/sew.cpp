// The sew and untangle stages (stages.hpp): the phases before the drape, without gravity.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "core/logger.hpp"
#include "tryon/held_still.hpp"
#include "tryon/stages.hpp"

namespace tryon::stages {
namespace {

constexpr double kBodyGrowthPerFrame = 1e-3;  // m, under ContactSettings::thickness (2.5 mm)
// Untangling after sewing: stride a step (m), frame budget, and how many frames it goes on
// without a new fewest count of crossings. Measured on the shirt spec on makehuman_female: at
// 2.98 cm the 39 crossings the sewing left were down to 11 after 60 frames with 3 mm a step,
// and gone after 4 frames with 5 mm; at 1 cm, 169 took 83 frames with 5 mm (falling unevenly:
// 131 at frame 8, 55 at 59), while 10 mm kept 86 % of the cloth moving.
constexpr double kUntangleStep = 5e-3;
constexpr int kUntangleFrames = 150;
constexpr int kUntangleStall = 40;
// The untangling's strain limit: the cloth in a crossing is moved along its direction of
// untangling and the cloth around it must follow, not stretch to let it go (trousers 15 %
// larger than the GarmentCode template on mean_all at 3 cm, in a jersey limited to 20 %: 103
// crossings after sewing, 76 left when the untangling stalled; none after 62 frames with 8 %).
constexpr double kUntangleStrainLimit = 0.08;

// Settings for a phase before the drape (sewing, untangling): no gravity, no pins (a pinned
// waist corner could never meet its partner: the skirt's top side-seam pair stayed 2 cm open,
// so the waist was no closed loop and slid down), the attachments all along (one-sided, they
// let seams close), and never "static": its callback ends it.
cloth::SimulatorSettings weightless(const cloth::SimulatorSettings& s) {
  cloth::SimulatorSettings w = s;
  w.gravity = Vec3::Zero();
  w.temporary_pins.clear();
  w.pin_frames = 0;
  w.attachment_frames = w.min_frames = 1000000;
  return w;
}

/// Sewing in stages: a stage's seam pairs close while the later stages' wait with their
/// sewing springs slack; the next stage starts when every pair started so far is closed, or
/// when its share of the closing budget is spent (sewing_stages() says which pair is which).
class SewingStages {
 public:
  /// `stage_of_pair`: the stage each seam pair closes in (0 first); empty stages are skipped.
  SewingStages(const Segments& seams, const std::vector<int>& stage_of_pair, int first_sewing_spring,
               cloth::ClothModel& model)
      : seams_(seams), first_spring_(first_sewing_spring) {
    std::vector<int> used(stage_of_pair);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    stage_.resize(stage_of_pair.size());
    for (std::size_t i = 0; i < stage_of_pair.size(); ++i)
      stage_[i] = static_cast<int>(std::lower_bound(used.begin(), used.end(), stage_of_pair[i]) - used.begin());
    stages_ = static_cast<int>(used.size());
    stiffness_.resize(stage_.size());
    damping_.resize(stage_.size());
    for (std::size_t i = 0; i < stage_.size(); ++i) {
      stiffness_[i] = model.springs.stiffness[first_spring_ + i];
      damping_[i] = model.springs.damping[first_spring_ + i];
      if (stage_[i] > 0) model.springs.stiffness[first_spring_ + i] = model.springs.damping[first_spring_ + i] = 0;
    }
  }
  /// The stage sewing now (0 first).
  int current() const { return current_; }
  bool waiting() const { return current_ + 1 < stages_; }
  /// Whether every pair of the stages started so far is closer than `distance`.
  bool started_closed(ConstRef<Points3> x, double distance) const {
    for (std::size_t i = 0; i < stage_.size(); ++i)
      if (stage_[i] <= current_ && (x.row(seams_(i, 0)) - x.row(seams_(i, 1))).norm() > distance) return false;
    return true;
  }
  /// Starts the next stage: its sewing springs get their stiffness.
  void release(cloth::ClothModel& model) {
    ++current_;
    for (std::size_t i = 0; i < stage_.size(); ++i)
      if (stage_[i] == current_) {
        model.springs.stiffness[first_spring_ + i] = stiffness_[i];
        model.springs.damping[first_spring_ + i] = damping_[i];
      }
  }

 private:
  const Segments& seams_;
  int first_spring_;
  std::vector<int> stage_;
  int stages_ = 1, current_ = 0;
  std::vector<double> stiffness_, damping_;
};

/// The order of sewing (stage of each seam pair, 0 first). Always first, the upper torso's own
/// seams (both particles upper torso): they hold the garment on the shoulders; sewn together
/// with the rest, the sleeves, placed out along the arms, pulled the armholes outwards and the
/// shoulder seams slid off the shoulders before they closed.
///   torso first:   1 everything else.
///   sleeves first: 1 everything but the armholes, a sleeve's own seams among them: the sleeve
///                  closes into a tube around the arm while it hangs where it was placed;
///                  2 the armholes (one particle in a sleeve, the other not).
/// Either order with the waist last: the waist joins (waist_join()) wait for the last stage, 2,
/// while the top, the waistband and the skirt or trousers close each into a tube of its own.
struct SewingOrder {
  bool sleeves_first = false;
  bool waist_last = false;
  /// As report.json's run.sewing names it ("torso_first", "sleeves_first_waist_last", ...).
  std::string name() const {
    return std::string(sleeves_first ? "sleeves_first" : "torso_first") + (waist_last ? "_waist_last" : "");
  }
  static SewingOrder named(const std::string& name) {
    return {name.rfind("sleeves_first", 0) == 0, name.find("_waist_last") != std::string::npos};
  }
};

/// Whether seam pair `i` sews a sleeve into its armhole: one particle in a sleeve, the other not
/// (sleeves collide with the arms).
bool armhole_pair(const Cloth& c, Eigen::Index i) {
  return c.roles.ignores_arms[c.seam_particles(i, 0)] != c.roles.ignores_arms[c.seam_particles(i, 1)];
}

/// Whether seam pair `i` joins the top to what is below it (a waistband, a skirt, trousers):
/// one particle upper torso, the other neither upper torso nor in a sleeve, and lower at `x`.
bool waist_join(const Cloth& c, ConstRef<Points3> x, Eigen::Index i) {
  const int a = c.seam_particles(i, 0), b = c.seam_particles(i, 1);
  if (c.roles.upper_torso[a] == c.roles.upper_torso[b] || !c.roles.ignores_arms[a] || !c.roles.ignores_arms[b])
    return false;
  const int top = c.roles.upper_torso[a] ? a : b, below = top == a ? b : a;
  return x(below, 1) < x(top, 1);
}

std::vector<int> sewing_stages(const Cloth& c, ConstRef<Points3> x, SewingOrder order) {
  std::vector<int> stage(static_cast<std::size_t>(c.seam_particles.rows()));
  for (Eigen::Index i = 0; i < c.seam_particles.rows(); ++i) {
    const int a = c.seam_particles(i, 0), b = c.seam_particles(i, 1);
    const bool upper = c.roles.upper_torso[a] && c.roles.upper_torso[b];
    const bool last = (order.sleeves_first && armhole_pair(c, i)) || (order.waist_last && waist_join(c, x, i));
    stage[i] = upper ? 0 : last ? 2 : 1;
  }
  return stage;
}

/// Whether sewing the sleeves first is a different order: the garment has armholes.
bool has_armholes(const Cloth& c) {
  for (Eigen::Index i = 0; i < c.seam_particles.rows(); ++i)
    if (armhole_pair(c, i)) return true;
  return false;
}

/// Whether sewing the waist last is a different order: the top is joined to something below it.
bool has_waist_joins(const Cloth& c, ConstRef<Points3> x) {
  for (Eigen::Index i = 0; i < c.seam_particles.rows(); ++i)
    if (waist_join(c, x, i)) return true;
  return false;
}

/// Names the seams still open after sewing, each with its widest pair (which, counted from the
/// stitch's first edge's start, and where on the body): a pattern maker can see which did not close.
void log_open_seams(const Cloth& c, const garments::Pattern& pattern) {
  const std::size_t ns = pattern.stitches.size();
  std::vector<double> open_gap(ns, 0.0);
  std::vector<Eigen::Index> widest(ns, -1);
  std::vector<int> pairs(ns, 0), rank(ns, 0);
  for (Eigen::Index i = 0; i < c.seam_particles.rows(); ++i) {
    const std::size_t st = c.garment.stitch_of_pair[i];
    const double gap = (c.model.x.row(c.seam_particles(i, 0)) - c.model.x.row(c.seam_particles(i, 1))).norm();
    if (gap > open_gap[st]) {
      open_gap[st] = gap;
      widest[st] = i;
      rank[st] = pairs[st];
    }
    ++pairs[st];
  }
  for (std::size_t st = 0; st < ns; ++st) {
    if (open_gap[st] < c.contact_settings.sew_distance) continue;
    const Vec3 at = c.model.x.row(c.seam_particles(widest[st], 0));
    logger().info("seam {} ({} edge {} to {} edge {}) still open by {:.1f} mm (pair {} of {}, at {:.3f} {:.3f} {:.3f})",
                  st, pattern.panels[pattern.stitches[st].a.panel].name, pattern.stitches[st].a.edge,
                  pattern.panels[pattern.stitches[st].b.panel].name, pattern.stitches[st].b.edge, 1000 * open_gap[st],
                  rank[st] + 1, pairs[st], at.x(), at.y(), at.z());
  }
}

/// The sewing run: closing budget, then the body grows back by kBodyGrowthPerFrame a frame
/// (less than the contact thickness, so the cloth it reaches is still outside and is pushed out
/// with it). In stages (sewing_stages()): stage k starts once the stages before it are closed,
/// or at the latest when 1 - 1/2^k of the closing budget is spent (half, three quarters).
/// With `give_up_frame` > 0, a sewing that has not closed every pair by that frame ends there,
/// or before, once held still (HeldStill): where one was, it stayed so to the end of its budget.
/// A sewing that ends with pairs open stitches shut those closer than kStitchShutDistance.
cloth::RunResult run_sewing(Run& run, Cloth& c, SewingOrder order, int give_up_frame = 0) {
  cloth::Contact& contact = *c.contact;
  cloth::Simulator sim(std::move(c.model), weightless(c.settings));  // ends when the seams are closed
  if (run.o.contact) sim.set_contact(&contact);
  std::atomic<bool> sewn{false};
  const int close_frames = std::max(1, std::min(run.o.max_frames / 2, 240));
  const double growth_step = c.inset > 0 ? std::min(1.0, kBodyGrowthPerFrame / c.inset) : 1.0;
  const int grow_frames = c.inset > 0 ? static_cast<int>(std::ceil(1.0 / growth_step)) : 0;
  bool growing = c.inset <= 0;
  SewingStages stages(c.seam_particles, sewing_stages(c, sim.model().x, order), c.first_sewing_spring, sim.model());
  HeldStill held_still(contact.closed_seam_pairs());
  const double sew_distance = c.contact_settings.sew_distance;
  const cloth::RunResult result = sim.run(close_frames + grow_frames, [&](const cloth::FrameReport& f) {
    if (stages.waiting() && (stages.started_closed(sim.model().x, sew_distance) ||
                             f.frame >= close_frames * ((2 << stages.current()) - 1) / (2 << stages.current()))) {
      logger().info("sewing: stage {} starts at frame {}", stages.current() + 1, f.frame);
      stages.release(sim.model());
    }
    run.on_frame(f, "sewing", sim.model().x);
    const int closed = contact.closed_seam_pairs();
    const bool all_closed = closed == contact.num_seam_pairs();
    const bool may_give_up = give_up_frame > 0 && !all_closed;
    const bool held = held_still.frame(contact.held_back(), closed);
    if (may_give_up && held)
      logger().info("sewing: the fail-safe held the cloth back for {} frames, no seam pair closing; this sewing gives up "
                    "at frame {}", HeldStill::kFrames, f.frame);
    if (run.cancel || (may_give_up && (f.frame >= give_up_frame || held))) sewn = true;
    if (!growing && (all_closed || f.frame >= close_frames)) growing = true;
    if (growing && c.inset > 0) contact.set_body_growth(contact.body_growth() + growth_step);
    if (growing && contact.body_growth() >= 1 && (all_closed || f.frame >= close_frames + grow_frames)) sewn = true;
  }, &sewn);
  if (c.inset > 0) contact.set_body_growth(1);
  c.model = sim.model();
  c.model.v.setZero();
  run.frames_done = result.frames;
  if (run.o.contact && contact.closed_seam_pairs() < contact.num_seam_pairs()) {
    const int stitched = contact.stitch_pairs_within(c.model, c.model.x, kStitchShutDistance);
    if (stitched > 0)
      logger().info("sewing: stitched shut {} open seam pair{}, closer than {:.0f} mm", stitched, stitched > 1 ? "s" : "",
                    1000 * kStitchShutDistance);
  }
  return result;
}

/// No self-collision (the panels' edges must meet), no friction (panels slide into place), nor
/// strain limiting on the body: it holds back panel edges the seams must stretch to close
/// (measured: skirt_2_panels on mean_all at 3 cm, 43 of 48 pairs closed with it).
void contact_for_sewing(cloth::Contact& contact) {
  contact.set_self_collision(false);
  contact.set_friction(0.0);
  contact.set_strain_limit_sweeps(0);
}

/// A sewing put aside while the cloth is sewn again.
struct SewingAside {
  cloth::ClothModel model;
  std::unique_ptr<cloth::Contact> contact;
  cloth::RunResult sewing_run, untangle_run;
  int closed_pairs = 0;  ///< as its record says
  int frames = 0;        ///< its frames: the sewing's, and the untangling's when it ran
};

/// Puts the cloth's sewing aside (the progress goes on counting its frames) and sews the cloth
/// again from `placed` in `order`, with self-collision or without (run_sewing() says what
/// `give_up_frame` does).
SewingAside sew_again_from(Run& run, Cloth& c, cloth::ClothModel placed, const avatars::Avatar& body,
                           SewingOrder order, bool self_collision, int give_up_frame = 0) {
  SewingAside aside{std::move(c.model), std::move(c.contact), c.sewing_run, c.untangle_run, c.sewing.closed_pairs,
                    run.frames_done};
  run.frames_discarded += aside.frames;
  run.frames_done = 0;
  c.model = std::move(placed);
  const int pushed = c.pushed;
  build_contact(run, c, body);
  c.pushed = pushed;
  contact_for_sewing(*c.contact);
  c.contact->set_self_collision(self_collision);
  c.untangle_run = {};
  c.sewing_run = run_sewing(run, c, order, give_up_frame);
  return aside;
}

/// Records the sewing done again as `name` among the orders tried and keeps it, or brings back
/// the sewing put aside; the frames and contact seconds of the one not kept count as discarded.
void keep_or_bring_back(Run& run, Cloth& c, SewingAside& aside, const std::string& name, bool keep) {
  c.sewing.orders_tried.push_back(name);
  if (keep) {
    c.sewing.order_kept = name;
    c.discarded_collision_s += aside.contact->stats().seconds;
    return;
  }
  c.discarded_collision_s += c.contact->stats().seconds;
  run.frames_discarded += run.frames_done - aside.frames;
  run.frames_done = aside.frames;
  c.model = std::move(aside.model);
  c.contact = std::move(aside.contact);
  c.sewing_run = aside.sewing_run;
  c.untangle_run = aside.untangle_run;
  c.sewing.closed_pairs = aside.closed_pairs;
}

/// Sews the cloth again from where it was placed (`placed`), the sleeves first, and keeps that
/// sewing if it closed more seam pairs than the one before. For a garment whose torso-first
/// sewing left seams open: torso first, an armhole can pull its sleeve's cap up to the shoulder
/// before the sleeve is a tube, the sleeve rides up the arm and its underarm edges end on
/// either side of it; sleeves first, a sleeve too narrow for the arm where it was placed slides
/// along the arm as it closes. Neither order is better for every garment.
void resew_sleeves_first(Run& run, Cloth& c, const cloth::ClothModel& placed, const avatars::Avatar& body) {
  const int closed = c.contact->closed_seam_pairs();
  logger().info("sewing: {} of {} seam pairs closed; sewn again, the sleeves before the armholes", closed,
                c.contact->num_seam_pairs());
  const SewingOrder sleeves_first{true, false};
  SewingAside torso_first = sew_again_from(run, c, placed, body, sleeves_first, false);
  const bool kept = c.contact->closed_seam_pairs() > closed;
  logger().info("sewing: the sleeves first closed {} pairs; {}", c.contact->closed_seam_pairs(),
                kept ? "kept" : "the torso-first sewing is kept");
  keep_or_bring_back(run, c, torso_first, sleeves_first.name(), kept);
}

/// After a sewing: its figures recorded and logged, and the contact set for what follows.
void end_sewing(Run& run, Cloth& c, const garments::Pattern& pattern, const char* phase) {
  cloth::Contact& contact = *c.contact;
  c.sewing.seam_pairs = contact.num_seam_pairs();
  c.sewing.closed_pairs = contact.closed_seam_pairs();
  run.log_phase(phase, c.collision_s());
  logger().info("sewing: {} of {} seam pairs closed after {} frames, gap {:.1f} mm", contact.closed_seam_pairs(),
                contact.num_seam_pairs(), c.sewing_run.frames, 1000 * contact.seam_gap(c.model.x));
  log_open_seams(c, pattern);
  // The torso panels of a top ignored the arms while they were sewn; sewn, they fell through
  // the arms as they draped (the dress on makehuman_female at 3 cm: 6 cloth edges through the
  // arm at the back of the armhole, 2 vertices inside; 0 and 0 when they collide again).
  collide_with_arms_where_clear(c);
  contact.set_self_collision(run.o.self_collision);
  contact.set_friction(run.shared.material.friction);
  contact.set_strain_limit_sweeps(c.contact_settings.strain_limit_sweeps);
}

/// Brings back the cloth as it was at the frame of the untangling that left the fewest crossings.
void keep_fewest_crossings(Cloth& c, Points3 x, int fewest, int frame) {
  c.model.x = std::move(x);
  c.contact->begin_frame(c.model, 0.0);
  logger().info("untangling: the cloth of frame {} kept, {} cloth edges through cloth", frame, fewest);
}

}  // namespace

void sew(Run& run, Cloth& c, const garments::Pattern& pattern, const avatars::Avatar& body) {
  if (c.merged || c.seam_particles.rows() == 0) return;
  contact_for_sewing(*c.contact);
  c.placed = c.model;  // for a sewing done again
  const SewingOrder torso_first;
  c.sewing_run = run_sewing(run, c, torso_first);
  c.sewing = {{torso_first.name()}, torso_first.name()};
  if (has_armholes(c) && c.contact->closed_seam_pairs() < c.contact->num_seam_pairs() && !run.cancel)
    resew_sleeves_first(run, c, *c.placed, body);
  end_sewing(run, c, pattern, "sewing");
}

// The sewing ran without self-collision, and panel edges on their way to their partners can
// pass through other cloth (the shirt spec on makehuman_female at 2.98 cm: the sleeve's
// underarm seam through the torso's side seam at both armpits, 39 edges through triangles).
// Cloth in a crossing moves along its direction of untangling, here without gravity and with a
// longer stride than in the drape, until no crossing is left or the budget is spent; with none,
// the drape starts at once. Where the moves stall, they can add crossings (cloth pushed back
// through one sheet into another), so the cloth of the frame with the fewest is kept.
void untangle(Run& run, Cloth& c) {
  if (!run.o.self_collision || !run.o.contact || run.cancel) return;
  cloth::Contact& contact = *c.contact;
  contact.begin_frame(c.model, 0.0);
  const int found = contact.crossings();
  if (found == 0) return;
  contact.set_untangle_step(kUntangleStep);
  const double strain_limit = c.model.material.strain_limit;
  c.model.material.strain_limit = std::min(strain_limit, kUntangleStrainLimit);
  cloth::Simulator sim(std::move(c.model), weightless(c.settings));  // ends when the crossings are undone
  sim.set_contact(&contact);
  std::atomic<bool> undone{false};
  int fewest = found, fewest_frame = 0;
  Points3 fewest_x = sim.model().x;
  const int budget = std::max(1, std::min(kUntangleFrames, run.o.max_frames - run.frames_done - 1));
  c.untangle_run = sim.run(
      budget,
      [&](const cloth::FrameReport& f) {
        run.on_frame(f, "untangle", sim.model().x);
        contact.begin_frame(sim.model(), 0.0);
        logger().debug("untangling: frame {}, {} cloth edges through cloth", f.frame, contact.crossings());
        if (contact.crossings() < fewest) {
          fewest = contact.crossings();
          fewest_frame = f.frame;
          fewest_x = sim.model().x;
        }
        if (contact.crossings() == 0 || f.frame - fewest_frame >= kUntangleStall || run.cancel) undone = true;
      },
      &undone);
  run.frames_done += c.untangle_run.frames;
  run.log_phase("untangling", c.collision_s());
  c.model = sim.model();
  c.model.v.setZero();
  c.model.material.strain_limit = strain_limit;
  contact.set_untangle_step(c.contact_settings.untangle_step);
  logger().info("untangling: {} cloth edges through cloth after sewing, {} after {} frames", found,
                contact.crossings(), c.untangle_run.frames);
  if (contact.crossings() > fewest) keep_fewest_crossings(c, std::move(fewest_x), fewest, fewest_frame);
}

namespace {

/// Seam pairs the sewing kept left open.
int open_pairs(const Cloth& c) { return c.contact->num_seam_pairs() - c.contact->closed_seam_pairs(); }

/// Sews the cloth again from `placed` in `order`, untangles it unless it left more seam pairs
/// open than the sewing before, and keeps it when it left fewer open, or as few and fewer cloth
/// edges through cloth (the sewing before's as its untangling left them); logs it as `what`.
void sew_again_and_compare(Run& run, Cloth& c, const garments::Pattern& pattern, cloth::ClothModel placed,
                           const avatars::Avatar& body, SewingOrder order, bool self_collision, const char* what) {
  const int crossings = c.contact->crossings(), open = open_pairs(c);
  // Where a sewing with self-collision closes the seams, it does so in about as many frames as
  // the sewing before (at most 1.1 times as many on the GarmentCodeData samples at 3 cm); where
  // it does not, it leaves them open at the end of its budget. So it gives up once it has run
  // half again as many frames as the sewing before.
  const int give_up_frame = self_collision ? c.sewing_run.frames + c.sewing_run.frames / 2 : 0;
  SewingAside before = sew_again_from(run, c, std::move(placed), body, order, self_collision, give_up_frame);
  end_sewing(run, c, pattern, self_collision ? "sewing with self-collision" : "sewing, the waist last");
  const int open_now = open_pairs(c);
  const bool may_be_kept = open_now <= open;  // then its crossings decide
  if (may_be_kept) untangle(run, c);
  const int left = may_be_kept ? c.contact->crossings() : -1;
  const bool kept = open_now < open || (open_now == open && left < crossings);
  logger().info("sewing: {} {}; {}", what,
                open_now == 0 ? fmt::format("{} cloth edges through cloth left", left)
                              : fmt::format("{} seam pair{} left open", open_now, open_now > 1 ? "s" : ""),
                kept ? "kept" : "the sewing before is kept");
  keep_or_bring_back(run, c, before, order.name() + (self_collision ? "_self_collision" : ""), kept);
}

}  // namespace

// Sewn without self-collision, panels can close their seams through each other, and some of
// those crossings the untangling does not undo. Two more sewings are tried, each from where the
// cloth was placed, each untangled and kept when it leaves fewer seam pairs open, or as few and
// fewer crossings:
// - The waist last, for a top joined to a waistband, skirt or trousers, with seams open or cloth
//   through cloth: the top's hem, wider than the waistband it is sewn to, gathers as it closes,
//   and so does the skirt's top; closing at once, the side seams still open, the two gathers
//   passed through each other and through the waistband (rand_LJFJW3ENTG, a shirt, waistband
//   and godet skirt: 258 crossings after sewing, 121 after untangling; 116 and none with the
//   waist last).
// - With self-collision, for a cloth sewn shut and still tangled: no panel passes through
//   another, but seams that must carry cloth past other cloth (collars, sleeves, waistbands)
//   can stay open (a six-panel skirt: its panels crossed at the hem beside every seam, 19
//   crossings left after untangling).
void sew_again_untangled(Run& run, Cloth& c, const garments::Pattern& pattern, const avatars::Avatar& body) {
  std::optional<cloth::ClothModel> placed = std::exchange(c.placed, std::nullopt);
  if (!placed || !run.o.self_collision || !run.o.contact || run.cancel) return;
  SewingOrder order = SewingOrder::named(c.sewing.order_kept);
  if ((c.contact->crossings() > 0 || open_pairs(c) > 0) && has_waist_joins(c, placed->x)) {
    logger().info("sewing: {} cloth edges through cloth left, {} seam pairs open; sewn again, the waist last",
                  c.contact->crossings(), open_pairs(c));
    order.waist_last = true;
    sew_again_and_compare(run, c, pattern, *placed, body, order, false, "the waist last");
    order = SewingOrder::named(c.sewing.order_kept);
  }
  if (run.cancel || c.contact->crossings() == 0 || open_pairs(c) > 0) return;
  logger().info("sewing: {} cloth edges through cloth left; sewn again with self-collision", c.contact->crossings());
  sew_again_and_compare(run, c, pattern, std::move(*placed), body, order, true, "with self-collision");
}

}  // namespace tryon::stages
