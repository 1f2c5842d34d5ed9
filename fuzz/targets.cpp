#include "fuzz/targets.hpp"

#include <string>

#include "avatars/avatar.hpp"
#include "avatars/bvh.hpp"
#include "core/error.hpp"
#include "core/logger.hpp"
#include "core/mesh_io.hpp"
#include "garments/dxf_arrange.hpp"
#include "garments/dxf_pieces.hpp"
#include "garments/dxf_reader.hpp"
#include "garments/garment_builder.hpp"
#include "garments/garmentcode_reader.hpp"
#include "garments/validate.hpp"

namespace tryon::fuzz {

namespace {

/// Validates and, when valid, meshes a pattern as `tryon inspect` does (coarse; InputError passes).
void build_if_valid(const garments::Pattern& pattern) {
  if (!garments::validate_pattern(pattern).ok()) return;
  garments::BuildOptions options;
  options.resolution_m = 0.05;      // coarse: the outline work is the same, the fill is cheap
  options.max_triangles = 200'000;  // larger work is refused with InputError, as the CLI does
  options.body_height_m = 1.7;      // as with a body (the 2021 templates are lifted by it)
  garments::build_garment(pattern, options);
}

}  // namespace

void garmentcode(std::string_view bytes) {
  try {
    build_if_valid(garments::parse_garmentcode(std::string(bytes), "fuzz.json"));
  } catch (const InputError&) {
  }
}

void dxf(std::string_view bytes) {
  namespace dxf = garments::dxf;
  try {
    const dxf::DxfPattern parsed = dxf::parse_dxf(std::string(bytes), "fuzz.dxf");
    const dxf::CutPattern cut = dxf::cut_pieces(parsed);
    std::vector<std::string> notes;
    const std::vector<dxf::Seam> seams = dxf::propose_seams(cut, notes);
    garments::Pattern pattern = dxf::to_pattern(cut, seams, "fuzz");
    dxf::arrange(pattern, cut, dxf::proportional_landmarks(1.72), TriMesh{}, notes);
    build_if_valid(pattern);
  } catch (const InputError&) {
  }
}

void bvh(std::string_view bytes) {
  try {
    const avatars::BvhClip clip = avatars::parse_bvh(bytes, "fuzz.bvh");
    avatars::forward_kinematics(clip, avatars::bvh_rest_pose(clip));
    for (const int f : {0, clip.frames() - 1}) avatars::forward_kinematics(clip, avatars::bvh_frame_pose(clip, f));
    avatars::forward_kinematics(clip, avatars::bvh_pose_at(clip, 0.5 * clip.duration_s()));
  } catch (const InputError&) {
  }
}

void body_obj(std::string_view bytes) {
  if (bytes.empty()) return;
  const auto mode = static_cast<unsigned char>(bytes[0]);
  avatars::AvatarOptions options;
  options.up = (mode & 1) ? avatars::UpAxis::z : avatars::UpAxis::y;
  if (mode & 2) options.metres_per_unit = (mode & 4) ? 0.01 : 1.0;
  try {
    avatars::make_avatar(read_obj_mesh(bytes.substr(1), "fuzz.obj"), "fuzz", "fuzz.obj", options);
  } catch (const InputError&) {
  }
}

void quiet() { logger().set_level(spdlog::level::off); }

}  // namespace tryon::fuzz
