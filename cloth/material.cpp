#include "cloth/material.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

#ifndef TRYON_CLOTH_MATERIALS_JSON
#error "TRYON_CLOTH_MATERIALS_JSON must be defined by the build (path of cloth/materials.json)"
#endif

namespace tryon::cloth {
namespace {

using Json = nlohmann::ordered_json;

Json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("material file '" + path + "' cannot be opened");
  try {
    return Json::parse(in);
  } catch (const Json::parse_error& e) {
    throw InputError("material file '" + path + "' is not valid JSON: " + e.what());
  }
}

double number_field(const Json& j, const char* key, const std::string& what) {
  if (!j.contains(key)) throw InputError(what + ": missing field '" + key + "'");
  const Json& v = j.at(key);
  if (!v.is_number()) throw InputError(what + ": field '" + key + "' must be a number");
  return v.get<double>();
}

Material from_json(const Json& j, const std::string& name, const std::string& what) {
  if (!j.is_object()) throw InputError(what + ": a material must be a JSON object");
  Material m;
  m.name = name;
  m.density = number_field(j, "density", what);
  m.stretch_stiffness = number_field(j, "stretch_stiffness", what);
  m.shear_stiffness = number_field(j, "shear_stiffness", what);
  m.bend_stiffness = number_field(j, "bend_stiffness", what);
  m.damping = number_field(j, "damping", what);
  m.air_drag = number_field(j, "air_drag", what);
  m.friction = number_field(j, "friction", what);
  m.thickness = number_field(j, "thickness", what);
  m.strain_limit = number_field(j, "strain_limit", what);
  m.compression_ratio = number_field(j, "compression_ratio", what);
  if (j.contains("bend_model")) {
    const Json& b = j.at("bend_model");
    if (b == "springs") m.bend_model = BendModel::springs;
    else if (b == "dihedral") m.bend_model = BendModel::dihedral;
    else throw InputError(what + ": bend_model must be \"springs\" or \"dihedral\"");
  }
  check_material(m, what);
  return m;
}

const Json& presets_of(const Json& file, const std::string& path) {
  if (!file.is_object() || !file.contains("materials") || !file.at("materials").is_object())
    throw InputError("material file '" + path + "' has no \"materials\" object");
  return file.at("materials");
}

Material from_presets(const std::string& path, const std::string& name) {
  const Json file = read_json(path);
  const Json& presets = presets_of(file, path);
  if (!presets.contains(name)) {
    std::string known;
    for (const auto& [key, value] : presets.items()) known += (known.empty() ? "" : ", ") + key;
    throw InputError("unknown material '" + name + "' (known in '" + path + "': " + known + ")");
  }
  return from_json(presets.at(name), name, "material '" + name + "' in '" + path + "'");
}

}  // namespace

std::string default_materials_path() { return TRYON_CLOTH_MATERIALS_JSON; }

std::vector<std::string> material_names(const std::string& presets_path) {
  const Json file = read_json(presets_path);
  std::vector<std::string> names;
  for (const auto& [key, value] : presets_of(file, presets_path).items()) names.push_back(key);
  return names;
}

void check_material(const Material& m, const std::string& what) {
  auto require = [&](bool ok, const char* text) {
    if (!ok) throw InputError(what + ": " + text);
  };
  auto finite = [](double x) { return std::isfinite(x); };
  require(finite(m.density) && m.density > 0, "density must be > 0 (kg/m^2)");
  require(finite(m.stretch_stiffness) && m.stretch_stiffness > 0,
          "stretch_stiffness must be > 0 (N/m)");
  require(finite(m.shear_stiffness) && m.shear_stiffness >= 0, "shear_stiffness must be >= 0 (N/m)");
  require(finite(m.bend_stiffness) && m.bend_stiffness >= 0, "bend_stiffness must be >= 0 (N m)");
  require(finite(m.damping) && m.damping >= 0, "damping must be >= 0 (s)");
  require(finite(m.air_drag) && m.air_drag >= 0, "air_drag must be >= 0 (kg/(m^2 s))");
  require(finite(m.friction) && m.friction >= 0, "friction must be >= 0");
  require(finite(m.thickness) && m.thickness >= 0, "thickness must be >= 0 (m)");
  require(finite(m.strain_limit) && m.strain_limit > 0, "strain_limit must be > 0");
  require(finite(m.compression_ratio) && m.compression_ratio >= 0 && m.compression_ratio <= 1,
          "compression_ratio must be in [0, 1]");
}

Material load_material(const std::string& name_or_path) {
  if (name_or_path.empty()) throw InputError("material: empty name");
  const auto hash = name_or_path.rfind('#');
  if (hash != std::string::npos) {
    const std::string path = name_or_path.substr(0, hash);
    return from_presets(path, name_or_path.substr(hash + 1));
  }
  if (std::filesystem::is_regular_file(name_or_path)) {
    const Json j = read_json(name_or_path);
    if (j.is_object() && j.contains("materials"))
      throw InputError("material file '" + name_or_path +
                       "' holds several presets: choose one with '" + name_or_path + "#NAME'");
    const std::string stem = std::filesystem::path(name_or_path).stem().string();
    return from_json(j, stem, "material file '" + name_or_path + "'");
  }
  if (name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json"))
    throw InputError("material file '" + name_or_path + "' does not exist");
  return from_presets(default_materials_path(), name_or_path);
}

}  // namespace tryon::cloth
