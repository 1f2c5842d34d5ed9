#include "avatars/skinning.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "avatars/scene_animation.hpp"
#include "core/error.hpp"

namespace tryon::avatars {

namespace fs = std::filesystem;

namespace {

using namespace animated;
using Mat34 = Eigen::Matrix<double, 3, 4>;

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
  MergedMeshes meshes;
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
                                                    const NodeTree& s, const std::string& what) {
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

// The merged meshes' vertices and their influences; InputError when no mesh is bound to bones.
Rig rig_of(const aiScene& scene, const NodeTree& s, const std::string& what) {
  Rig rig;
  rig.meshes = merged_meshes(scene, s, what);
  for (std::size_t p = 0; p < rig.meshes.mesh.size(); ++p) {
    const aiMesh& mesh = *scene.mMeshes[rig.meshes.mesh[p]];
    for (unsigned v = 0; v < mesh.mNumVertices; ++v)
      rig.rest.emplace_back(mesh.mVertices[v].x, mesh.mVertices[v].y, mesh.mVertices[v].z);
    for (const auto& list : mesh_influences(rig, mesh, rig.meshes.node[p], s, what)) {
      rig.influences.insert(rig.influences.end(), list.begin(), list.end());
      rig.start.push_back(static_cast<int>(rig.influences.size()));
    }
    rig.skinned = rig.skinned || mesh.mNumBones > 0;
  }
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

}  // namespace

RawMotion read_skinned_animation(const fs::path& path, double fps, int animation) {
  const std::string what = "rigged body '" + path.string() + "'";
  Assimp::Importer importer;
  const aiScene& scene = import_animated(importer, path, what);
  const aiAnimation& anim = chosen_animation(scene, animation, what);
  const NodeTree skeleton = node_tree(scene, &anim);
  const Rig rig = rig_of(scene, skeleton, what);
  RawMotion raw;
  raw.fps = fps;
  raw.source = path.string();
  for (const double t : sample_ticks(anim, fps, rig.rest.size(), what))
    raw.frames.push_back(skin(rig, pose(skeleton, t)));
  raw.first.V = raw.frames.front();
  raw.first.F = rig.meshes.F;
  raw.rest = skin(rig, pose(node_tree(scene, nullptr), 0));
  return raw;
}

TriMesh read_skinned_bind_pose(const fs::path& path) {
  const std::string what = "rigged body '" + path.string() + "'";
  Assimp::Importer importer;
  const aiScene& scene = import_animated(importer, path, what);
  const NodeTree skeleton = node_tree(scene, nullptr);
  const Rig rig = rig_of(scene, skeleton, what);
  TriMesh mesh;
  mesh.V = skin(rig, pose(skeleton, 0));
  mesh.F = rig.meshes.F;
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
