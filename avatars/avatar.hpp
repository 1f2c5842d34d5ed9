#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "avatars/orientation.hpp"
#include "core/trimesh.hpp"

namespace tryon::avatars {

/// The up axis of a body file: found from its shape (automatic), or given.
enum class UpAxis { automatic, y, z };

struct AvatarOptions {
  UpAxis up = UpAxis::automatic;         ///< y / z: the file is Y-up / Z-up (the feet still tell its sign)
  bool detect_facing = true;             ///< turn the body to face +Z when its feet tell which way it faces
  std::optional<double> metres_per_unit; ///< overrides unit detection
};

/// A body in the design's frame: metres, Y up, facing +Z, feet at y = 0 (x and z as in the file).
struct Avatar {
  std::string name;          ///< file stem
  TriMesh mesh;              ///< welded, normalised
  double height_m = 0;
  Bounds3 bounds;
  std::string unit;          ///< "m", "dm", "cm", "mm" or "given"
  double metres_per_unit = 1;
  int welded_vertices = 0;   ///< duplicates merged on load
  EdgeTopology topology;     ///< boundary / non-manifold edge counts after welding
  BodyFrameGuess frame;      ///< the file's up axis and facing, and how they were found
  /// How the file's vertices became the body's: body vertex i = file_to_body · file vertex
  /// file_vertex[i] + file_offset (file_vertex empty: the same index).
  Mat3 file_to_body = Mat3::Identity();
  Vec3 file_offset = Vec3::Zero();
  std::vector<int> file_vertex;
  int file_vertices = 0;  ///< vertices in the file (before welding)
  std::vector<std::string> warnings;
};

/// Loads a body through Assimp (OBJ, PLY, STL, glTF/GLB, FBX, COLLADA): merges its meshes,
/// welds duplicate vertices, finds its up axis and the way it faces (orientation.hpp), detects
/// the unit from the height (a person is 1.0–2.2 m) and brings it to the design's frame. Open
/// or non-manifold bodies load with a warning.
/// Throws InputError for files that are not a body (empty, unreadable, no person's size).
Avatar load_avatar(const std::filesystem::path& path, const AvatarOptions& options = {});

/// load_avatar's checks and normalisation on a mesh already read (what load_avatar does after
/// read_mesh); `name` is the body's name, `source` names it in messages. Used by the fuzzers.
Avatar make_avatar(TriMesh mesh, const std::string& name, const std::string& source,
                   const AvatarOptions& options = {});

/// The file's vertices `V_file` (the file's vertex count and order, e.g. another frame of the
/// body's motion) brought to the body's frame as the body's own were (welded, turned, scaled,
/// moved). Throws InputError when the count differs from the file the body came from.
Points3 to_body_frame(const Avatar& body, ConstRef<Points3> V_file);

/// Metres per unit for a body `height` units tall: 1, 0.1, 0.01 or 0.001, whichever makes
/// it 1.0–2.2 m tall; nullopt when none does.
std::optional<double> detect_metres_per_unit(double height);

}  // namespace tryon::avatars
