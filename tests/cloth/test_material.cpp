#include "cloth/material.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"

using namespace tryon;
using namespace tryon::cloth;

namespace {
std::filesystem::path temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("tryon_cloth_" + name);
  std::ofstream(path) << text;
  return path;
}

const char* kSilkish = R"({"density": 0.09, "stretch_stiffness": 1500, "shear_stiffness": 12,
  "bend_stiffness": 2e-6, "damping": 1e-4, "air_drag": 0.2, "friction": 0.25,
  "thickness": 2.5e-4, "strain_limit": 0.07, "compression_ratio": 0.2,
  "bend_model": "dihedral"})";
}  // namespace

TEST(Material, PresetsListedAndPhysical) {
  const auto names = material_names();
  const std::vector<std::string> expected = {"cotton_jersey", "cotton_poplin", "denim",
                                             "silk_charmeuse", "polyester"};
  EXPECT_EQ(names, expected);
  for (const auto& name : names) {
    const Material m = load_material(name);
    EXPECT_EQ(m.name, name);
    // Fabric weights between 50 and 500 g/m², moduli and rigidities in textile ranges.
    EXPECT_GT(m.density, 0.05);
    EXPECT_LT(m.density, 0.5);
    EXPECT_GT(m.stretch_stiffness, m.shear_stiffness);
    EXPECT_GT(m.bend_stiffness, 1e-7);
    EXPECT_LT(m.bend_stiffness, 1e-3);
    EXPECT_LE(m.strain_limit, 0.25);  // a knit stretches a fifth under a light pull, a woven a few percent
  }
  // Denim is heavier and stiffer than silk.
  const Material denim = load_material("denim"), silk = load_material("silk_charmeuse");
  EXPECT_GT(denim.density, silk.density);
  EXPECT_GT(denim.bend_stiffness, silk.bend_stiffness);
}

TEST(Material, UserFileWithOneMaterial) {
  const auto path = temp_file("user_material.json", kSilkish);
  const Material m = load_material(path.string());
  EXPECT_EQ(m.name, "tryon_cloth_user_material");
  EXPECT_DOUBLE_EQ(m.density, 0.09);
  EXPECT_DOUBLE_EQ(m.stretch_stiffness, 1500);
  EXPECT_DOUBLE_EQ(m.shear_stiffness, 12);
  EXPECT_DOUBLE_EQ(m.bend_stiffness, 2e-6);
  EXPECT_DOUBLE_EQ(m.damping, 1e-4);
  EXPECT_DOUBLE_EQ(m.air_drag, 0.2);
  EXPECT_DOUBLE_EQ(m.friction, 0.25);
  EXPECT_DOUBLE_EQ(m.thickness, 2.5e-4);
  EXPECT_DOUBLE_EQ(m.strain_limit, 0.07);
  EXPECT_DOUBLE_EQ(m.compression_ratio, 0.2);
  EXPECT_EQ(m.bend_model, BendModel::dihedral);
  std::filesystem::remove(path);
}

TEST(Material, PresetsFileWithName) {
  const auto path = temp_file("presets.json", std::string(R"({"materials": {"mine": )") + kSilkish + "}}");
  const Material m = load_material(path.string() + "#mine");
  EXPECT_EQ(m.name, "mine");
  EXPECT_DOUBLE_EQ(m.density, 0.09);
  EXPECT_THROW(load_material(path.string()), InputError);           // several presets: name needed
  EXPECT_THROW(load_material(path.string() + "#other"), InputError);  // unknown name
  // The bundled file by path works the same way.
  EXPECT_DOUBLE_EQ(load_material(default_materials_path() + "#denim").density,
                   load_material("denim").density);
  std::filesystem::remove(path);
}

TEST(Material, BrokenInputIsInputError) {
  EXPECT_THROW(load_material("no_such_fabric"), InputError);
  EXPECT_THROW(load_material("/no/such/file.json"), InputError);
  EXPECT_THROW(load_material(""), InputError);
  const auto not_json = temp_file("broken.json", "{\"density\": 0.1, ");
  EXPECT_THROW(load_material(not_json.string()), InputError);
  const auto missing = temp_file("missing.json", R"({"density": 0.1})");
  EXPECT_THROW(load_material(missing.string()), InputError);
  std::string negative = kSilkish;
  negative.replace(negative.find("0.09"), 4, "-0.1");
  const auto neg = temp_file("negative.json", negative);
  EXPECT_THROW(load_material(neg.string()), InputError);
  std::string text = kSilkish;
  text.replace(text.find("1500"), 4, "\"hard\"");
  const auto wrong_type = temp_file("wrong_type.json", text);
  EXPECT_THROW(load_material(wrong_type.string()), InputError);
  std::string bend = kSilkish;
  bend.replace(bend.find("dihedral"), 8, "origami");
  const auto wrong_bend = temp_file("wrong_bend.json", bend);
  EXPECT_THROW(load_material(wrong_bend.string()), InputError);
  for (const auto& p : {not_json, missing, neg, wrong_type, wrong_bend}) std::filesystem::remove(p);
}
