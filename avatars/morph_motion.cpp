#include "avatars/morph_motion.hpp"

#include <assimp/commonMetaData.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "avatars/scene_animation.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace tryon::avatars {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using namespace animated;

// The generator tryon's GLB writer (outputs/glb.cpp) names in the file's asset.
const std::string tryon_generator = "tryon outputs";

// The glTF document's JSON: the file itself (.gltf) or its first chunk (.glb); null when it is
// not one.
json gltf_json(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (has_extension(path, ".gltf")) return json::parse(std::istreambuf_iterator<char>(in), {}, nullptr, false);
  std::uint32_t head[5] = {};  // magic, version, length; the first chunk's length and type
  if (!in.read(reinterpret_cast<char*>(head), sizeof head) || head[0] != 0x46546C67u || head[4] != 0x4E4F534Au)
    return json();
  std::error_code ec;
  if (head[3] > fs::file_size(path, ec) || ec) return json();
  std::string text(head[3], '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size()))) return json();
  return json::parse(text, nullptr, false);
}

// Assimp reads a glTF morph target whose positions are not one a vertex as no change at all,
// with a warning only: the file's own accessor counts are compared instead.
void check_target_sizes(const fs::path& path, const std::string& what) {
  if (!has_extension(path, ".gltf") && !has_extension(path, ".glb")) return;
  const json doc = gltf_json(path);
  if (!doc.is_object()) return;
  try {
    const json& accessors = doc.at("accessors");
    const auto count = [&](const json& index) { return accessors.at(index.get<std::size_t>()).at("count").get<long long>(); };
    for (const json& mesh : doc.value("meshes", json::array())) {
      const json primitives = mesh.value("primitives", json::array());
      for (std::size_t p = 0; p < primitives.size(); ++p) {
        const json targets = primitives[p].value("targets", json::array());
        const long long n = targets.empty() ? 0 : count(primitives[p].at("attributes").at("POSITION"));
        for (std::size_t t = 0; t < targets.size(); ++t)
          if (targets[t].contains("POSITION") && count(targets[t]["POSITION"]) != n)
            throw InputError(what + ": mesh '" + mesh.value("name", std::string()) + "' (primitive " + std::to_string(p) +
                             "): morph target " + std::to_string(t) + " has " +
                             std::to_string(count(targets[t]["POSITION"])) + " positions for " + std::to_string(n) +
                             " vertices (a target moves every vertex of its mesh)");
      }
    }
  } catch (const json::exception&) {
    // A document Assimp read but these lookups cannot follow: Assimp's reading stands.
  }
}

bool named(const aiNode& node, const char* name) { return std::strcmp(node.mName.C_Str(), name) == 0; }

// The node whose meshes are the body: -1 (every mesh) but in a GLB tryon wrote, its node "body"
// (not a panel of the garment named so, below node "garment").
int body_node(const aiScene& scene, const NodeTree& tree, const std::string& what) {
  aiString generator;
  if (!scene.mMetaData || !scene.mMetaData->Get(AI_METADATA_SOURCE_GENERATOR, generator) ||
      tryon_generator != generator.C_Str())
    return -1;
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    if (!named(*tree.nodes[i], "body")) continue;
    int up = tree.parent[i];
    while (up >= 0 && !named(*tree.nodes[up], "garment")) up = tree.parent[up];
    if (up < 0) return static_cast<int>(i);
  }
  throw InputError(what + " was written by tryon without the body (--with-body): it holds a garment's motion, "
                          "not a body's");
}

// One mesh of the body, its morph targets and the channel of the animation that weighs them
// (none: the mesh's own weights).
struct MorphPart {
  const aiMesh* mesh = nullptr;
  const aiMeshMorphAnim* channel = nullptr;
};

