// The sew and untangle stages (stages.hpp): the phases before the drape, without gravity.
#include <cmath>

#include "core/logger.hpp"
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

/// Sewing in two stages: the seam pairs whose particles are both upper torso close first; the
/// others wait with their sewing springs slack until release(). Sewn all at once, the sleeves,
/// placed out along the arms, pulled the torso's armholes outwards, and the shoulder seams slid
/// off the shoulders before they closed (measured: the shirt spec on mean_all at 3 cm went down
/// to the waist, 119 of 139 pairs closed; torso first, it stays on the shoulders and 139 of 139
/// close).
class SewingStages {
 public:
  SewingStages(const Segments& seams, const std::vector<char>& first_stage, int first_sewing_spring,
               cloth::ClothModel& model)
      : seams_(seams), first_spring_(first_sewing_spring) {
    bool any_first = false;
    for (Eigen::Index i = 0; i < seams.rows(); ++i) {
      if (first_stage[seams(i, 0)] && first_stage[seams(i, 1)]) {
        any_first = true;
        first_.push_back(static_cast<int>(i));
      } else {
        later_.push_back(static_cast<int>(i));
      }
    }
    if (!any_first) later_.clear();  // nothing to sew first: one stage
    for (int i : later_) {
      stiffness_.push_back(model.springs.stiffness[first_spring_ + i]);
      damping_.push_back(model.springs.damping[first_spring_ + i]);
      model.springs.stiffness[first_spring_ + i] = 0;
      model.springs.damping[first_spring_ + i] = 0;
    }
  }
  bool waiting() const { return !later_.empty() && !released_; }
  /// Whether every pair of the first stage is closer than `distance`.
  bool first_closed(ConstRef<Points3> x, double distance) const {
    for (int i : first_)
      if ((x.row(seams_(i, 0)) - x.row(seams_(i, 1))).norm() > distance) return false;
    return true;
  }
  void release(cloth::ClothModel& model) {
    for (std::size_t k = 0; k < later_.size(); ++k) {
      model.springs.stiffness[first_spring_ + later_[k]] = stiffness_[k];
      model.springs.damping[first_spring_ + later_[k]] = damping_[k];
    }
    released_ = true;
  }

 private:
  const Segments& seams_;
  int first_spring_;
  std::vector<int> first_, later_;
  std::vector<double> stiffness_, damping_;
  bool released_ = false;
};

/// Names the seams still open after sewing: a pattern maker can see which ones did not close.
void log_open_seams(const Cloth& c, const garments::Pattern& pattern) {
  std::vector<double> open_gap(pattern.stitches.size(), 0.0);
  for (Eigen::Index i = 0; i < c.seam_particles.rows(); ++i)
    open_gap[c.garment.stitch_of_pair[i]] =
        std::max(open_gap[c.garment.stitch_of_pair[i]],
                 (c.model.x.row(c.seam_particles(i, 0)) - c.model.x.row(c.seam_particles(i, 1))).norm());
  for (std::size_t st = 0; st < open_gap.size(); ++st)
    if (open_gap[st] >= c.contact_settings.sew_distance)
      logger().info("seam {} ({} edge {} to {} edge {}) still open by {:.1f} mm", st,
                    pattern.panels[pattern.stitches[st].a.panel].name, pattern.stitches[st].a.edge,
                    pattern.panels[pattern.stitches[st].b.panel].name, pattern.stitches[st].b.edge,
                    1000 * open_gap[st]);
}

