#include "cloth/simulator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/error.hpp"
#include "core/logger.hpp"

namespace tryon::cloth {

std::string run_status_name(RunStatus status) {
  switch (status) {
    case RunStatus::static_reached: return "static";
    case RunStatus::frame_limit: return "frame_limit";
    case RunStatus::time_limit: return "time_limit";
    case RunStatus::cancelled: return "cancelled";
    case RunStatus::failed: return "failed";
  }
  return "unknown";
}

namespace {
void check_settings(const SimulatorSettings& s, int num_particles) {
  auto require = [](bool ok, const char* text) {
    if (!ok) throw InputError(std::string("simulator settings: ") + text);
  };
  require(std::isfinite(s.frame_dt) && s.frame_dt > 0, "frame_dt must be > 0");
  require(std::isfinite(s.dt) && s.dt >= 0, "dt must be >= 0 (0 = automatic)");
  require(s.implicit_substeps >= 1, "implicit_substeps must be >= 1");
  require(s.stable_dt_safety > 0 && s.stable_dt_safety <= 1, "stable_dt_safety must be in (0, 1]");
  require(s.gravity.allFinite(), "gravity must be finite");
  require(s.strain_limit_sweeps >= 1, "strain_limit_sweeps must be >= 1");
  require(s.seam_close_speed > 0, "seam_close_speed must be > 0");
  require(s.static_displacement > 0 && s.static_fraction > 0, "rest thresholds must be > 0");
  require(s.explode_speed > 0, "explode_speed must be > 0");
  require(s.max_retries >= 0, "max_retries must be >= 0");
  require(s.max_wall_seconds >= 0, "max_wall_seconds must be >= 0");
  for (int p : s.temporary_pins) require(p >= 0 && p < num_particles, "temporary pin out of range");
  for (const Attachment& a : s.attachments) {
    require(a.particle >= 0 && a.particle < num_particles, "attachment particle out of range");
    require(a.point.allFinite() && std::abs(a.normal.norm() - 1) < 1e-6, "attachment needs a point and a unit normal");
  }
  require(s.attachment_speed > 0, "attachment_speed must be > 0");
}

// Empty string if the state is finite and slower than max_speed, else the reason.
std::string check_state(const Points3& x, const Points3& v, double max_speed) {
  if (!x.allFinite() || !v.allFinite()) return "non-finite position or velocity (NaN/inf)";
  const double speed = v.rowwise().norm().maxCoeff();
  if (speed > max_speed)
    return "explosion: speed " + std::to_string(speed) + " m/s above " + std::to_string(max_speed);
  return {};
}
}  // namespace

Simulator::Simulator(ClothModel model, SimulatorSettings settings)
    : model_(std::move(model)), settings_(std::move(settings)) {
  check_settings(settings_, model_.num_particles());
  permanently_pinned_.resize(model_.num_particles());
  for (int p = 0; p < model_.num_particles(); ++p) permanently_pinned_[p] = model_.pinned(p);
  // A particle stands for each garment vertex merged into it (seam pairs); a model built
  // without garment vertices counts its particles.
  vertices_of_particle_.assign(model_.num_particles(), model_.particle_of_vertex.empty() ? 1 : 0);
  for (int p : model_.particle_of_vertex)
    if (p >= 0 && p < model_.num_particles()) ++vertices_of_particle_[p];
  for (int n : vertices_of_particle_) num_vertices_ += n;
  if (settings_.integrator == IntegratorKind::implicit_euler)
    implicit_ = std::make_unique<ImplicitEuler>(model_, settings_.cg);
  update_pins();
}

Simulator::~Simulator() = default;

void Simulator::update_pins() {
  const bool pin = frame_ < settings_.pin_frames;
  for (int p : settings_.temporary_pins)
    model_.set_pinned(p, pin || permanently_pinned_[p]);
  if (pin) {
    for (int p : settings_.temporary_pins) model_.v.row(p).setZero();
  }
}

void Simulator::apply_attachments(double dt) {
  const double reach = settings_.attachment_speed * dt;
  for (const Attachment& a : settings_.attachments) {
    if (model_.pinned(a.particle)) continue;
    const Vec3 x = x_new_.row(a.particle).transpose();
    const double d = (x - a.point).dot(a.normal);
    if (d >= 0) continue;
    x_new_.row(a.particle) += std::min(-d, reach) * a.normal.transpose();
    const double vn = v_new_.row(a.particle).dot(a.normal.transpose());
    if (vn < 0) v_new_.row(a.particle) -= vn * a.normal.transpose();
  }
}

double Simulator::current_dt() const {
  double base = settings_.dt;
  if (base == 0) {
    base = settings_.integrator == IntegratorKind::explicit_euler
               ? explicit_stable_dt(model_, model_.x, settings_.stable_dt_safety)
               : settings_.frame_dt / settings_.implicit_substeps;
  }
  base = std::ldexp(base, -refinement_);
  const double steps = std::max(1.0, std::ceil(settings_.frame_dt / base - 1e-9));
  return settings_.frame_dt / steps;
}

void Simulator::set_step(double dt, double explode_speed) {
  if (!(std::isfinite(dt) && dt > 0)) throw InputError("simulator: a step must be > 0");
  if (!(explode_speed > 0)) throw InputError("simulator: explode_speed must be > 0");
  settings_.dt = dt;
  settings_.explode_speed = explode_speed;
}

bool Simulator::step(double dt, std::string* why) {
  if (contact_) contact_->begin_step(model_, step_time_, dt);
  const Vec3 gravity = frame_ < settings_.zero_gravity_frames ? Vec3::Zero() : settings_.gravity;
  if (settings_.integrator == IntegratorKind::explicit_euler) {
    explicit_euler_step(model_, dt, gravity, ws_, x_new_, v_new_);
  } else {
    implicit_->step(model_, dt, gravity, ws_, x_new_, v_new_, contact_ ? contact_->resting_normals() : nullptr,
                    contact_ ? contact_->body_friction() : 0.0, contact_ ? contact_->penalty_contacts() : nullptr,
                    contact_ ? contact_->resting_velocities() : nullptr);
    cg_iterations_frame_ += implicit_->last_stats().cg_iterations;
  }
  degenerate_frame_ += ws_.degenerate;
  std::string problem = check_state(x_new_, v_new_, settings_.explode_speed);
  if (problem.empty() && settings_.strain_limiting) {
    // [Provot 1995]: positions limited, velocities corrected by the same displacement / dt.
    x_limited_ = x_new_;
    StrainLimitConstraints joined;
    joined.joined = contact_ ? contact_->joined_particles() : nullptr;
    limit_strain(model_, model_.material.strain_limit, x_limited_, settings_.strain_limit_sweeps, 1e-4, joined);
    v_new_ += (x_limited_ - x_new_) / dt;
    x_new_.swap(x_limited_);
    problem = check_state(x_new_, v_new_, settings_.explode_speed);
  }
  if (problem.empty() && frame_ < settings_.attachment_frames) apply_attachments(dt);
  if (problem.empty() && contact_) {
    contact_->resolve(model_, model_.x, x_new_, v_new_, dt);
    problem = check_state(x_new_, v_new_, settings_.explode_speed);
    if (!problem.empty()) problem = "after contact: " + problem;
  }
  if (!problem.empty()) {
    if (why) *why = problem;
    return false;
  }
  model_.x.swap(x_new_);
  model_.v.swap(v_new_);
  // Seam closing: over-long rest lengths shrink towards the 2D rest length.
  Springs& S = model_.springs;
  for (int s = 0; s < S.size(); ++s) {
    if (S.rest_now[s] > S.rest[s])
      S.rest_now[s] = std::max(S.rest[s], S.rest_now[s] - settings_.seam_close_speed * dt);
    if (S.kind[s] == SpringKind::sewing) {
      // A sewing spring pulls with a capped force: its rest length never lags more than
      // sewing_max_pull behind the pair's distance, so a seam held back by the body pulls
      // with at most k · sewing_max_pull instead of building up an explosive force.
      const double len = (model_.x.row(S.ends(s, 0)) - model_.x.row(S.ends(s, 1))).norm();
      S.rest_now[s] = std::max(S.rest_now[s], len - settings_.sewing_max_pull);
    }
  }
  switch_on_sewn_seams(model_, model_.x, settings_.seam_sewn_distance);
  ++steps_;
  step_time_ += dt;
  return true;
}

bool Simulator::advance_frame(FrameReport& report, std::string* why) {
  update_pins();
  const Points3 x0 = model_.x, v0 = model_.v;
  const Eigen::VectorXd rest0 = model_.springs.rest_now;
  const long long steps0 = steps_;
  std::string problem;
  for (int attempt = 0; attempt <= settings_.max_retries; ++attempt) {
    const double dt = current_dt();
    const int n = static_cast<int>(std::lround(settings_.frame_dt / dt));
    cg_iterations_frame_ = 0;
    degenerate_frame_ = 0;
    step_time_ = time_;
    if (contact_) contact_->begin_frame(model_, time_);
    bool ok = true;
    for (int i = 0; i < n && ok; ++i) ok = step(dt, &problem);
    if (ok) {
      int moving = 0;
      const double thr2 = settings_.static_displacement * settings_.static_displacement;
      for (int p = 0; p < model_.num_particles(); ++p)
        if ((model_.x.row(p) - x0.row(p)).squaredNorm() > thr2) moving += vertices_of_particle_[p];
      moving_fraction_ = static_cast<double>(moving) / std::max(1, num_vertices_);
      if (contact_ && contact_->held_back()) moving_fraction_ = std::max(moving_fraction_, 1.0);  // not rest
      ++frame_;
      time_ += settings_.frame_dt;
      report.frame = frame_;
      report.time = time_;
      report.steps = n;
      report.dt = dt;
      report.moving_fraction = moving_fraction_;
      report.cg_iterations = cg_iterations_frame_;
      report.retries = attempt;
      report.degenerate = degenerate_frame_;
      if (degenerate_frame_ > 0)
        logger().debug("cloth: frame {}: {} degenerate element evaluations", frame_, degenerate_frame_);
      return true;
    }
    model_.x = x0;
    model_.v = v0;
    model_.springs.rest_now = rest0;
    steps_ = steps0;
    ++rollbacks_;
    logger().warn("cloth: frame {} rolled back ({}), retrying with dt = {:.3g} s", frame_ + 1,
                  problem, 0.5 * dt);
    ++refinement_;
  }
  if (why)
    *why = "frame " + std::to_string(frame_ + 1) + " failed after " +
           std::to_string(settings_.max_retries) + " retries with smaller steps: " + problem;
  return false;
}

RunResult Simulator::run(int max_frames, const std::function<void(const FrameReport&)>& progress,
                         const std::atomic<bool>* cancel) {
  RunResult result;
  const int last = frame_ + max_frames;
  const int settle_from =
      std::max({settings_.min_frames, settings_.pin_frames > 0 ? settings_.pin_frames + 1 : 0,
                settings_.attachments.empty() ? 0 : settings_.attachment_frames + 1});
  result.status = RunStatus::frame_limit;
  const auto start = std::chrono::steady_clock::now();
  while (frame_ < last) {
    if (cancel && cancel->load()) {
      result.status = RunStatus::cancelled;
      break;
    }
    if (settings_.max_wall_seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
            settings_.max_wall_seconds) {
      result.status = RunStatus::time_limit;
      break;
    }
    FrameReport report;
    std::string why;
    if (!advance_frame(report, &why)) {
      result.status = RunStatus::failed;
      result.reason = why;
      logger().error("cloth: {}", why);
      break;
    }
    if (progress) progress(report);
    result.dt = report.dt;
    if (frame_ >= settle_from && moving_fraction_ < settings_.static_fraction) {
      result.status = RunStatus::static_reached;
      break;
    }
  }
  result.frames = frame_;
  result.steps = steps_;
  result.sim_time = time_;
  result.moving_fraction = moving_fraction_;
  result.is_static = frame_ >= settle_from && moving_fraction_ < settings_.static_fraction;
  result.rollbacks = rollbacks_;
  if (result.dt == 0) result.dt = current_dt();
  return result;
}

std::vector<int> labelled_particles(const ClothModel& model, const garments::GarmentMesh& garment,
                                    const std::vector<std::string>& labels) {
  std::vector<int> out;
  for (const auto& label : labels) {
    const auto it = garment.labelled_vertices.find(label);
    if (it == garment.labelled_vertices.end()) continue;
    for (int v : it->second) {
      if (v < 0 || v >= static_cast<int>(model.particle_of_vertex.size()))
        throw InputError("garment label '" + label + "' has a vertex index out of range");
      out.push_back(model.particle_of_vertex[v]);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace tryon::cloth
