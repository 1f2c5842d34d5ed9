#pragma once
// Where the bundled material presets (cloth/materials.json) are at run time: in the source tree
// for a build, under <prefix>/share/tryon/ once installed (also when the install was moved).
#include <filesystem>
#include <string>

namespace tryon {

/// The presets file in use, the first that exists of:
///  1. $TRYON_MATERIALS_JSON;
///  2. share/tryon/materials.json above the binary holding this code (the program, or the Python
///     extension), up to five folders up (<prefix>/lib/python3/dist-packages/tryon/_tryon.so is
///     four below <prefix>): an installed tree, wherever it was moved;
///  3. the source tree's cloth/materials.json (a build);
///  4. <install prefix>/share/tryon/materials.json as configured.
/// Returns the build-tree path (3) when none exists, so that the error names a real candidate.
std::filesystem::path materials_file();

/// A material argument as cloth::load_material takes it: a bare preset name ("denim") becomes
/// "<materials_file()>#denim"; a file ("my.json", "dir/x.json#name") is returned unchanged.
std::string resolve_material(const std::string& name_or_path);

}  // namespace tryon
