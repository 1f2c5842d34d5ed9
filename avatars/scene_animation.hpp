#pragma once
// What the skinned and the morph-target readers share: a file read through Assimp for its
// animation, its node tree posed at a time of one animation, the times a motion is sampled at,
// and the scene's triangle meshes merged into one as read_mesh merges them.
#include <assimp/scene.h>
#include <assimp/Importer.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/trimesh.hpp"

namespace tryon::avatars::animated {

using Mat4 = Eigen::Matrix4d;

Mat4 to_eigen(const aiMatrix4x4& m);

/// The file's node tree, parents before children, each node's animation channel (or none).
struct NodeTree {
  std::vector<const aiNode*> nodes;
  std::vector<int> parent;                        ///< -1 for the root
  std::vector<const aiNodeAnim*> channel;         ///< nullptr: the node keeps its mTransformation
  std::unordered_map<std::string, int> index_of;  ///< by node name
};

/// The tree with the channels of `anim` (none: every node at its own transform).
NodeTree node_tree(const aiScene& scene, const aiAnimation* anim);

/// Every node's global transform at `ticks` (parent global · local).
std::vector<Mat4> pose(const NodeTree& tree, double ticks);

/// The key at or before `ticks` and the fraction of the way to the next one (held at the ends).
template <typename Key>
std::pair<unsigned, double> bracket(const Key* keys, unsigned n, double ticks) {
  if (n == 1 || ticks <= keys[0].mTime) return {0, 0.0};
  if (ticks >= keys[n - 1].mTime) return {n - 1, 0.0};
  const Key* next = std::upper_bound(keys, keys + n, ticks, [](double t, const Key& k) { return t < k.mTime; });
  const auto k = static_cast<unsigned>(next - keys - 1);
  const double span = keys[k + 1].mTime - keys[k].mTime;
  return {k, span > 0 ? (ticks - keys[k].mTime) / span : 0.0};
}

/// The file read with its nodes, bones and morph targets (triangulated, no vertex welded);
/// throws InputError when Assimp cannot read it.
const aiScene& import_animated(Assimp::Importer& importer, const std::filesystem::path& path, const std::string& what);

/// Animation `index` of the scene; InputError when it has none or not that one (naming those it has).
const aiAnimation& chosen_animation(const aiScene& scene, int index, const std::string& what);

/// Sample times in ticks: round(duration·fps) + 1 of them, 1/fps s apart from 0; the last, up to
/// half a frame past the duration, is held at its end. InputError for an fps not in (0, 1000]
/// or frames that would hold too many vertex positions.
std::vector<double> sample_ticks(const aiAnimation& anim, double fps, std::size_t vertices, const std::string& what);

/// The scene's triangle meshes in scene order, each placed by the first node that holds it
/// (meshes no node holds are left out), merged: part p is scene mesh mesh[p] on node node[p],
/// its vertices first[p]..first[p+1) of the merged mesh.
struct MergedMeshes {
  std::vector<unsigned> mesh;
  std::vector<int> node;
  std::vector<int> first{0};
  Triangles F;
  int vertices() const { return first.back(); }
};

/// The merged meshes (only those of node `only_node` when it is not -1); InputError without a triangle.
MergedMeshes merged_meshes(const aiScene& scene, const NodeTree& tree, const std::string& what, int only_node = -1);

}  // namespace tryon::avatars::animated
