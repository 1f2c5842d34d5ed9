#include "fuzz/targets.hpp"

#include <string>

#include "avatars/avatar.hpp"
#include "core/error.hpp"
#include "core/logger.hpp"
#include "core/mesh_io.hpp"
#include "garments/garment_builder.hpp"
#include "garments/garmentcode_reader.hpp"
#include "garments/validate.hpp"

namespace tryon::fuzz {

void garmentcode(std::string_view bytes) {
  try {
    const garments::Pattern pattern = garments::parse_garmentcode(std::string(bytes), "fuzz.json");
    if (!garments::validate_pattern(pattern).ok()) return;
    garments::BuildOptions options;
    options.resolution_m = 0.05;      // coarse: the outline work is the same, the fill is cheap
    options.max_triangles = 200'000;  // larger work is refused with InputError, as the CLI does
    options.body_height_m = 1.7;      // as with a body (the 2021 templates are lifted by it)
    garments::build_garment(pattern, options);
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
