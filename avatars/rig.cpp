#include "avatars/rig.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"

namespace tryon::avatars {

namespace fs = std::filesystem;
using nlohmann::json;

int Rig::bone(const std::string& name) const {
  for (std::size_t b = 0; b < bones.size(); ++b)
    if (bones[b].name == name) return static_cast<int>(b);
  return -1;
}

namespace {

json read_json(const fs::path& path, const std::string& what) {
  const std::string text = read_text_file(path, what);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(what + " '" + path.string() + "' is not valid JSON: " + e.what());
  }
}

const json& member(const json& doc, const std::string& key, const std::string& what) {
  if (!doc.is_object() || !doc.contains(key) || !doc[key].is_object())
    throw InputError(what + ": no '" + key + "' object");
  return doc[key];
}

// The vertex indices of joint `name` of the .mhskel, checked against the base mesh.
std::vector<int> joint_vertices(const json& joints, const std::string& name, int base_count,
                                const std::string& what) {
  if (!joints.contains(name) || !joints[name].is_array() || joints[name].empty())
    throw InputError(what + ": joint '" + name + "' is not a list of vertices");
  std::vector<int> v;
  for (const json& i : joints[name]) {
    if (!i.is_number_integer() || i.get<long long>() < 0 || i.get<long long>() >= base_count)
      throw InputError(what + ": joint '" + name + "' names a vertex beyond the base mesh's " +
                       std::to_string(base_count));
    v.push_back(i.get<int>());
  }
  return v;
}

// Joint `name` on the body: the mean of its vertices when they are all body vertices, else
// its position on the base mesh anchored to the base's body vertices and placed on the body.
Vec3 joint_on_body(const std::vector<int>& vertices, ConstRef<Points3> base_V, ConstRef<Points3> body_V) {
  const int n_body = static_cast<int>(body_V.rows());
  Vec3 on_base = Vec3::Zero(), on_body = Vec3::Zero();
  bool all_body = true;
  for (int i : vertices) {
    on_base += base_V.row(i).transpose();
    if (i < n_body) on_body += body_V.row(i).transpose();
    all_body = all_body && i < n_body;
  }
  const double n = static_cast<double>(vertices.size());
  if (all_body) return on_body / n;
  return place(anchor_point(base_V, n_body, on_base / n), body_V);
}

struct BoneRecord {
  std::string name, parent, head, tail;
};

std::vector<BoneRecord> bone_records(const json& bones, const std::string& what) {
  std::vector<BoneRecord> records;
  for (const auto& [name, b] : bones.items()) {
    if (!b.is_object() || !b.contains("head") || !b["head"].is_string() || !b.contains("tail") ||
        !b["tail"].is_string())
      throw InputError(what + ": bone '" + name + "' has no head and tail joints");
    const json parent = b.value("parent", json());
    if (!parent.is_null() && !parent.is_string())
      throw InputError(what + ": bone '" + name + "' has a parent that is not a name");
    records.push_back({name, parent.is_null() ? "" : parent.get<std::string>(), b["head"].get<std::string>(),
                       b["tail"].get<std::string>()});
  }
  if (records.empty()) throw InputError(what + ": no bones");
  return records;
}

// Records ordered parents first; throws for unknown parents and cycles.
std::vector<BoneRecord> parents_first(std::vector<BoneRecord> records, const std::string& what) {
  std::vector<BoneRecord> ordered;
  std::map<std::string, bool> placed;
  while (!records.empty()) {
    const auto ready = std::stable_partition(records.begin(), records.end(), [&](const BoneRecord& r) {
      return r.parent.empty() || placed.count(r.parent);
    });
    if (ready == records.begin())
      throw InputError(what + ": bone '" + records.front().name + "' has an unknown parent '" +
                       records.front().parent + "' (or the bones form a cycle)");
    for (auto it = records.begin(); it != ready; ++it) {
      placed[it->name] = true;
      ordered.push_back(*it);
    }
    records.erase(records.begin(), ready);
  }
  return ordered;
}

std::vector<RigBone> read_bones(const json& doc, const std::string& what, ConstRef<Points3> base_V,
                                ConstRef<Points3> body_V) {
  const json& joints = member(doc, "joints", what);
  const auto records = parents_first(bone_records(member(doc, "bones", what), what), what);
  std::map<std::string, Vec3> cache;
  auto joint = [&](const std::string& name) {
    if (!cache.count(name))
      cache[name] =
          joint_on_body(joint_vertices(joints, name, static_cast<int>(base_V.rows()), what), base_V, body_V);
    return cache[name];
  };
  std::vector<RigBone> bones;
  std::map<std::string, int> index;
  for (const BoneRecord& r : records) {
    index[r.name] = static_cast<int>(bones.size());
    bones.push_back({r.name, r.parent.empty() ? -1 : index.at(r.parent), joint(r.head), joint(r.tail)});
  }
  return bones;
}

// Per-vertex weight lists from the .mhw's bone → [[vertex, weight], ...].
std::vector<std::vector<std::pair<int, double>>> vertex_weights(const json& doc, const Rig& rig,
                                                                int base_count, int body_count,
                                                                const std::string& what) {
  std::vector<std::vector<std::pair<int, double>>> per_vertex(body_count);
  for (const auto& [name, list] : member(doc, "weights", what).items()) {
    const int b = rig.bone(name);
    if (b < 0) throw InputError(what + ": weights for bone '" + name + "', which the skeleton does not have");
    if (!list.is_array()) throw InputError(what + ": the weights of bone '" + name + "' are not a list");
    for (const json& e : list) {
      if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number())
        throw InputError(what + ": a weight of bone '" + name + "' is not [vertex, weight]");
      const long long v = e[0].get<long long>();
      const double w = e[1].get<double>();
      if (v < 0 || v >= base_count)
        throw InputError(what + ": bone '" + name + "' weighs vertex " + std::to_string(v) +
                         ", beyond the base mesh");
      if (!std::isfinite(w) || w < 0)
        throw InputError(what + ": bone '" + name + "' has a negative or non-finite weight");
      if (v < body_count && w > 0) per_vertex[v].push_back({b, w});
    }
  }
  return per_vertex;
}

