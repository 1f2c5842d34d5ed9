#pragma once
// A body moved by morph targets (blend shapes): the meshes of a glTF/GLB whose target weights an
// animation plays, as `tryon animate --with-body` writes the body's motion.
#include <filesystem>

#include "avatars/motion.hpp"

namespace tryon::avatars {

/// Reads a body moved by morph targets through Assimp and samples animation `animation` (index)
/// at every 1/fps s from 0 to its duration inclusive, as read_skinned_animation does. Each
/// target's weight is linear between its keys and held at the ends; a vertex is at
/// base + Σ w_i (target_i − base), then placed by its mesh's node (animated or not), in the
/// file's scene frame. The rest pose is the base meshes (every weight 0) on their nodes.
/// The body: every triangle mesh, merged as read_mesh merges them; in a GLB tryon wrote
/// (generator "tryon outputs", the garment beside the body) only node "body", and without that
/// node the file is refused. Throws InputError naming the problem: no morph target, no
/// animation or not that one, an animation that moves no target of the body, a target of
/// another size than its mesh, a non-finite weight, unreadable.
RawMotion read_morph_animation(const std::filesystem::path& path, double fps, int animation = 0);

/// Whether the file's meshes carry morph targets and none is bound to bones (what
/// read_morph_animation reads, animated or not). False for files Assimp cannot read.
bool has_morph_targets(const std::filesystem::path& path);

}  // namespace tryon::avatars
