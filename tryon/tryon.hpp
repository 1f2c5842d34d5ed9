#pragma once
// tryon's public C++ API: what a program embedding tryon includes after find_package(tryon)
// (target tryon::tryon). Small and stable: load a pattern and a body, drape with options, a
// progress callback and a cancellation flag, read the result (mesh, report, fit maps), save it,
// and check any cloth mesh against a body.
//
//   #include "tryon/tryon.hpp"
//   const tryon::Pattern shirt = tryon::load_pattern("shirt_specification.json");
//   const tryon::Avatar body = tryon::load_avatar("body.obj");
//   tryon::DrapeOptions o;
//   o.resolution_cm = 2;
//   std::atomic<bool> cancel{false};
//   tryon::DrapeResult r = tryon::drape(shirt, body, o, [](const tryon::DrapeProgress& p) {...}, &cancel);
//   r.positions;            // |V|×3 draped vertices (metres), r.garment.F their |F|×3 triangles
//   r.report["status"];     // "ok" or "failed" (docs/report.md)
//   r.fit_maps.strain;      // |V| per-vertex strain
//   tryon::save_drape(r, body, "out/");
//
// A garment following a moving body (tryon/animate.hpp, avatars/motion.hpp):
//   const tryon::BodyMotion walk = tryon::load_motion("walk.glb");   // or a folder of meshes
//   tryon::AnimateResult a = tryon::animate(shirt, walk, tryon::AnimateOptions{});
//   a.frames[k];            // |V|×3 garment positions at frame k, a.quality[k] the checker's figures
//   tryon::save_animation(a, walk, "out/");                          // garment.glb, report.json
//
// Errors in the input (unreadable file, unknown material...) throw tryon::InputError.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "avatars/motion.hpp"
#include "tryon/animate.hpp"
#include "tryon/drape.hpp"
#include "tryon/materials.hpp"

namespace tryon {

using Pattern = garments::Pattern;
using Avatar = avatars::Avatar;
using AvatarOptions = avatars::AvatarOptions;
using Quality = quality::Quality;
using BodyMotion = avatars::BodyMotion;
using MotionOptions = avatars::MotionOptions;
using avatars::load_motion;

/// "MAJOR.MINOR.PATCH" of the library.
std::string version();

/// Reads a GarmentCode specification.json (or a 2021 template). Throws InputError.
Pattern load_pattern(const std::filesystem::path& path);

/// Reads a body mesh (OBJ, PLY, STL, glTF/GLB, FBX, COLLADA) into the design's frame (metres, Y
/// up, feet at y = 0). Throws InputError.
Avatar load_avatar(const std::filesystem::path& path, const AvatarOptions& options = {});

/// Threads used by drape() and check() from now on (0: all cores). Process-wide.
void set_threads(int threads);

/// How much tryon logs to stderr: "trace", "debug", "info" (default), "warn", "error" or "off".
/// Throws InputError for another word.
void set_log_level(const std::string& level);

/// Names of the bundled material presets (for DrapeOptions::material).
std::vector<std::string> material_names();

// drape(), save_drape(), DrapeOptions, DrapeProgress, DrapeResult, SaveOptions: tryon/drape.hpp.
// animate(), save_animation(), AnimateOptions, AnimateResult: tryon/animate.hpp; load_motion(),
// MotionOptions: avatars/motion.hpp.

/// What check() may read beside the cloth.
struct CheckFiles {
  std::filesystem::path rest;      ///< OBJ with the same vertices whose vt / l give rest coordinates and seams
  std::filesystem::path previous;  ///< the cloth 1/60 s earlier, for moving_fraction
};

struct CheckResult {
  quality::Cloth cloth;  ///< the cloth as measured (positions, triangles, rest coordinates, seams)
  Quality quality;
  bool clean = false;
  /// {"cloth", "avatar", "mesh": {vertices, triangles, seam_pairs}, "quality", "clean"}: what
  /// `tryon check` prints ("avatar" is the body's name here; the CLI puts its path).
  nlohmann::json report;
};

/// Measures a cloth OBJ (metres, the body's frame; vt = rest 2D coordinates, l = seam pairs) on
/// a body with the checker the drape report uses. Throws InputError for unreadable files, a cloth
/// without triangles, or rest / previous meshes that do not have the cloth's vertices.
CheckResult check(const std::filesystem::path& cloth, const Avatar& avatar, const CheckFiles& files = {});

}  // namespace tryon
