#include "tryon/materials.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <system_error>

#include "cloth/material.hpp"
#include "core/logger.hpp"

#ifndef TRYON_INSTALLED_MATERIALS_JSON
#error "TRYON_INSTALLED_MATERIALS_JSON must be defined by the build (<prefix>/share/tryon/materials.json)"
#endif

namespace tryon {
namespace {

namespace fs = std::filesystem;

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

/// The file (program or shared library) this function was loaded from, or empty.
fs::path this_binary() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&this_binary), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  const fs::path p = fs::canonical(info.dli_fname, ec);
  return ec ? fs::path() : p;
}

fs::path find_materials() {
  if (const char* env = std::getenv("TRYON_MATERIALS_JSON"); env && *env) return env;
  const fs::path binary = this_binary();
  fs::path dir = binary.parent_path();
  for (int up = 0; up <= 5 && !dir.empty(); ++up, dir = dir.parent_path()) {
    const fs::path candidate = dir / "share" / "tryon" / "materials.json";
    if (is_file(candidate)) return candidate;
    if (dir == dir.root_path()) break;
  }
  const fs::path build_tree = cloth::default_materials_path();
  if (is_file(build_tree)) return build_tree;
  const fs::path installed = TRYON_INSTALLED_MATERIALS_JSON;
  if (is_file(installed)) return installed;
  return build_tree;
}

}  // namespace

fs::path materials_file() {
  static const fs::path found = [] {
    fs::path p = find_materials();
    logger().debug("material presets: {}", p.string());
    return p;
  }();
  return found;
}

std::string resolve_material(const std::string& m) {
  const bool file_like = m.empty() || m.find('/') != std::string::npos || m.find('#') != std::string::npos ||
                         fs::path(m).extension() == ".json" || is_file(m);
  return file_like ? m : materials_file().string() + "#" + m;
}

}  // namespace tryon
