#include "avatars/scene_animation.hpp"

#include <assimp/postprocess.h>

#include <cmath>

#include "core/error.hpp"
#include "core/files.hpp"

namespace tryon::avatars::animated {

namespace fs = std::filesystem;

namespace {

// Frames × vertices beyond which a motion is refused (8 bytes × 3 each: about 2.4 GB).
constexpr double max_frame_vertices = 1e8;

Eigen::Vector3d lerp_keys(const aiVectorKey* keys, unsigned n, double ticks, const Eigen::Vector3d& rest) {
  if (n == 0) return rest;
  const auto [k, a] = bracket(keys, n, ticks);
  const Eigen::Vector3d p(keys[k].mValue.x, keys[k].mValue.y, keys[k].mValue.z);
  if (a == 0) return p;
  const Eigen::Vector3d q(keys[k + 1].mValue.x, keys[k + 1].mValue.y, keys[k + 1].mValue.z);
  return (1 - a) * p + a * q;
}

Eigen::Quaterniond slerp_keys(const aiQuatKey* keys, unsigned n, double ticks, const Eigen::Quaterniond& rest) {
  if (n == 0) return rest;
  const auto to_q = [](const aiQuaternion& q) { return Eigen::Quaterniond(q.w, q.x, q.y, q.z).normalized(); };
  const auto [k, a] = bracket(keys, n, ticks);
  if (a == 0) return to_q(keys[k].mValue);
  return to_q(keys[k].mValue).slerp(a, to_q(keys[k + 1].mValue));
}

// A channel's local transform at `ticks`: translation · rotation · scaling, each interpolated
// between its keys (components without keys keep the node's own).
Mat4 channel_local(const aiNodeAnim& ch, const aiNode& node, double ticks) {
  aiVector3D s0, t0;
  aiQuaternion r0;
  node.mTransformation.Decompose(s0, r0, t0);
  const Eigen::Vector3d t = lerp_keys(ch.mPositionKeys, ch.mNumPositionKeys, ticks, {t0.x, t0.y, t0.z});
  const Eigen::Vector3d s = lerp_keys(ch.mScalingKeys, ch.mNumScalingKeys, ticks, {s0.x, s0.y, s0.z});
  const Eigen::Quaterniond r = slerp_keys(ch.mRotationKeys, ch.mNumRotationKeys, ticks,
                                          Eigen::Quaterniond(r0.w, r0.x, r0.y, r0.z).normalized());
  Mat4 m = Mat4::Identity();
  m.topLeftCorner<3, 3>() = r.toRotationMatrix() * s.asDiagonal();
  m.topRightCorner<3, 1>() = t;
  return m;
}

// Appends one triangle mesh's faces to the merged mesh's, its vertices numbered from `base`.
void append_faces(std::vector<Eigen::Vector3i>& faces, const aiMesh& mesh, int base, const std::string& what) {
  for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
    const aiFace& face = mesh.mFaces[f];
    if (face.mNumIndices != 3) continue;
    Eigen::Vector3i t;
    for (int k = 0; k < 3; ++k) {
      if (face.mIndices[k] >= mesh.mNumVertices) throw InputError(what + ": a face refers to a missing vertex");
      t[k] = base + static_cast<int>(face.mIndices[k]);
    }
    faces.push_back(t);
  }
}

}  // namespace

Mat4 to_eigen(const aiMatrix4x4& m) {
  Mat4 out;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out(r, c) = m[r][c];
  return out;
}

NodeTree node_tree(const aiScene& scene, const aiAnimation* anim) {
  NodeTree s;
  std::vector<std::pair<const aiNode*, int>> stack{{scene.mRootNode, -1}};
  while (!stack.empty()) {
    const auto [node, parent] = stack.back();
    stack.pop_back();
    const int i = static_cast<int>(s.nodes.size());
    s.nodes.push_back(node);
    s.parent.push_back(parent);
    s.channel.push_back(nullptr);
    s.index_of.emplace(node->mName.C_Str(), i);
    for (unsigned c = node->mNumChildren; c-- > 0;) stack.emplace_back(node->mChildren[c], i);
  }
  for (unsigned c = 0; anim && c < anim->mNumChannels; ++c) {
    const auto it = s.index_of.find(anim->mChannels[c]->mNodeName.C_Str());
    if (it != s.index_of.end()) s.channel[it->second] = anim->mChannels[c];
  }
  return s;
}

