#pragma once
// A body in motion: its mesh at every frame, one topology. Read from a rigged body with an
// animation (avatars/skinning.hpp), a BVH clip on a rig (avatars/bvh.hpp), or a sequence of
// meshes; brought to the design's frame as the body of its first frame is (avatar.hpp).
#include <filesystem>
#include <string>
#include <vector>

#include "avatars/avatar.hpp"
#include "core/trimesh.hpp"

namespace tryon::avatars {

/// A motion as read, in the file's units and axes: frame 0's mesh and the vertices of every
/// frame (frame 0 included) over its triangles, sampled at `fps`.
struct RawMotion {
  TriMesh first;
  std::vector<Points3> frames;  ///< each |first.V|×3
  double fps = 30;
  std::string source;           ///< what it was read from (messages, the report)
};

/// A motion in the design's frame: the body of frame 0 as load_avatar makes it (metres, Y up,
/// facing +Z, feet at y = 0), and every frame moved as frame 0 was (to_body_frame), so the
/// body walks away from where it started.
struct BodyMotion {
  Avatar body;                  ///< frame 0
  std::vector<Points3> frames;  ///< each |body.mesh.V|×3; frames[0] = body.mesh.V
  double fps = 30;
  std::string source;
  double duration_s() const { return frames.empty() ? 0.0 : (frames.size() - 1) / fps; }
  /// The body at time t (s), linear between frames, held at the ends.
  Points3 at(double t) const;
};

/// Which frames of a motion to keep and at what rate.
struct MotionOptions {
  double fps = 30;        ///< frames a second (sampled from the animation's own keys)
  int first = 0;          ///< first frame kept
  int last = -1;          ///< last frame kept (-1: the end)
  AvatarOptions avatar;   ///< how frame 0 becomes the body
};

/// Brings a raw motion to the design's frame. Throws InputError for an empty motion, frames of
/// differing sizes or non-finite positions.
BodyMotion normalise_motion(RawMotion raw, const std::string& name, const AvatarOptions& options = {});

/// Reads a motion from:
///  - a folder of OBJ/PLY/STL meshes (one per frame, in name order, one topology),
///  - a text file listing such meshes, one path a line (relative to the list),
///  - a rigged body with an animation (glTF/GLB, COLLADA, FBX): skinned per frame.
/// Then keeps options.first..options.last. Throws InputError naming the problem.
BodyMotion load_motion(const std::filesystem::path& path, const MotionOptions& options = {});

/// A sequence of meshes of one topology as a raw motion at `fps`.
RawMotion read_mesh_sequence(const std::vector<std::filesystem::path>& files, double fps);

}  // namespace tryon::avatars
