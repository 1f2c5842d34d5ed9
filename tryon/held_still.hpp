#pragma once
// Whether a sewing is held still: sewn with self-collision, a cloth can come to a state where
// in every step some cloth would pass through cloth and the fail-safe sends it back where it
// was, step after step. Nothing in the sewing changes then but the fail-safe's count; on the
// GarmentCodeData samples, such a sewing stayed so to the end of its budget (docs/population.md).

namespace tryon::stages {

/// Counts the frames in a row in which the fail-safe left a step it could not settle
/// (cloth::Contact::held_back()) and no more seam pairs were closed than ever before (pairs
/// the fail-safe opens again and that close again are no progress).
class HeldStill {
 public:
  /// How many such frames in a row make a sewing held still.
  static constexpr int kFrames = 30;

  /// `closed_pairs`: the seam pairs closed before the first frame.
  explicit HeldStill(int closed_pairs) : most_closed_(closed_pairs) {}
  /// Counts the frame just run; true once the last kFrames frames were all held.
  bool frame(bool held_back, int closed_pairs) {
    held_ = held_back && closed_pairs <= most_closed_ ? held_ + 1 : 0;
    if (closed_pairs > most_closed_) most_closed_ = closed_pairs;
    return held_ >= kFrames;
  }

 private:
  int most_closed_ = 0, held_ = 0;
};

}  // namespace tryon::stages
