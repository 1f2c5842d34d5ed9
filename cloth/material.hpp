#pragma once
// Fabric materials: physical parameters in SI units, loaded from cloth/materials.json (named
// presets) or from a user file.
#include <string>
#include <vector>

namespace tryon::cloth {

/// How bending is modelled.
enum class BendModel {
  springs,   ///< springs between the opposite vertices of each interior edge [Provot 1995]
  dihedral,  ///< dihedral-angle hinges [Bridson, Marino & Fedkiw 2003]
};

/// A fabric. All values are physical and in SI units; see cloth/materials.json for sources.
struct Material {
  std::string name;
  double density = 0.12;              ///< area density, kg/m²
  double stretch_stiffness = 5000.0;  ///< membrane tensile modulus, N/m (force/width/strain)
  double shear_stiffness = 60.0;      ///< in-plane shear modulus, N/m
  double bend_stiffness = 8e-6;       ///< bending rigidity, N·m (moment/width/curvature)
  double damping = 5e-5;              ///< stiffness-proportional damping, s (kd = damping·k)
  double air_drag = 0.3;              ///< linear drag, kg/(m²·s): force = −air_drag·area·v
  double friction = 0.45;             ///< Coulomb coefficient, used by the contact stage
  double thickness = 3e-4;            ///< m, used by the contact stage
  double strain_limit = 0.05;         ///< largest stretch strain kept by strain limiting
  /// In-plane compression stiffness of stretch springs relative to tension (fabric buckles
  /// instead of compressing; lets the longer side of a gathered seam gather).
  double compression_ratio = 0.1;
  BendModel bend_model = BendModel::springs;
};

/// Path of the bundled presets file (cloth/materials.json in the source tree).
std::string default_materials_path();

/// Names of the presets in a presets file (default: the bundled one), in file order.
std::vector<std::string> material_names(const std::string& presets_path = default_materials_path());

/// Loads a material. `name_or_path` is one of:
///  - a preset name in the bundled file ("denim");
///  - a JSON file holding one material object (the fields at top level);
///  - a presets file with a "materials" object and a name after '#': "my.json#denim".
/// Throws InputError for an unknown name, an unreadable or malformed file, a missing or
/// non-numeric field, or a value out of range (non-positive density, negative stiffness...).
Material load_material(const std::string& name_or_path);

/// Throws InputError naming `what` if a value is out of its physical range.
void check_material(const Material& m, const std::string& what);

}  // namespace tryon::cloth
