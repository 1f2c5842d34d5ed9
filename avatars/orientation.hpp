#pragma once
// Which way a body file stands: its up axis and the way it faces, found from its shape, so that
// a body can be brought to the design's frame (Y up, facing +Z) whatever frame its file uses.
#include <optional>
#include <string>

#include "core/trimesh.hpp"

namespace tryon::avatars {

/// A signed coordinate axis of a file: axis 0 = x, 1 = y, 2 = z; sign ±1.
struct SignedAxis {
  int axis = 1;
  int sign = 1;
  std::string name() const;  ///< "+x", "-z", ...
  Vec3 vector() const;       ///< the unit vector
  bool operator==(const SignedAxis&) const = default;
};
/// The signed axis nearest to direction `d`.
SignedAxis nearest_axis(const Vec3& d);

/// What the shape says (or, where it is ambiguous, what is assumed).
struct BodyFrameGuess {
  SignedAxis up{1, 1};
  bool up_detected = false;    ///< false: assumed (the file's +Y, or the axis given)
  std::string up_how;          ///< the evidence, or why it is assumed
  SignedAxis facing{2, 1};     ///< in the file's frame (guess_facing: in the frame it was given)
  bool facing_detected = false;
  std::string facing_how;
};

/// The body's up axis: the one along which it is clearly longest (more than 1.15 times any
/// other), or, for a body about as wide as tall (arms held out, a T-pose), the one whose two
/// ends are cut into two loops (the legs) at one end and one (the head) at the other; its sign
/// points from the feet (two loops) to the head. `given` skips the search (the user's axis;
/// its sign is still found from the feet when they can be told). Unit-free: works on the file
/// as read.
BodyFrameGuess guess_up(const TriMesh& body, std::optional<int> given_axis = std::nullopt);

/// The way a body with +Y up faces: across the wider horizontal axis (the shoulders span the
/// other), towards the toes: the soles (the lowest 3 % of the height) lie ahead of the ankles
/// (6–10 %). Ambiguous (no feet, feet as long behind as ahead): +Z, as the design assumes.
void guess_facing(const TriMesh& body_y_up, BodyFrameGuess& guess);

/// The rotation that takes `up` to +Y (a quarter or half turn about a coordinate axis).
Mat3 rotation_up_to_y(const SignedAxis& up);
/// The rotation about +Y that takes a horizontal `facing` (x or z) to +Z.
Mat3 rotation_facing_to_z(const SignedAxis& facing);

}  // namespace tryon::avatars
