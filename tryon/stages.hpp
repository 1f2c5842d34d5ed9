#pragma once
// The drape's stages, run in this order by drape() (drape.cpp). Each takes what the stages
// before it made and leaves its result where the next one finds it:
//
//   load      pattern and body files → Pattern, Avatar      the caller's (load_pattern, load_avatar)
//   mesh      Pattern → GarmentMesh                         mesh_garment()
//   coarse    the whole drape at a coarse resolution first  coarse_start()
//   place     GarmentMesh (and the coarse drape) → Cloth    place()
//   sew       Cloth: seams closed around the body           sew()
//   untangle  Cloth: no cloth through cloth                 untangle()
//   drape     Cloth: under gravity until at rest            settle()
//   judge     Cloth → DrapeResult (quality, report)         judge()
//   write     DrapeResult → files                           save_drape() (drape.hpp)
//
// A stage for a new capability goes after the judge and works on the Cloth the drape leaves
// (drape_then): the motion's follow() (animate.hpp) is one.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "avatars/landmarks.hpp"
#include "cloth/cloth_model.hpp"
#include "cloth/contact.hpp"
#include "cloth/simulator.hpp"
#include "tryon/drape.hpp"

namespace tryon::stages {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t);

/// What the coarse start and the fine drape share: read, parsed and found once, and the time
/// the drape started (the time limit and the progress's elapsed time count from it).
struct Shared {
  cloth::Material material;
  cloth::IntegratorKind integrator;
  avatars::Landmarks landmarks;
  Clock::time_point started;
};

/// One drape's run: its options, progress and cancellation, and the frames done so far.
class Run {
 public:
  Run(const DrapeOptions& options, const Shared& shared, const DrapeProgressCallback& progress,
      const std::atomic<bool>* user_cancel)
      : o(options), shared(shared), progress_(progress), user_cancel_(user_cancel) {}

  const DrapeOptions& o;
  const Shared& shared;
  const DrapeProgressCallback& progress() const { return progress_; }
  const std::atomic<bool>* user_cancel() const { return user_cancel_; }

  /// After every frame of a phase: progress, the time limit, cancellation; remembers the
  /// positions of the last two frames (the judge's motion).
  void on_frame(const cloth::FrameReport& f, const char* phase, const Points3& x);
  /// After every frame of the motion (follow, animate.cpp): progress, the time limit, cancellation.
  void on_motion_frame(int frame, int frames, double moving_fraction);
  /// Debug log of a phase's steps, CG iterations and seconds (where the time goes).
  /// `collision_s`: the cloth's seconds in contact so far (Cloth::collision_s).
  void log_phase(const char* phase, double collision_s);
  /// Starts counting the motion and the phase figures from positions `x`.
  void start(const Points3& x, double collision_s);

  std::atomic<bool> cancel{false};  ///< set when the user cancels or the time limit passes
  bool timed_out = false;
  int frames_done = 0;              ///< frames of the phases finished so far
  /// Frames simulated and then not kept (a sewing done again another way): the progress counts
  /// them, on top of the frame limit; the frame limit does not.
  int frames_discarded = 0;
  Points3 previous, current;        ///< particle positions at the last two frames

 private:
  const DrapeProgressCallback& progress_;
  const std::atomic<bool>* user_cancel_;
  long long phase_steps_ = 0, phase_cg_ = 0;
  Clock::time_point phase_start_ = Clock::now();
  double collision_at_start_ = 0;
};

/// What each particle does while draping, from the panel it belongs to (see place.cpp).
struct ParticleRoles {
  std::vector<char> ignores_arms;  ///< do not collide with the arms (for now)
  std::vector<char> upper_torso;   ///< sewn in the first stage
  std::vector<char> keeps_ignoring_arms;  ///< a lower garment's: ignore the arms while draping too
  bool below_armpits = false;      ///< the whole garment: it ignores the arms while it drapes too
};

/// How the seams were sewn (report.json's run.sewing).
struct SewingRecord {
  /// "torso_first", then "sleeves_first" when sewn again; "…_self_collision": the order kept
  /// sewn again with self-collision
  std::vector<std::string> orders_tried;
  std::string order_kept;                 ///< empty when the cloth was not sewn
  int seam_pairs = 0, closed_pairs = 0;   ///< at the end of the sewing kept
};

/// The drape's look at a cloth not at rest at half of its frames (settle()).
struct RestReview {
  int frame = 0;         ///< the frame it looked at (sewing included)
  bool went_on = false;  ///< seams closed and no cloth through cloth: the drape went on
};