// Refuses a channel whose keys name targets the mesh does not have or hold non-finite numbers.
void check_channel(const aiMeshMorphAnim& ch, unsigned targets, const std::string& what) {
  const std::string channel = what + ": the weights of '" + ch.mName.C_Str() + "'";
  for (unsigned k = 0; k < ch.mNumKeys; ++k) {
    const aiMeshMorphKey& key = ch.mKeys[k];
    if (key.mNumValuesAndWeights > targets)  // Assimp 5.2 reads a CUBICSPLINE sampler's 3 values a target so
      throw InputError(channel + " have " + std::to_string(key.mNumValuesAndWeights) + " values a key for " +
                       std::to_string(targets) + " targets, as Assimp reads a CUBICSPLINE sampler: export LINEAR weights");
    for (unsigned i = 0; i < key.mNumValuesAndWeights; ++i) {
      if (key.mValues[i] >= targets)
        throw InputError(channel + " name target " + std::to_string(key.mValues[i]) + ", its mesh has " +
                         std::to_string(targets));
      if (!std::isfinite(key.mWeights[i]) || !std::isfinite(key.mTime))
        throw InputError(channel + ": key " + std::to_string(k) + " has a non-finite weight or time");
    }
  }
}

// The channel of `anim` that weighs the targets of a mesh on `node`: named as the node (glTF) or
// as the mesh; nullptr when none does.
const aiMeshMorphAnim* channel_of(const aiAnimation& anim, const aiNode& node, const aiMesh& mesh) {
  for (const aiString& name : {node.mName, mesh.mName})
    for (unsigned c = 0; c < anim.mNumMorphMeshChannels; ++c)
      if (anim.mMorphMeshChannels[c]->mNumKeys > 0 && anim.mMorphMeshChannels[c]->mName == name)
        return anim.mMorphMeshChannels[c];
  return nullptr;
}

// The body's meshes with their targets and channels; InputError for a target of another size
// than its mesh, a bad channel, or an animation that weighs no target of the body.
std::vector<MorphPart> morph_parts(const aiScene& scene, const NodeTree& tree, const MergedMeshes& merged,
                                   const aiAnimation& anim, const std::string& what) {
  std::vector<MorphPart> parts;
  bool animated = false;
  for (std::size_t p = 0; p < merged.mesh.size(); ++p) {
    MorphPart part{scene.mMeshes[merged.mesh[p]], nullptr};
    for (unsigned t = 0; t < part.mesh->mNumAnimMeshes; ++t)
      if (part.mesh->mAnimMeshes[t]->mVertices && part.mesh->mAnimMeshes[t]->mNumVertices != part.mesh->mNumVertices)
        throw InputError(what + ": a morph target of mesh '" + part.mesh->mName.C_Str() + "' has " +
                         std::to_string(part.mesh->mAnimMeshes[t]->mNumVertices) + " vertices, the mesh " +
                         std::to_string(part.mesh->mNumVertices));
    if (part.mesh->mNumAnimMeshes > 0) part.channel = channel_of(anim, *tree.nodes[merged.node[p]], *part.mesh);
    if (part.channel) check_channel(*part.channel, part.mesh->mNumAnimMeshes, what);
    animated = animated || part.channel;
    parts.push_back(part);
  }
  if (!animated)
    throw InputError(what + ": animation '" + anim.mName.C_Str() + "' weighs no morph target of the body (" +
                     std::to_string(anim.mNumMorphMeshChannels) + " morph target channels, none on its meshes)");
  return parts;
}

using Weights = std::vector<std::vector<double>>;  // per part, per target

