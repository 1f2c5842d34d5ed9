#pragma once
// A body in motion: its mesh at every frame, one topology. Read from a rigged body with an
// animation (avatars/skinning.hpp), a body moved by morph targets (avatars/morph_motion.hpp), a
// BVH clip on a rig (avatars/bvh.hpp), or a sequence of meshes; brought to the design's frame as the body of its first frame is (avatar.hpp).
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
  /// The body at rest (a rig's bind pose, the body a clip plays on), the same vertices; empty
  /// when the motion has none. Its shape tells the body's up axis and facing better than a
  /// frame of the motion can (a stride is taken for the width across the shoulders).
  Points3 rest;
  double fps = 30;
  std::string source;           ///< what it was read from (messages, the report)
};

/// A motion in the design's frame: the body of frame 0 as load_avatar makes it (metres, Y up,
/// facing +Z, feet at y = 0; the rest pose's axes and feet when the motion has one), and every
/// frame moved as that body was (to_body_frame), so the body walks away from where it started.
struct BodyMotion {
  Avatar body;                  ///< frame 0
  std::vector<Points3> frames;  ///< each |body.mesh.V|×3; frames[0] = body.mesh.V
  double fps = 30;
  std::string source;
  int blend_in = 0;             ///< frames 1..blend_in blend the rest pose (frame 0) into the motion
  double duration_s() const { return frames.empty() ? 0.0 : (frames.size() - 1) / fps; }
  /// The body at time t (s), linear between frames, held at the ends.
  Points3 at(double t) const;
};

/// Which frames of a motion to keep and at what rate.
struct MotionOptions {
  double fps = 30;        ///< frames a second (sampled from the animation's own keys)
  int first = 0;          ///< first frame kept
  int last = -1;          ///< last frame kept (-1: the end)
  int animation = 0;      ///< which of the file's animations (index), for a rigged or morph-target body
  /// Frames in which the body moves from its rest pose into the first frame (vertices blended
  /// linearly), played first, so the garment is draped on the rest pose (0: draped on the
  /// first frame). Needs a rest pose.
  int blend_in = 0;
  AvatarOptions avatar;   ///< how frame 0 becomes the body
};

/// Brings a raw motion to the design's frame, with `blend_in` frames from its rest pose first
/// (MotionOptions::blend_in). Throws InputError for an empty motion, frames of differing sizes,
/// non-finite positions, or a blend-in without a rest pose.
BodyMotion normalise_motion(RawMotion raw, const std::string& name, const AvatarOptions& options = {},
                            int blend_in = 0);

/// Reads a motion from:
///  - a folder of OBJ/PLY/STL meshes (one per frame, in name order, one topology),
///  - a text file listing such meshes, one path a line (relative to the list),
///  - a rigged body with an animation (glTF/GLB, COLLADA, FBX): skinned per frame,
///  - a body moved by morph targets with an animation of their weights (glTF/GLB, no skin).
/// Then keeps options.first..options.last. Throws InputError naming the problem (an animation
/// other than 0 of a mesh sequence among them).
BodyMotion load_motion(const std::filesystem::path& path, const MotionOptions& options = {});

/// Keeps frames options.first..options.last of a raw motion read otherwise (a BVH clip on a rig,
/// avatars/bvh.hpp) and brings it to the design's frame, as load_motion does.
BodyMotion finish_motion(RawMotion raw, const std::string& name, const MotionOptions& options);

/// A sequence of meshes of one topology as a raw motion at `fps`.
RawMotion read_mesh_sequence(const std::vector<std::filesystem::path>& files, double fps);

}  // namespace tryon::avatars
