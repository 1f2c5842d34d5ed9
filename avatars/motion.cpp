#include "avatars/motion.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "avatars/morph_motion.hpp"
#include "avatars/skinning.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/logger.hpp"
#include "core/mesh_io.hpp"

namespace tryon::avatars {

namespace fs = std::filesystem;

Points3 BodyMotion::at(double t) const {
  if (frames.empty()) return body.mesh.V;
  const double f = std::clamp(t * fps, 0.0, static_cast<double>(frames.size() - 1));
  const auto k = static_cast<std::size_t>(std::floor(f));
  if (k + 1 >= frames.size()) return frames.back();
  const double a = f - static_cast<double>(k);
  return (1 - a) * frames[k] + a * frames[k + 1];
}

namespace {

// Refuses a raw motion whose frames or rest pose do not fit frame 0's mesh.
void check_raw_motion(const RawMotion& raw, int blend_in) {
  const std::string what = "motion '" + raw.source + "'";
  if (raw.frames.empty()) throw InputError(what + " has no frames");
  if (!(raw.fps > 0 && raw.fps <= 1000)) throw InputError(what + ": fps must be between 0 and 1000");
  for (std::size_t k = 0; k < raw.frames.size(); ++k) {
    if (raw.frames[k].rows() != raw.first.V.rows())
      throw InputError(what + ": frame " + std::to_string(k) + " has " + std::to_string(raw.frames[k].rows()) +
                       " vertices, frame 0 has " + std::to_string(raw.first.V.rows()) +
                       " (a motion's frames share one mesh)");
    if (!raw.frames[k].allFinite()) throw InputError(what + ": frame " + std::to_string(k) + " has a non-finite vertex");
  }
  if (raw.rest.rows() > 0 && (raw.rest.rows() != raw.first.V.rows() || !raw.rest.allFinite()))
    throw InputError(what + ": its rest pose does not fit its frames' mesh");
  if (blend_in < 0 || blend_in > 10000) throw InputError("blend-in frames must be between 0 and 10000");
  if (blend_in > 0 && raw.rest.rows() == 0)
    throw InputError(what + " has no rest pose to blend in from (a rigged body or a BVH clip has one)");
}

}  // namespace

BodyMotion normalise_motion(RawMotion raw, const std::string& name, const AvatarOptions& options, int blend_in) {
  check_raw_motion(raw, blend_in);
  BodyMotion m;
  m.fps = raw.fps;
  m.source = raw.source;
  m.blend_in = blend_in;
  // The body's frame from the rest pose when there is one, else from frame 0.
  const bool has_rest = raw.rest.rows() > 0;
  TriMesh shape = raw.first;
  shape.V = has_rest ? raw.rest : raw.frames[0];
  m.body = make_avatar(std::move(shape), name, raw.source, options);
  if (blend_in > 0) {
    const Points3& rest = m.body.mesh.V;
    const Points3 first = to_body_frame(m.body, raw.frames[0]);
    for (int j = 0; j <= blend_in; ++j) m.frames.push_back(rest + (first - rest) * (static_cast<double>(j) / blend_in));
    raw.frames.erase(raw.frames.begin());
  } else if (has_rest) {
    m.body.mesh.V = to_body_frame(m.body, raw.frames[0]);  // draped on frame 0, in the rest pose's frame
    m.body.bounds = bounds(m.body.mesh.V);
  }
  for (const Points3& V : raw.frames) m.frames.push_back(to_body_frame(m.body, V));
  const double off = (m.frames[0] - m.body.mesh.V).cwiseAbs().maxCoeff();
  if (!(off <= 1e-9)) throw std::logic_error("normalise_motion: frame 0 is " + std::to_string(off) + " m off the body");
  return m;
}

RawMotion read_mesh_sequence(const std::vector<fs::path>& files, double fps) {
  if (files.empty()) throw InputError("a mesh sequence needs at least one mesh");
  RawMotion raw;
  raw.fps = fps;
  raw.source = files.front().parent_path().string();
  for (std::size_t k = 0; k < files.size(); ++k) {
    TriMesh mesh = read_mesh(files[k]);
    if (k == 0) {
      raw.first = mesh;
    } else if (mesh.V.rows() != raw.first.V.rows() || mesh.F != raw.first.F) {
      throw InputError("mesh sequence: '" + files[k].string() + "' has " + std::to_string(mesh.V.rows()) +
                       " vertices and " + std::to_string(mesh.F.rows()) + " triangles, '" + files[0].string() +
                       "' has " + std::to_string(raw.first.V.rows()) + " and " +
                       std::to_string(raw.first.F.rows()) + ": the frames of a motion share one mesh");
    }
    raw.frames.push_back(std::move(mesh.V));
  }
  return raw;
}

namespace {

bool is_mesh_file(const fs::path& p) {
  return has_extension(p, ".obj") || has_extension(p, ".ply") || has_extension(p, ".stl");
}

std::vector<fs::path> meshes_in_folder(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && is_mesh_file(e.path())) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError("motion folder '" + dir.string() + "' has no OBJ, PLY or STL meshes");
  return files;
}

std::vector<fs::path> meshes_in_list(const fs::path& list) {
  std::ifstream in(list);
  if (!in) throw InputError("cannot read motion list '" + list.string() + "'");
  std::vector<fs::path> files;
  std::string line;
  while (std::getline(in, line)) {
    line.erase(0, line.find_first_not_of(" \t\r"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.empty() || line[0] == '#') continue;
    const fs::path p(line);
    files.push_back(p.is_absolute() ? p : list.parent_path() / p);
  }
  if (files.empty()) throw InputError("motion list '" + list.string() + "' names no meshes");
  return files;
}

// Keeps frames first..last of the motion (before it is normalised: the body is the first kept).
void keep_frames(RawMotion& m, const MotionOptions& o) {
  const int n = static_cast<int>(m.frames.size());
  const int last = o.last < 0 ? n - 1 : o.last;
  if (o.first < 0 || o.first > last || last >= n)
    throw InputError("frames " + std::to_string(o.first) + ":" + std::to_string(last) +
                     " are not within the motion's 0:" + std::to_string(n - 1));
  m.frames = std::vector<Points3>(m.frames.begin() + o.first, m.frames.begin() + last + 1);
}

// A file's own motion: a body moved by morph targets, or a rigged body skinned.
RawMotion read_animated_body(const fs::path& path, const MotionOptions& options) {
  if (has_morph_targets(path)) return read_morph_animation(path, options.fps, options.animation);
  if (has_animation(path)) return read_skinned_animation(path, options.fps, options.animation);
  throw InputError("motion '" + path.string() +
                   "' holds no animation Assimp reads, and is not a folder of meshes or a list of them");
}

}  // namespace

BodyMotion load_motion(const fs::path& path, const MotionOptions& options) {
  if (!fs::exists(path)) throw InputError("motion '" + path.string() + "' does not exist");
  const bool sequence = fs::is_directory(path) || has_extension(path, ".txt") || has_extension(path, ".list");
  if (sequence && options.animation != 0)
    throw InputError("motion '" + path.string() + "' is a sequence of meshes, one motion: there is no animation " +
                     std::to_string(options.animation));
  RawMotion raw;
  if (fs::is_directory(path))
    raw = read_mesh_sequence(meshes_in_folder(path), options.fps);
  else if (sequence)
    raw = read_mesh_sequence(meshes_in_list(path), options.fps);
  else
    raw = read_animated_body(path, options);
  return finish_motion(std::move(raw), path.stem().string(), options);
}

BodyMotion finish_motion(RawMotion raw, const std::string& name, const MotionOptions& options) {
  keep_frames(raw, options);
  BodyMotion m = normalise_motion(std::move(raw), name, options.avatar, options.blend_in);
  logger().info("motion {}: {} frames at {} fps ({:.2f} s)", m.source, m.frames.size(), m.fps, m.duration_s());
  return m;
}

}  // namespace tryon::avatars
