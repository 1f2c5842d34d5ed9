#include "avatars/skinning.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/Importer.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "core/files.hpp"

namespace tryon::avatars {

namespace fs = std::filesystem;

namespace {

using Mat4 = Eigen::Matrix4d;
using Mat34 = Eigen::Matrix<double, 3, 4>;

// Frames × vertices beyond which a motion is refused (8 bytes × 3 each: about 2.4 GB).
constexpr double max_frame_vertices = 1e8;

Mat4 to_eigen(const aiMatrix4x4& m) {
  Mat4 out;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out(r, c) = m[r][c];
  return out;
}

// The file's node tree, parents before children, each node's animation channel (or none).
struct Skeleton {
  std::vector<const aiNode*> nodes;
  std::vector<int> parent;                        // -1 for the root
  std::vector<const aiNodeAnim*> channel;         // nullptr: the node keeps its mTransformation
  std::unordered_map<std::string, int> index_of;  // by node name
};

Skeleton skeleton_of(const aiScene& scene, const aiAnimation* anim) {
  Skeleton s;
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

// The key at or before `ticks` and the fraction of the way to the next one (held at the ends).
template <typename Key>
std::pair<unsigned, double> bracket(const Key* keys, unsigned n, double ticks) {
  if (n == 1 || ticks <= keys[0].mTime) return {0, 0.0};
  if (ticks >= keys[n - 1].mTime) return {n - 1, 0.0};
  const Key* next =
      std::upper_bound(keys, keys + n, ticks, [](double t, const Key& k) { return t < k.mTime; });
  const auto k = static_cast<unsigned>(next - keys - 1);
  const double span = keys[k + 1].mTime - keys[k].mTime;
  return {k, span > 0 ? (ticks - keys[k].mTime) / span : 0.0};
}

Eigen::Vector3d lerp_keys(const aiVectorKey* keys, unsigned n, double ticks, const Eigen::Vector3d& rest) {
  if (n == 0) return rest;
  const auto [k, a] = bracket(keys, n, ticks);
  const Eigen::Vector3d p(keys[k].mValue.x, keys[k].mValue.y, keys[k].mValue.z);
  if (a == 0) return p;
  const Eigen::Vector3d q(keys[k + 1].mValue.x, keys[k + 1].mValue.y, keys[k + 1].mValue.z);
  return (1 - a) * p + a * q;
}

Eigen::Quaterniond slerp_keys(const aiQuatKey* keys, unsigned n, double ticks,
                              const Eigen::Quaterniond& rest) {
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

// Every node's global transform at `ticks` (parent global · local).
std::vector<Mat4> pose(const Skeleton& s, double ticks) {
  std::vector<Mat4> global(s.nodes.size());
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    const aiNode& node = *s.nodes[i];
    const Mat4 local =
        s.channel[i] ? channel_local(*s.channel[i], node, ticks) : to_eigen(node.mTransformation);
    global[i] = s.parent[i] < 0 ? local : Mat4(global[s.parent[i]] * local);
  }
  return global;
}

struct Influence {
  int joint;
  double weight;
};

// The merged meshes and how each vertex follows the skeleton: joint j moves mesh space by
// global[node[j]] · offset[j]; vertex v by the weighted sum over influences[start[v]..start[v+1]).
struct Rig {
  std::vector<int> joint_node;
  std::vector<Mat4> offset;
  std::vector<Eigen::Vector3d> rest;
  std::vector<int> start{0};
  std::vector<Influence> influences;
  std::vector<Eigen::Vector3i> faces;
  bool skinned = false;  // some mesh has bones
};

int add_joint(Rig& rig, int node, const Mat4& offset) {
  rig.joint_node.push_back(node);
  rig.offset.push_back(offset);
  return static_cast<int>(rig.joint_node.size()) - 1;
}

// Each vertex's influences in one mesh, weights normalised to sum 1; a vertex no bone weighs
// follows the mesh's node.
std::vector<std::vector<Influence>> mesh_influences(Rig& rig, const aiMesh& mesh, int mesh_node,
                                                    const Skeleton& s, const std::string& what) {
  std::vector<std::vector<Influence>> per_vertex(mesh.mNumVertices);
  for (unsigned b = 0; b < mesh.mNumBones; ++b) {
    const aiBone& bone = *mesh.mBones[b];
    const auto it = s.index_of.find(bone.mName.C_Str());
    if (it == s.index_of.end())
      throw InputError(what + ": bone '" + bone.mName.C_Str() + "' names no node of the scene");
    const int joint = add_joint(rig, it->second, to_eigen(bone.mOffsetMatrix));
    for (unsigned w = 0; w < bone.mNumWeights; ++w) {
      const aiVertexWeight& vw = bone.mWeights[w];
      if (vw.mVertexId >= mesh.mNumVertices) throw InputError(what + ": a bone weighs a missing vertex");
      if (vw.mWeight > 0 && std::isfinite(vw.mWeight))
        per_vertex[vw.mVertexId].push_back({joint, vw.mWeight});
    }
  }
  int own = -1;
  for (auto& list : per_vertex) {
    double sum = 0;
    for (const Influence& i : list) sum += i.weight;
    for (Influence& i : list) i.weight /= sum;
    if (!list.empty()) continue;
    if (own < 0) own = add_joint(rig, mesh_node, Mat4::Identity());
    list.push_back({own, 1.0});
  }
  return per_vertex;
}

// Appends one triangle mesh (vertices, faces, influences) to the rig.
void add_mesh(Rig& rig, const aiMesh& mesh, int mesh_node, const Skeleton& s, const std::string& what) {
  const int base = static_cast<int>(rig.rest.size());
  for (unsigned v = 0; v < mesh.mNumVertices; ++v)
    rig.rest.emplace_back(mesh.mVertices[v].x, mesh.mVertices[v].y, mesh.mVertices[v].z);
  for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
    const aiFace& face = mesh.mFaces[f];
    if (face.mNumIndices != 3) continue;
    Eigen::Vector3i t;
    for (int k = 0; k < 3; ++k) {
      if (face.mIndices[k] >= mesh.mNumVertices)
        throw InputError(what + ": a face refers to a missing vertex");
      t[k] = base + static_cast<int>(face.mIndices[k]);
    }
    rig.faces.push_back(t);
  }
  for (const auto& list : mesh_influences(rig, mesh, mesh_node, s, what)) {
    rig.influences.insert(rig.influences.end(), list.begin(), list.end());
    rig.start.push_back(static_cast<int>(rig.influences.size()));
  }
  rig.skinned = rig.skinned || mesh.mNumBones > 0;
}

// The scene's triangle meshes in scene order, each placed by the first node that holds it
// (meshes no node holds are not part of the scene and are left out).
Rig rig_of(const aiScene& scene, const Skeleton& s, const std::string& what) {
  std::vector<int> node_of(scene.mNumMeshes, -1);
  for (std::size_t i = s.nodes.size(); i-- > 0;)
    for (unsigned k = 0; k < s.nodes[i]->mNumMeshes; ++k)
      if (s.nodes[i]->mMeshes[k] < scene.mNumMeshes) node_of[s.nodes[i]->mMeshes[k]] = static_cast<int>(i);
  Rig rig;
  for (unsigned m = 0; m < scene.mNumMeshes; ++m)
    if (node_of[m] >= 0 && (scene.mMeshes[m]->mPrimitiveTypes & aiPrimitiveType_TRIANGLE))
      add_mesh(rig, *scene.mMeshes[m], node_of[m], s, what);
  if (rig.faces.empty()) throw InputError(what + " has no triangles (points or lines only, or empty)");
  if (!rig.skinned) throw InputError(what + " has no skinned mesh (no mesh is bound to bones)");
  return rig;
}

// Linear blend skinning [Magnenat-Thalmann, Laperrière, Thalmann 1988, "Joint-dependent local
// deformations for hand animation and object grasping"; Assimp's aiBone: "mOffsetMatrix
// transforms from mesh space to bone space in bind pose"]:
//   v' = Σ_b w_b · Global(bone node b) · mOffsetMatrix_b · v
// Assimp's viewer (tools/assimp_view/SceneAnimator.cpp, GetBoneMatrices) takes the bone matrices
// to mesh space with the inverse of the mesh node's global transform and draws the mesh with that
// transform: the two cancel, leaving the scene-frame position above (the root node's transform
// kept, as read_mesh's aiProcess_PreTransformVertices keeps it). Unweighted vertices: v' = Global(mesh node)
// · v.
Points3 skin(const Rig& rig, const std::vector<Mat4>& global) {
  std::vector<Mat34> joint(rig.joint_node.size());
  for (std::size_t j = 0; j < joint.size(); ++j)
    joint[j] = (global[rig.joint_node[j]] * rig.offset[j]).topRows<3>();
  Points3 out(static_cast<Eigen::Index>(rig.rest.size()), 3);
  for (std::size_t v = 0; v < rig.rest.size(); ++v) {
    Mat34 m = Mat34::Zero();
    for (int i = rig.start[v]; i < rig.start[v + 1]; ++i)
      m += rig.influences[i].weight * joint[rig.influences[i].joint];
    out.row(static_cast<Eigen::Index>(v)) = (m.leftCols<3>() * rig.rest[v] + m.col(3)).transpose();
  }
  return out;
}

const aiAnimation& chosen_animation(const aiScene& scene, int animation, const std::string& what) {
  if (scene.mNumAnimations == 0) throw InputError(what + " has no animation");
  if (animation < 0 || animation >= static_cast<int>(scene.mNumAnimations))
    throw InputError(what + ": no animation " + std::to_string(animation) + " (it has " +
                     std::to_string(scene.mNumAnimations) + ", numbered from 0)");
  return *scene.mAnimations[animation];
}

// Sample times in ticks: round(duration·fps) + 1 of them, 1/fps s apart from 0; the last, up to
// half a frame past the duration, is held at its end.
std::vector<double> sample_ticks(const aiAnimation& anim, double fps, std::size_t vertices,
                                 const std::string& what) {
  const double tps = anim.mTicksPerSecond > 0 ? anim.mTicksPerSecond : 25.0;
  const double duration = anim.mDuration / tps;
  if (!std::isfinite(duration) || duration < 0)
    throw InputError(what + ": the animation's duration is not a time (" + std::to_string(anim.mDuration) +
                     " ticks)");
  const double count = std::round(duration * fps) + 1;
  if (count * static_cast<double>(vertices) > max_frame_vertices)
    throw InputError(what + ": " + std::to_string(duration) + " s at " + std::to_string(fps) +
                     " fps makes more than " + std::to_string(static_cast<long long>(max_frame_vertices)) +
                     " vertex positions over its frames (" + std::to_string(vertices) +
                     " vertices each), too many to hold; lower the fps");
  std::vector<double> ticks(static_cast<std::size_t>(count));
  for (std::size_t k = 0; k < ticks.size(); ++k)
    ticks[k] = std::min(static_cast<double>(k) / fps, duration) * tps;
  return ticks;
}

// The file read for skinning; throws InputError when Assimp cannot read it.
const aiScene& import_rigged(Assimp::Importer& importer, const fs::path& path, const std::string& what) {
  require_readable_file(path, "rigged body");
  // No aiProcess_PreTransformVertices: it drops the bones. Assimp's vertex order is kept.
  const aiScene* scene = importer.ReadFile(path.string(), aiProcess_Triangulate | aiProcess_SortByPType);
  if (!scene || !scene->mRootNode) throw InputError("cannot read " + what + ": " + importer.GetErrorString());
  return *scene;
}

Triangles triangles_of(const Rig& rig) {
  Triangles F(static_cast<Eigen::Index>(rig.faces.size()), 3);
  for (std::size_t f = 0; f < rig.faces.size(); ++f)
    F.row(static_cast<Eigen::Index>(f)) = rig.faces[f].transpose();
  return F;
}

}  // namespace

RawMotion read_skinned_animation(const fs::path& path, double fps, int animation) {
  const std::string what = "rigged body '" + path.string() + "'";
  if (!(fps > 0 && fps <= 1000)) throw InputError(what + ": fps must be between 0 and 1000");
  Assimp::Importer importer;
  const aiScene& scene = import_rigged(importer, path, what);
  const aiAnimation& anim = chosen_animation(scene, animation, what);
  const Skeleton skeleton = skeleton_of(scene, &anim);
  const Rig rig = rig_of(scene, skeleton, what);
  RawMotion raw;
  raw.fps = fps;
  raw.source = path.string();
  for (const double t : sample_ticks(anim, fps, rig.rest.size(), what))
    raw.frames.push_back(skin(rig, pose(skeleton, t)));
  raw.first.V = raw.frames.front();
  raw.first.F = triangles_of(rig);
  raw.rest = skin(rig, pose(skeleton_of(scene, nullptr), 0));
  return raw;
}

TriMesh read_skinned_bind_pose(const fs::path& path) {
  const std::string what = "rigged body '" + path.string() + "'";
  Assimp::Importer importer;
  const aiScene& scene = import_rigged(importer, path, what);
  const Skeleton skeleton = skeleton_of(scene, nullptr);
  const Rig rig = rig_of(scene, skeleton, what);
  TriMesh mesh;
  mesh.V = skin(rig, pose(skeleton, 0));
  mesh.F = triangles_of(rig);
  return mesh;
}

bool has_animation(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(path.string(), 0);
  return scene && scene->mRootNode && scene->mNumAnimations > 0;
}

}  // namespace tryon::avatars