std::vector<Mat4> pose(const NodeTree& s, double ticks) {
  std::vector<Mat4> global(s.nodes.size());
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    const aiNode& node = *s.nodes[i];
    const Mat4 local = s.channel[i] ? channel_local(*s.channel[i], node, ticks) : to_eigen(node.mTransformation);
    global[i] = s.parent[i] < 0 ? local : Mat4(global[s.parent[i]] * local);
  }
  return global;
}

const aiScene& import_animated(Assimp::Importer& importer, const fs::path& path, const std::string& what) {
  require_readable_file(path, "animated body");
  // No aiProcess_PreTransformVertices: it drops the bones. Assimp's vertex order is kept.
  const aiScene* scene = importer.ReadFile(path.string(), aiProcess_Triangulate | aiProcess_SortByPType);
  if (!scene || !scene->mRootNode) throw InputError("cannot read " + what + ": " + importer.GetErrorString());
  return *scene;
}

const aiAnimation& chosen_animation(const aiScene& scene, int index, const std::string& what) {
  if (scene.mNumAnimations == 0) throw InputError(what + " has no animation");
  if (index < 0 || index >= static_cast<int>(scene.mNumAnimations)) {
    std::string names;
    for (unsigned a = 0; a < scene.mNumAnimations; ++a)
      names += (a ? ", " : "") + std::to_string(a) + " '" + scene.mAnimations[a]->mName.C_Str() + "'";
    throw InputError(what + ": no animation " + std::to_string(index) + " (it has " +
                     std::to_string(scene.mNumAnimations) + ", numbered from 0: " + names + ")");
  }
  return *scene.mAnimations[index];
}

std::vector<double> sample_ticks(const aiAnimation& anim, double fps, std::size_t vertices, const std::string& what) {
  if (!(fps > 0 && fps <= 1000)) throw InputError(what + ": fps must be between 0 and 1000");
  const double tps = anim.mTicksPerSecond > 0 ? anim.mTicksPerSecond : 25.0;
  const double duration = anim.mDuration / tps;
  if (!std::isfinite(duration) || duration < 0)
    throw InputError(what + ": the animation's duration is not a time (" + std::to_string(anim.mDuration) + " ticks)");
  const double count = std::round(duration * fps) + 1;
  if (count * static_cast<double>(vertices) > max_frame_vertices)
    throw InputError(what + ": " + std::to_string(duration) + " s at " + std::to_string(fps) +
                     " fps makes more than " + std::to_string(static_cast<long long>(max_frame_vertices)) +
                     " vertex positions over its frames (" + std::to_string(vertices) +
                     " vertices each), too many to hold; lower the fps");
  std::vector<double> ticks(static_cast<std::size_t>(count));
  for (std::size_t k = 0; k < ticks.size(); ++k) ticks[k] = std::min(static_cast<double>(k) / fps, duration) * tps;
  return ticks;
}

MergedMeshes merged_meshes(const aiScene& scene, const NodeTree& tree, const std::string& what, int only_node) {
  std::vector<int> node_of(scene.mNumMeshes, -1);
  for (std::size_t i = tree.nodes.size(); i-- > 0;)
    for (unsigned k = 0; k < tree.nodes[i]->mNumMeshes; ++k)
      if (tree.nodes[i]->mMeshes[k] < scene.mNumMeshes) node_of[tree.nodes[i]->mMeshes[k]] = static_cast<int>(i);
  MergedMeshes out;
  std::vector<Eigen::Vector3i> faces;
  for (unsigned m = 0; m < scene.mNumMeshes; ++m) {
    const aiMesh& mesh = *scene.mMeshes[m];
    if (node_of[m] < 0 || !(mesh.mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
    if (only_node >= 0 && node_of[m] != only_node) continue;
    append_faces(faces, mesh, out.vertices(), what);
    out.mesh.push_back(m);
    out.node.push_back(node_of[m]);
    out.first.push_back(out.vertices() + static_cast<int>(mesh.mNumVertices));
  }
  if (faces.empty()) throw InputError(what + " has no triangles (points or lines only, or empty)");
  out.F.resize(static_cast<Eigen::Index>(faces.size()), 3);
  for (std::size_t f = 0; f < faces.size(); ++f) out.F.row(static_cast<Eigen::Index>(f)) = faces[f].transpose();
  return out;
}

}  // namespace tryon::avatars::animated