/// The cloth between the stages.
struct Cloth {
  garments::GarmentMesh garment;
  bool coarse_used = false;   ///< started from the coarse drape (seams merged)
  bool merged = false;        ///< seams merged at the start (no sewing)
  cloth::ClothModel model;
  Segments seam_particles;    ///< |S|×2 particle pairs to sew (none when merged)
  int first_sewing_spring = 0;
  ParticleRoles roles;
  cloth::ContactSettings contact_settings;
  std::unique_ptr<cloth::Contact> contact;
  cloth::SimulatorSettings settings;  ///< the drape's; the phases before it derive theirs
  double inset = 0;           ///< the body's inset while sewing (m)
  int pushed = 0;             ///< vertices pushed out of the body before the first step
  cloth::RunResult sewing_run, untangle_run, run;
  double mesh_s = 0, simulate_s = 0;
  double discarded_collision_s = 0;  ///< collision time of a sewing not kept (its contact is gone)
  SewingRecord sewing;
  std::optional<RestReview> review;  ///< when the drape was not at rest at half of its frames
  std::optional<cloth::ClothModel> placed;  ///< as placed, until no sewing can be done again
  /// Seconds in contact so far, a sewing not kept included.
  double collision_s() const { return contact->stats().seconds + discarded_collision_s; }
};

/// mesh: the pattern triangulated and placed (garments::build_garment), warnings logged.
garments::GarmentMesh mesh_garment(const garments::Pattern& pattern, const avatars::Avatar& body, const DrapeOptions& o);

// coarse: the whole pipeline at the coarse resolution, run by drape.cpp (coarse_start()).

/// place: the cloth model (seams sewn, or merged when starting from the coarse drape, whose
/// shape it takes), the particles' roles, the body contact, the simulator's settings.
Cloth place(Run& run, garments::GarmentMesh garment, const avatars::Avatar& body, const DrapeResult* coarse);

/// The body contact of a placed cloth (place() builds it; sew() again when it sews a second time).
void build_contact(Run& run, Cloth& cloth, const avatars::Avatar& body);

/// The torso's particles that ignored the arms while the seams closed and are clear of them now
/// collide with them from now on (after the sewing, or at the start from a sewn coarse drape;
/// cloth::Contact::collide_with_part_where_clear). Nothing for a garment below the armpits.
void collide_with_arms_where_clear(Cloth& cloth);
/// The torso's particles still inside an arm move out of it, to the nearest surface of the rest
/// of the body, where that folds no cloth through cloth (cloth::Contact::move_out_of_part); if
/// any did, those clear of the arms collide with them. Before the drape: caught in the arm, they
/// would go on ignoring it and rest through it.
void move_out_of_arms(Cloth& cloth);

/// A sewing spring pulls with stiffness × gap, and the last pairs of a tight seam stop where that
/// pull meets the tension of the cloth stretched around the body: 4-7 mm apart at the armpit end
/// of a fitted top's side seams (GarmentCodeData at 3 cm). A sewing that ends with pairs open
/// stitches shut those closer than this (m), and the drape closes them in any step. Closing pairs
/// at 5 mm all through the sewing instead sewed trouser legs through each other into crossings
/// the untangling left.
constexpr double kStitchShutDistance = 8e-3;

/// sew: without gravity or self-collision, the sewing springs close the seams around the body.
void sew(Run& run, Cloth& cloth, const garments::Pattern& pattern, const avatars::Avatar& body);
/// untangle: cloth the sewing left through cloth moves back until no crossing is left.
void untangle(Run& run, Cloth& cloth);
/// sew again: a cloth still through itself, or a top and skirt with seams open, is sewn again
/// from where it was placed with the waist joins last; a cloth sewn shut but still through
/// itself, with self-collision. A sewing again is kept when it leaves fewer seam pairs open, or
/// as few and fewer crossings.
void sew_again_untangled(Run& run, Cloth& cloth, const garments::Pattern& pattern, const avatars::Avatar& body);
/// drape: gravity, body and self contact, until at rest or out of frames.
void settle(Run& run, Cloth& cloth);

/// judge: the checker's verdict on the cloth, its fit maps and report.json.
DrapeResult judge(Run& run, Cloth& cloth, const garments::Pattern& pattern, const avatars::Avatar& body,
                  const std::optional<DrapeResult>& coarse, Clock::time_point t_start);

/// A stage after the drape: it gets the run, the cloth the drape left and the drape's result.
using AfterDrape = std::function<void(Run&, Cloth&, const DrapeResult&)>;
/// drape() (drape.hpp), then `after` (if set) on the fine drape's cloth.
DrapeResult drape_then(const garments::Pattern& pattern, const avatars::Avatar& body, const DrapeOptions& options,
                       const DrapeProgressCallback& progress, const std::atomic<bool>* cancel, const AfterDrape& after);

}  // namespace tryon::stages