SkinWeights normalised(const std::vector<std::vector<std::pair<int, double>>>& per_vertex, int root) {
  SkinWeights s;
  s.start.push_back(0);
  for (const auto& list : per_vertex) {
    double total = 0;
    for (const auto& [b, w] : list) total += w;
    if (total > 0) {
      for (const auto& [b, w] : list) {
        s.bone.push_back(b);
        s.weight.push_back(w / total);
      }
    } else {
      s.bone.push_back(root);
      s.weight.push_back(1.0);
    }
    s.start.push_back(static_cast<int>(s.bone.size()));
  }
  return s;
}

}  // namespace

PointAnchor anchor_point(ConstRef<Points3> V, int candidates, const Vec3& p) {
  constexpr int nearest = 8, per_octant = 3, reach_rank = 16;
  candidates = std::min<int>(candidates, static_cast<int>(V.rows()));
  if (candidates < 4) throw InputError("a joint needs at least 4 mesh vertices to anchor to");
  std::vector<std::pair<double, int>> d(candidates);
  for (int i = 0; i < candidates; ++i) d[i] = {(V.row(i).transpose() - p).squaredNorm(), i};
  // Reach: three times the distance of the 16th nearest vertex.
  const int r = std::min(reach_rank, candidates) - 1;
  std::nth_element(d.begin(), d.begin() + r, d.end());
  const double reach2 = 9 * d[r].first;
  d.erase(std::remove_if(d.begin(), d.end(), [&](const auto& e) { return e.first > reach2; }), d.end());
  std::sort(d.begin(), d.end());
  PointAnchor a;
  int octant_count[8] = {};
  for (std::size_t k = 0; k < d.size(); ++k) {
    const Vec3 u = V.row(d[k].second).transpose() - p;
    const int o = (u.x() > 0) + 2 * (u.y() > 0) + 4 * (u.z() > 0);
    if (static_cast<int>(k) < nearest || octant_count[o] < per_octant) a.vertices.push_back(d[k].second);
    ++octant_count[o];
  }
  const int k = static_cast<int>(a.vertices.size());
  Eigen::Matrix3Xd Q(3, k);
  Vec3 c = Vec3::Zero();
  for (int i = 0; i < k; ++i) c += V.row(a.vertices[i]).transpose();
  c /= k;
  for (int i = 0; i < k; ++i) Q.col(i) = V.row(a.vertices[i]).transpose() - c;
  Mat3 M = Q * Q.transpose();
  M += 1e-12 * M.trace() * Mat3::Identity();
  const Eigen::VectorXd w = Eigen::VectorXd::Constant(k, 1.0 / k) + Q.transpose() * M.ldlt().solve(p - c);
  a.weights.assign(w.data(), w.data() + k);
  return a;
}