// Every target's weight at `ticks`: linear between its channel's keys, held at the ends.
Weights weights_at(const std::vector<MorphPart>& parts, double ticks) {
  Weights out;
  for (const MorphPart& p : parts) {
    std::vector<double> w(p.mesh->mNumAnimMeshes, 0.0);
    if (!p.channel) {
      for (unsigned t = 0; t < w.size(); ++t) w[t] = p.mesh->mAnimMeshes[t]->mWeight;
    } else {
      const auto [k, a] = bracket(p.channel->mKeys, p.channel->mNumKeys, ticks);
      const auto add = [&w](const aiMeshMorphKey& key, double f) {
        for (unsigned i = 0; i < key.mNumValuesAndWeights; ++i) w[key.mValues[i]] += f * key.mWeights[i];
      };
      add(p.channel->mKeys[k], 1 - a);
      if (a > 0) add(p.channel->mKeys[k + 1], a);
    }
    out.push_back(std::move(w));
  }
  return out;
}

Points3 positions(const aiVector3D* v, unsigned n) {
  static_assert(sizeof(aiVector3D) == 3 * sizeof(ai_real));
  using Rows = Eigen::Matrix<ai_real, Eigen::Dynamic, 3, Eigen::RowMajor>;
  return Eigen::Map<const Rows>(&v->x, n, 3).cast<double>();
}

// The body's vertices: each mesh's base moved by its weighted targets (Assimp holds a target's
// positions, not its displacements), placed by its node's global transform.
Points3 morph(const std::vector<MorphPart>& parts, const MergedMeshes& merged, const std::vector<Mat4>& global,
              const Weights& weights) {
  Points3 out(merged.vertices(), 3);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const aiMesh& mesh = *parts[p].mesh;
    const Points3 base = positions(mesh.mVertices, mesh.mNumVertices);
    Points3 V = base;
    for (unsigned t = 0; t < mesh.mNumAnimMeshes; ++t)
      if (weights[p][t] != 0 && mesh.mAnimMeshes[t]->mVertices)
        V += weights[p][t] * (positions(mesh.mAnimMeshes[t]->mVertices, mesh.mNumVertices) - base);
    const Mat4& g = global[merged.node[p]];
    out.middleRows(merged.first[p], mesh.mNumVertices) =
        (V * g.topLeftCorner<3, 3>().transpose()).rowwise() + g.topRightCorner<3, 1>().transpose();
  }
  return out;
}

}  // namespace

RawMotion read_morph_animation(const fs::path& path, double fps, int animation) {
  const std::string what = "morph-target body '" + path.string() + "'";
  Assimp::Importer importer;
  const aiScene& scene = import_animated(importer, path, what);
  check_target_sizes(path, what);
  const NodeTree still = node_tree(scene, nullptr);
  const MergedMeshes merged = merged_meshes(scene, still, what, body_node(scene, still, what));
  bool targets = false;
  for (const unsigned m : merged.mesh) targets = targets || scene.mMeshes[m]->mNumAnimMeshes > 0;
  if (!targets) throw InputError(what + " has no morph targets");
  if (scene.mNumAnimations == 0) throw InputError(what + " has morph targets but no animation of their weights");
  const aiAnimation& anim = chosen_animation(scene, animation, what);
  const NodeTree tree = node_tree(scene, &anim);
  const std::vector<MorphPart> parts = morph_parts(scene, tree, merged, anim, what);
  RawMotion raw;
  raw.fps = fps;
  raw.source = path.string();
  for (const double t : sample_ticks(anim, fps, static_cast<std::size_t>(merged.vertices()), what))
    raw.frames.push_back(morph(parts, merged, pose(tree, t), weights_at(parts, t)));
  raw.first.V = raw.frames.front();
  raw.first.F = merged.F;
  Weights none;
  for (const MorphPart& p : parts) none.emplace_back(p.mesh->mNumAnimMeshes, 0.0);
  raw.rest = morph(parts, merged, pose(still, 0), none);
  return raw;
}

bool has_morph_targets(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(path.string(), 0);
  if (!scene || !scene->mRootNode) return false;
  bool targets = false;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    if (scene->mMeshes[m]->mNumBones > 0) return false;
    targets = targets || scene->mMeshes[m]->mNumAnimMeshes > 0;
  }
  return targets;
}

}  // namespace tryon::avatars