/// The sewing run: closing budget, then the body grows back by kBodyGrowthPerFrame a frame
/// (less than the contact thickness, so the cloth it reaches is still outside and is pushed out
/// with it). Upper torso seams first (SewingStages), the others once those are closed or half
/// the closing budget is spent.
cloth::RunResult run_sewing(Run& run, Cloth& c) {
  cloth::Contact& contact = *c.contact;
  cloth::Simulator sim(std::move(c.model), weightless(c.settings));  // ends when the seams are closed
  if (run.o.contact) sim.set_contact(&contact);
  std::atomic<bool> sewn{false};
  const int close_frames = std::max(1, std::min(run.o.max_frames / 2, 240));
  const double growth_step = c.inset > 0 ? std::min(1.0, kBodyGrowthPerFrame / c.inset) : 1.0;
  const int grow_frames = c.inset > 0 ? static_cast<int>(std::ceil(1.0 / growth_step)) : 0;
  bool growing = c.inset <= 0;
  SewingStages stages(c.seam_particles, c.roles.upper_torso, c.first_sewing_spring, sim.model());
  const double sew_distance = c.contact_settings.sew_distance;
  const cloth::RunResult result = sim.run(close_frames + grow_frames, [&](const cloth::FrameReport& f) {
    if (stages.waiting() && (stages.first_closed(sim.model().x, sew_distance) || f.frame >= close_frames / 2)) {
      logger().info("sewing: the seams below and beside the upper torso start at frame {}", f.frame);
      stages.release(sim.model());
    }
    run.on_frame(f, "sewing", sim.model().x);
    if (run.cancel) sewn = true;
    const bool all_closed = contact.closed_seam_pairs() == contact.num_seam_pairs();
    if (!growing && (all_closed || f.frame >= close_frames)) growing = true;
    if (growing && c.inset > 0) contact.set_body_growth(contact.body_growth() + growth_step);
    if (growing && contact.body_growth() >= 1 && (all_closed || f.frame >= close_frames + grow_frames)) sewn = true;
  }, &sewn);
  if (c.inset > 0) contact.set_body_growth(1);
  c.model = sim.model();
  c.model.v.setZero();
  return result;
}

}  // namespace

void sew(Run& run, Cloth& c, const garments::Pattern& pattern) {
  if (c.merged || c.seam_particles.rows() == 0) return;
  cloth::Contact& contact = *c.contact;
  // No self-collision (the panels' edges must meet), no friction (panels slide into place), nor
  // strain limiting on the body: it holds back panel edges the seams must stretch to close
  // (measured: skirt_2_panels on mean_all at 3 cm, 43 of 48 pairs closed with it).
  contact.set_self_collision(false);
  contact.set_friction(0.0);
  contact.set_strain_limit_sweeps(0);
  c.sewing_run = run_sewing(run, c);
  run.frames_done = c.sewing_run.frames;
  run.log_phase("sewing", contact);
  logger().info("sewing: {} of {} seam pairs closed after {} frames, gap {:.1f} mm", contact.closed_seam_pairs(),
                contact.num_seam_pairs(), c.sewing_run.frames, 1000 * contact.seam_gap(c.model.x));
  log_open_seams(c, pattern);
  // The torso panels of a top ignored the arms while they were sewn; sewn, they fell through
  // the arms as they draped (the dress on makehuman_female at 3 cm: 6 cloth edges through the
  // arm at the back of the armhole, 2 vertices inside; 0 and 0 when they collide again).
  if (!c.roles.below_armpits) {
    const int clear = contact.collide_with_part_where_clear(c.model, c.roles.keeps_ignoring_arms);
    logger().info("contact: {} particles clear of the arms collide with them from now on", clear);
  }
  contact.set_self_collision(run.o.self_collision);
  contact.set_friction(run.shared.material.friction);
  contact.set_strain_limit_sweeps(c.contact_settings.strain_limit_sweeps);
}

// The sewing ran without self-collision, and panel edges on their way to their partners can
// pass through other cloth (the shirt spec on makehuman_female at 2.98 cm: the sleeve's
// underarm seam through the torso's side seam at both armpits, 39 edges through triangles).
// Cloth in a crossing moves along its direction of untangling, here without gravity and with a
// longer stride than in the drape, until no crossing is left or the budget is spent; with none,
// the drape starts at once.
void untangle(Run& run, Cloth& c) {
  if (!run.o.self_collision || !run.o.contact || run.cancel) return;
  cloth::Contact& contact = *c.contact;
  contact.begin_frame(c.model, 0.0);
  const int found = contact.crossings();
  if (found == 0) return;
  contact.set_untangle_step(kUntangleStep);
  cloth::Simulator sim(std::move(c.model), weightless(c.settings));  // ends when the crossings are undone
  sim.set_contact(&contact);
  std::atomic<bool> undone{false};
  int fewest = found, fewest_frame = 0;
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
        }
        if (contact.crossings() == 0 || f.frame - fewest_frame >= kUntangleStall || run.cancel) undone = true;
      },
      &undone);
  run.frames_done += c.untangle_run.frames;
  run.log_phase("untangling", contact);
  c.model = sim.model();
  c.model.v.setZero();
  contact.set_untangle_step(c.contact_settings.untangle_step);
  logger().info("untangling: {} cloth edges through cloth after sewing, {} after {} frames", found,
                contact.crossings(), c.untangle_run.frames);
}

}  // namespace tryon::stages
