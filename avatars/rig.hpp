#pragma once
// A skinning rig for a body mesh: bones with rest head and tail positions and per-vertex
// weights, read from MakeHuman's default.mhskel + default_weights.mhw and carried to a body
// derived from MakeHuman's base mesh; posed bones skin the body by linear blend skinning
// (Magnenat-Thalmann, Laperrière & Thalmann 1988, "Joint-dependent local deformations for
// hand animation and object grasping", Graphics Interface '88).
#include <filesystem>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace tryon::avatars {

struct RigBone {
  std::string name;
  int parent = -1;  ///< index in Rig::bones (parents come first), -1 for a root
  Vec3 head = Vec3::Zero();
  Vec3 tail = Vec3::Zero();
};

/// Per-vertex bone weights, compressed rows: vertex v's weights are
/// (bone[k], weight[k]) for k in [start[v], start[v+1]); they sum to 1.
struct SkinWeights {
  std::vector<int> start;
  std::vector<int> bone;
  std::vector<double> weight;
};

struct Rig {
  std::vector<RigBone> bones;               ///< a parent before its children
  SkinWeights weights;                      ///< one row per body vertex
  int bone(const std::string& name) const;  ///< index, or -1
};

/// Posed bones: each bone's rotation from its rest orientation (world frame) and its head.
struct RigPose {
  std::vector<Mat3> rotation;
  std::vector<Vec3> head;
};

/// A point written as an affine combination of mesh vertices: p = Σ weights[i]·V[vertices[i]],
/// Σ weights = 1. Exact under any affine map of the mesh, and it follows the mesh's local
/// shape where the mesh deforms smoothly.
struct PointAnchor {
  std::vector<int> vertices;
  std::vector<double> weights;
};

/// Anchors `p` to vertices 0..`candidates`-1 of `V`: the nearest ones, plus the nearest few
/// in each octant around p within reach (so a point inside a limb or the trunk is surrounded),
/// with the affine weights of least norm that reproduce p.
PointAnchor anchor_point(ConstRef<Points3> V, int candidates, const Vec3& p);
Vec3 place(const PointAnchor& anchor, ConstRef<Points3> V);

/// The MakeHuman rig on a body: bones from `mhskel`, weights from `mhw`. Joint positions are
/// the means of the base mesh vertices the skeleton lists; a joint whose vertices all belong to
/// the body is that mean on the body, any other is anchored to the base mesh's body vertices
/// (anchor_point) and placed on the body. Vertex i of `body_V` is vertex i of `base_V`
/// transformed (targets, scale, translation). Weights on vertices beyond the body are dropped,
/// each vertex's weights normalised; a vertex with none follows the root bone.
/// Throws InputError for malformed files, unknown bones or joints, indices beyond the base mesh,
/// or a body with more vertices than the base mesh.
Rig read_makehuman_rig(const std::filesystem::path& mhskel, const std::filesystem::path& mhw,
                       ConstRef<Points3> base_V, ConstRef<Points3> body_V);

/// The .mhskel and .mhw of `rig`: a .mhskel file (its .mhw beside it with the same stem, else
/// default_weights.mhw) or a folder holding default.mhskel + default_weights.mhw.
std::pair<std::filesystem::path, std::filesystem::path> makehuman_rig_files(const std::filesystem::path& rig);

/// Every bone at rest (identity rotations, rest heads).
RigPose rest_pose(const Rig& rig);

/// Linear blend skinning: v' = Σ_b w_b (R_b (v − head_b^rest) + head_b^pose).
Points3 skin(const Rig& rig, ConstRef<Points3> rest_V, const RigPose& pose);

}  // namespace tryon::avatars
