#pragma once
// A rigged body with an animation, skinned per frame: the meshes of a glTF/GLB, COLLADA or FBX
// file deformed by its skeleton's pose at every sample of one of its animations.
#include <filesystem>

#include "avatars/motion.hpp"

namespace tryon::avatars {

/// Reads a rigged body with an animation (glTF/GLB, COLLADA, FBX through Assimp) and skins it:
/// linear blend skinning of its meshes (merged into one, as read_mesh merges them) at every
/// 1/fps s of animation `animation` (index), from 0 to the animation's duration inclusive:
/// round(duration·fps) + 1 frames at k/fps s (a time past the duration held at its end). Positions are in the
/// file's scene frame (each mesh's node transforms applied, as read_mesh gives them at the bind pose). Throws
/// InputError (core/error.hpp) naming the problem: no animation, no skinned mesh, unreadable.
RawMotion read_skinned_animation(const std::filesystem::path& path, double fps, int animation = 0);

/// The same meshes skinned at the bind pose (every node at its own transform, no animation):
/// read_mesh's positions, in its vertex order for a single mesh, when the rig's offset matrices
/// match its nodes. Throws InputError as read_skinned_animation does.
TriMesh read_skinned_bind_pose(const std::filesystem::path& path);

/// Whether the file holds an animation Assimp reads (cheap enough to call before choosing a
/// reader). False for files Assimp cannot read.
bool has_animation(const std::filesystem::path& path);

}  // namespace tryon::avatars
