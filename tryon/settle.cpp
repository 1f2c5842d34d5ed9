// The drape stage (stages.hpp): the sewn cloth under gravity until it rests.
#include <algorithm>

#include "core/logger.hpp"
#include "quality/quality.hpp"
#include "tryon/stages.hpp"

namespace tryon::stages {
namespace {

// N/m, body contacts' penalty stiffness in the drape: a 1 N load sinks 1 mm into the 2.5 mm
// contact layer. Measured at 600 frames, 3 cm, on the slim tank on makehuman_female: 1e4 N/m
// 6.9 % moving, 3e3 N/m 7.8 %, 1e3 N/m clean at frame 349 (at 3.05 cm clean at 151, at 2.95 cm
// 5.5 % moving); the skirts rest clean with each.
constexpr double kBodyStiffness = 1e3;

// At half of the frames a drape may take (max_frames, sewing included), a drape not at rest goes
// on only while its seams are closed and no cloth is through cloth: resting longer rarely undoes
// those (GarmentCodeData at 3 cm, every second sample, not at rest at frame 600: the 3 clean but
// for their motion came to rest by frame 1,200; none of the 15 with cloth through cloth or a
// seam open ended clean).
bool goes_on_past_review(const cloth::Contact& contact, const Points3& x) {
  return contact.crossings() == 0 && contact.seam_gap(x) < quality::kSeamGapClosed;
}

}  // namespace

void settle(Run& run, Cloth& c) {
  // Body contact as penalty forces in the implicit solve, so the cloth can settle where the
  // body's push balances gravity and tension (see cloth::PenaltyContacts). Not while sewing:
  // the slim tank on makehuman_female closed 25 of 38 seam pairs in 150 frames with them
  // (1e4 N/m), all 38 in 47 frames with the projection.
  if (run.shared.integrator == cloth::IntegratorKind::implicit_euler) c.contact->set_body_stiffness(kBodyStiffness);
  // Seam pairs the sewing left open a few millimetres apart close when the drape brings them
  // within the stitching distance of the sewing's end.
  c.contact->set_seam_close_distance(kStitchShutDistance);
  if (run.o.contact) move_out_of_arms(c);
  cloth::Simulator sim(std::move(c.model), c.settings);
  if (run.o.contact) sim.set_contact(c.contact.get());
  if (!run.cancel) {
    auto on_frame = [&](const cloth::FrameReport& f) { run.on_frame(f, "drape", sim.model().x); };
    // The review is at half of max_frames; a drape that starts later has none.
    const int frames = std::max(1, run.o.max_frames - run.frames_done);
    const int review = run.o.max_frames / 2 - run.frames_done;
    c.run = sim.run(review > 0 ? review : frames, on_frame, &run.cancel);
    if (review > 0 && c.run.status == cloth::RunStatus::frame_limit) {
      c.review = {run.frames_done + c.run.frames, goes_on_past_review(*c.contact, sim.model().x)};
      logger().info("drape: not at rest at frame {}; {}", c.review->frame,
                    c.review->went_on ? "seams closed, no cloth through cloth: it goes on"
                                      : "cloth through cloth or a seam open: it stops");
      if (c.review->went_on) c.run = sim.run(frames - review, on_frame, &run.cancel);
    }
  } else {
    c.run.status = cloth::RunStatus::cancelled;
  }
  if (run.timed_out && c.run.status == cloth::RunStatus::cancelled) c.run.status = cloth::RunStatus::time_limit;
  run.log_phase("drape", c.collision_s());
  c.run.frames += run.frames_done;
  c.run.steps += c.sewing_run.steps + c.untangle_run.steps;
  c.run.sim_time += c.sewing_run.sim_time + c.untangle_run.sim_time;
  c.model = sim.model();
}

}  // namespace tryon::stages