Vec3 place(const PointAnchor& anchor, ConstRef<Points3> V) {
  Vec3 p = Vec3::Zero();
  for (std::size_t i = 0; i < anchor.vertices.size(); ++i)
    p += anchor.weights[i] * V.row(anchor.vertices[i]).transpose();
  return p;
}

Rig read_makehuman_rig(const fs::path& mhskel, const fs::path& mhw, ConstRef<Points3> base_V,
                       ConstRef<Points3> body_V) {
  if (body_V.rows() > base_V.rows())
    throw InputError("the body has " + std::to_string(body_V.rows()) +
                     " vertices, more than the rig's base mesh (" + std::to_string(base_V.rows()) +
                     "): it is not derived from it");
  Rig rig;
  const std::string skel_what = "skeleton '" + mhskel.string() + "'";
  rig.bones = read_bones(read_json(mhskel, "skeleton"), skel_what, base_V, body_V);
  const std::string weights_what = "skin weights '" + mhw.string() + "'";
  const auto per_vertex = vertex_weights(read_json(mhw, "skin weights"), rig, static_cast<int>(base_V.rows()),
                                         static_cast<int>(body_V.rows()), weights_what);
  rig.weights = normalised(per_vertex, 0);
  return rig;
}

std::pair<fs::path, fs::path> makehuman_rig_files(const fs::path& rig) {
  std::pair<fs::path, fs::path> files;
  if (fs::is_directory(rig)) {
    files = {rig / "default.mhskel", rig / "default_weights.mhw"};
  } else {
    fs::path mhw = fs::path(rig).replace_extension(".mhw");
    if (!fs::exists(mhw)) mhw = rig.parent_path() / "default_weights.mhw";
    files = {rig, mhw};
  }
  if (!fs::exists(files.first))
    throw InputError("rig skeleton '" + files.first.string() + "' does not exist");
  if (!fs::exists(files.second))
    throw InputError("rig weights '" + files.second.string() + "' do not exist (a .mhw beside the .mhskel)");
  return files;
}

RigPose rest_pose(const Rig& rig) {
  RigPose pose;
  for (const RigBone& b : rig.bones) {
    pose.rotation.push_back(Mat3::Identity());
    pose.head.push_back(b.head);
  }
  return pose;
}

Points3 skin(const Rig& rig, ConstRef<Points3> rest_V, const RigPose& pose) {
  // v' = Σ_b w_b (R_b v + t_b) with t_b = head_b^pose − R_b head_b^rest.
  if (static_cast<std::size_t>(rest_V.rows()) + 1 != rig.weights.start.size())
    throw InputError("skinning " + std::to_string(rest_V.rows()) + " vertices with a rig weighting " +
                     std::to_string(rig.weights.start.size() - 1));
  std::vector<Vec3> t(rig.bones.size());
  for (std::size_t b = 0; b < rig.bones.size(); ++b)
    t[b] = pose.head[b] - pose.rotation[b] * rig.bones[b].head;
  Points3 out(rest_V.rows(), 3);
  const SkinWeights& s = rig.weights;
  for (Eigen::Index v = 0; v < rest_V.rows(); ++v) {
    const Vec3 x = rest_V.row(v).transpose();
    Vec3 y = Vec3::Zero();
    for (int k = s.start[v]; k < s.start[v + 1]; ++k)
      y += s.weight[k] * (pose.rotation[s.bone[k]] * x + t[s.bone[k]]);
    out.row(v) = y.transpose();
  }
  return out;
}

}  // namespace tryon::avatars
