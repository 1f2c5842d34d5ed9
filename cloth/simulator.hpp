#pragma once
// The drape loop: frames of 1/60 s split into substeps, strain limiting, seam closing,
// temporary pins, a contact hook, rest detection and NaN/explosion rollback.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cloth/cloth_model.hpp"
#include "cloth/integrators.hpp"
#include "cloth/strain_limit.hpp"

namespace tryon::cloth {

/// Where body contact and self-collision plug in (implemented by the collision side, not here).
class ContactStage {
 public:
  virtual ~ContactStage() = default;
  /// Called once per frame before its first step, with the state at the frame start (e.g. to
  /// refit bounding volume trees). `time` is the simulated time (s).
  virtual void begin_frame(const ClothModel& model, double time) {}
  /// Called before every step, with the simulated time at its start and its length (s): a
  /// moving collider takes its pose at the step's end here.
  virtual void begin_step(const ClothModel& model, double time, double dt) {}
  /// True when the stage stopped cloth during the last frame for want of a resolution (the
  /// simulator then does not take the frame's stillness for rest).
  virtual bool held_back() const { return false; }
  /// Particle pairs the stage holds together (closed seams), for strain limiting to treat each
  /// as one particle; null when there are none.
  virtual const Segments* joined_particles() const { return nullptr; }
  /// Outward body normals under the particles resting on the body after the last step (|P|×3,
  /// zero rows for the others), for the implicit integrator's contact filter; null for none.
  virtual const Points3* resting_normals() const { return nullptr; }
  /// The velocity of a moving body under the resting particles (|P|×3), their friction's
  /// reference; null when the body stands still.
  virtual const Points3* resting_velocities() const { return nullptr; }
  /// Body contacts as penalty forces for the implicit integrator (found after the last step);
  /// null when the stage projects contacts instead.
  virtual const PenaltyContacts* penalty_contacts() const { return nullptr; }
  /// Coulomb coefficient between the cloth and the body (for the resting contacts).
  virtual double body_friction() const { return 0; }
  /// Called once per step after integration and strain limiting. May correct the candidate
  /// positions x_new and velocities v_new (|P|×3); x_prev (|P|×3) are the positions at the
  /// start of the step. Must leave pinned particles (model.inv_mass == 0) where they are.
  virtual void resolve(const ClothModel& model, ConstRef<Points3> x_prev, Points3& x_new,
                       Points3& v_new, double dt) = 0;
};

/// A one-sided constraint on a particle: it stays where (x − point)·normal ≥ 0, as
/// GarmentCode's attachment constraints hold a waistband above the waist or a neckline on the
/// shoulders while a garment is sewn and settles [Korosteleva et al. 2024]. A particle on the
/// wrong side moves back towards the plane by at most `SimulatorSettings::attachment_speed`.
struct Attachment {
  int particle = 0;
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitY();  ///< unit
};

struct SimulatorSettings {
  IntegratorKind integrator = IntegratorKind::implicit_euler;
  double frame_dt = 1.0 / 60.0;  ///< s; moving_fraction is measured over one frame
  /// Target step (s); 0 = automatic: explicit_stable_dt for explicit Euler, frame_dt /
  /// implicit_substeps for implicit Euler. Each frame uses ceil(frame_dt / dt) equal steps.
  double dt = 0;
  int implicit_substeps = 2;
  double stable_dt_safety = 0.9;
  Vec3 gravity{0.0, -9.81, 0.0};
  int zero_gravity_frames = 0;   ///< frames without gravity at the start (seams close first)
  bool strain_limiting = true;   ///< [Provot 1995] with Material::strain_limit
  int strain_limit_sweeps = 100;
  /// Springs that start longer than their strain limit (spanning a seam gap) have their rest
  /// length shortened at this speed (m/s) until it reaches the 2D rest length.
  double seam_close_speed = 0.2;
  /// Sewing springs (SpringKind::sewing) pull with at most stiffness × this (m) of stretch.
  double sewing_max_pull = 0.05;
  /// A stitch whose seam pairs are all closer than this (m) is sewn: its seam cross springs
  /// switch on (switch_on_sewn_seams). The contact's sew_distance by default too.
  double seam_sewn_distance = 2e-3;
  /// Particles pinned for the first pin_frames frames (e.g. labelled_particles(...)).
  std::vector<int> temporary_pins;
  int pin_frames = 0;
  /// Half-space constraints held for the first attachment_frames frames (never static before
  /// they are released).
  std::vector<Attachment> attachments;
  int attachment_frames = 0;
  double attachment_speed = 0.2;  ///< m/s: how fast a particle on the wrong side is brought back
  // Rest detection (docs/report.md): static when fewer than static_fraction of the garment's vertices
  // moved more than static_displacement during the last frame (a particle counts once for each
  // vertex it stands for, as the checker counts them).
  double static_displacement = 3e-4;  ///< m
  double static_fraction = 0.015;
  int min_frames = 10;  ///< never static before this frame (nor before the pins are released)
  // Explosion: non-finite state, or a speed above explode_speed (m/s) in a step's candidate.
  double explode_speed = 50.0;
  int max_retries = 5;  ///< each retry of a frame halves the step (for the rest of the run)
  double max_wall_seconds = 0;  ///< run() stops with time_limit after this wall time (0: none)
  ImplicitSettings cg;
};

/// What happened in one frame (given to the progress callback).
struct FrameReport {
  int frame = 0;            ///< frames completed
  double time = 0;          ///< simulated time (s)
  int steps = 0;            ///< steps in this frame
  double dt = 0;            ///< step used (s)
  double moving_fraction = 1;
  int cg_iterations = 0;    ///< implicit: total CG iterations in this frame
  int retries = 0;          ///< rollbacks of this frame
  int degenerate = 0;       ///< degenerate element evaluations (zero-length springs...) seen
};

enum class RunStatus { static_reached, frame_limit, time_limit, cancelled, failed };
std::string run_status_name(RunStatus status);

struct RunResult {
  RunStatus status = RunStatus::frame_limit;
  std::string reason;       ///< why it failed (failed only)
  int frames = 0;
  long long steps = 0;
  double sim_time = 0;      ///< s
  double moving_fraction = 1;
  bool is_static = false;
  int rollbacks = 0;
  double dt = 0;            ///< last step used (s)
};

/// Runs the cloth. Owns the model; the state after a failure is the last good one (finite).
class Simulator {
 public:
  Simulator(ClothModel model, SimulatorSettings settings = {});
  ~Simulator();

