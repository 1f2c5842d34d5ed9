#pragma once
// A garment following a moving body: draped on the motion's first frame as drape() drapes,
// then the follow stage moves the body frame by frame, the cloth with it, and the checker
// judges every frame. `tryon animate`, the C++ facade and the Python module go through
// animate() and save_animation().
#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "avatars/motion.hpp"
#include "tryon/drape.hpp"

namespace tryon {

struct AnimateOptions {
  DrapeOptions drape;  ///< the drape on the first frame (its max_frames and time limit too)
  /// The body moves at most this far in one step (m) where it can touch the cloth: the steps
  /// of a frame follow from the fastest body triangle near the garment, at least drape.substeps.
  /// Less than the cloth–cloth distance the contact keeps (1.5 mm), so a layer the body pushes
  /// does not pass another in one step.
  double max_step_travel_m = 1e-3;
};

/// The checker's figures for one frame of the motion.
struct MotionFrameQuality {
  int frame = 0;
  double time_s = 0;
  quality::Quality quality;
  int self_intersecting_vertices = 0;  ///< vertices of cloth edges in self intersections
  int steps = 0;                       ///< simulation steps taken to reach the frame (0: the drape)
};

struct AnimateResult {
  DrapeResult drape;                 ///< the drape on the first frame (its report)
  std::vector<Points3> frames;       ///< garment vertex positions per motion frame (frame 0: the drape)
  std::vector<MotionFrameQuality> quality;  ///< per frame written
  bool clean = false;                ///< every frame clean by the motion's rule (report.json)
  nlohmann::json report;             ///< docs/report.md, "motion" keys
};

/// Drapes `pattern` on the motion's first frame, then follows the motion. Throws InputError for
/// bad options before any work; a run that fails, is cancelled or runs out of time returns the
/// frames done and a report saying so.
AnimateResult animate(const garments::Pattern& pattern, const avatars::BodyMotion& motion,
                      const AnimateOptions& options = {}, const DrapeProgressCallback& progress = {},
                      const std::atomic<bool>* cancel = nullptr);

/// Writes OUTDIR/garment.glb (the garment with one morph target per frame and an animation
/// playing them; with `with_body` the body's motion too), optionally preview frames
/// (preview_NNNN.png for every `preview_every`-th frame), and report.json last, each file under a
/// temporary name renamed when complete.
nlohmann::json save_animation(const AnimateResult& result, const avatars::BodyMotion& motion,
                              const std::filesystem::path& outdir, const SaveOptions& options = {},
                              int preview_every = 0);

}  // namespace tryon