  /// Attaches a contact stage (not owned; nullptr removes it).
  void set_contact(ContactStage* contact) { contact_ = contact; }

  /// One step of size dt, no rollback. Returns false (state unchanged) if the candidate state is
  /// not finite or too fast; `why` then says which.
  bool step(double dt, std::string* why = nullptr);

  /// One frame with rollback: on explosion restores the frame start and retries with half the
  /// step, up to max_retries. Returns false (state = frame start) if every retry failed.
  bool advance_frame(FrameReport& report, std::string* why = nullptr);

  /// Frames until static, max_frames, max_wall_seconds, cancel or failure. The progress
  /// callback is called after every frame.
  RunResult run(int max_frames, const std::function<void(const FrameReport&)>& progress = {},
                const std::atomic<bool>* cancel = nullptr);

  /// Step size the next frame will use (s).
  double current_dt() const;

  /// The step the following frames aim at (SimulatorSettings::dt, > 0) and the explosion speed
  /// that goes with it; the halvings of earlier rollbacks still apply.
  void set_step(double dt, double explode_speed);

  const ClothModel& model() const { return model_; }
  ClothModel& model() { return model_; }
  const SimulatorSettings& settings() const { return settings_; }
  int frame() const { return frame_; }
  double time() const { return time_; }
  /// Share of the garment's vertices that moved more than static_displacement during the last
  /// frame (of the particles, for a model with no garment vertices).
  double moving_fraction() const { return moving_fraction_; }

 private:
  void update_pins();
  void apply_attachments(double dt);
  ClothModel model_;
  SimulatorSettings settings_;
  ContactStage* contact_ = nullptr;
  std::unique_ptr<ImplicitEuler> implicit_;
  ForceWorkspace ws_;
  std::vector<char> permanently_pinned_;
  std::vector<int> vertices_of_particle_;  ///< garment vertices per particle (rest detection)
  int num_vertices_ = 0;
  Points3 x_new_, v_new_, x_limited_;
  int frame_ = 0;
  double time_ = 0;
  double step_time_ = 0;  ///< simulated time at the next step's start
  double moving_fraction_ = 1;
  int refinement_ = 0;  ///< the step is divided by 2^refinement_ after rollbacks
  long long steps_ = 0;
  int rollbacks_ = 0;
  int cg_iterations_frame_ = 0;
  int degenerate_frame_ = 0;
};

/// Particles of the garment vertices with the given labels (sorted, unique); unknown labels
/// are ignored.
std::vector<int> labelled_particles(const ClothModel& model, const garments::GarmentMesh& garment,
                                    const std::vector<std::string>& labels);

}  // namespace tryon::cloth
