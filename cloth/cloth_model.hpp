#pragma once
// The mass-spring cloth built from a GarmentMesh: particles (structure of arrays), springs and
// hinges as flat arrays, and the map from particles back to garment vertices.
#include <array>
#include <string>
#include <vector>

#include "cloth/material.hpp"
#include "core/types.hpp"
#include "garments/garment_mesh.hpp"

namespace tryon::cloth {

/// Kinds of springs. Stretch springs come first in ClothModel::springs.
enum class SpringKind : unsigned char {
  stretch,  ///< a triangle edge (one per panel that owns the edge)
  cross,    ///< across an interior edge, between the two opposite vertices: resists shear
            ///< in the plane and, with BendModel::springs, bending [Provot 1995]
  sewing,   ///< between the two particles of an open seam pair, rest length 0 (add_sewing_springs)
  seam_cross,  ///< across a sewn seam edge, between the opposite vertices of its two triangles;
               ///< pushes only, against a fold over a right angle (add_seam_cross_springs);
               ///< rest_now 0 while switched off
};

/// Springs as flat arrays, one entry per spring (|S| rows).
struct Springs {
  Segments ends;              ///< |S|×2 particle indices (a, b)
  Eigen::VectorXd rest;       ///< |S| rest length from the flat 2D panels (m)
  Eigen::VectorXd rest_now;   ///< |S| current rest length, ≥ rest (seam closing, see Simulator)
  Eigen::VectorXd stiffness;  ///< |S| k (N/m) in tension; stretch springs use
                              ///< k·Material::compression_ratio when compressed
  Eigen::VectorXd damping;    ///< |S| kd = Material::damping · k (N·s/m)
  std::vector<SpringKind> kind;  ///< |S|
  int num_stretch = 0;        ///< springs [0, num_stretch) are the stretch springs

  int size() const { return static_cast<int>(ends.rows()); }
};

/// Dihedral hinges [Bridson, Marino & Fedkiw 2003], only with BendModel::dihedral.
struct Hinges {
  Eigen::Matrix<int, Eigen::Dynamic, 4, Eigen::RowMajor> verts;  ///< |H|×4 (a, b, c, d), see forces.hpp
  Eigen::VectorXd rest_angle;  ///< |H| rest angle θ₀ (rad), 0: the flat panels
  Eigen::VectorXd stiffness;   ///< |H| Bridson's k (N·m)

  int size() const { return static_cast<int>(verts.rows()); }
};

/// The cross springs over sewn seams (add_seam_cross_springs) and what switches them on.
struct SeamCrossSprings {
  std::vector<int> spring;  ///< spring index of each
  std::vector<int> stitch;  ///< the stitch each lies over
  std::vector<std::array<int, 3>> pairs;  ///< every seam pair: (stitch, particle, particle)
  int num_stitches = 0;
};

/// Options of the model build.
struct ModelOptions {
  /// Join seam pairs by merging them into one particle at the mean 3D position (GarmentCode's
  /// choice). Without merging the seams stay open (only useful for tests).
  bool merge_seams = true;
};

/// The simulated cloth. Particle state is a structure of arrays owned by the model.
struct ClothModel {
  Material material;
  Points3 x;                 ///< |P|×3 positions (m)
  Points3 v;                 ///< |P|×3 velocities (m/s)
  Eigen::VectorXd mass;      ///< |P| kg: density × (⅓ of the adjacent rest triangle areas)
  Eigen::VectorXd area;      ///< |P| m²: ⅓ of the adjacent rest triangle areas (air drag)
  Eigen::VectorXd inv_mass;  ///< |P| 1/kg, 0 for pinned particles
  Springs springs;
  Hinges hinges;
  SeamCrossSprings seam_cross;  ///< empty unless add_seam_cross_springs was called
  Triangles F;  ///< |F|×3 triangles over particles: the garment's, in order, minus any collapsed by seam merging
  std::vector<int> particle_of_vertex;  ///< |V| garment vertex → particle
  std::vector<int> vertex_of_particle;  ///< |P| particle → its first garment vertex
  /// Incident springs per particle (CSR, spring indices ascending): those of particle i are
  /// spring_index[spring_start[i] .. spring_start[i+1]).
  std::vector<int> spring_start, spring_index;
  int degenerate_hinges_skipped = 0;  ///< interior edges whose triangles wind inconsistently

  int num_particles() const { return static_cast<int>(x.rows()); }
  bool pinned(int i) const { return inv_mass[i] == 0.0; }
  /// Pins (inverse mass 0) or releases particle i.
  void set_pinned(int i, bool pinned);
};

/// Builds the cloth from a placed garment. Seam pairs are merged (see ModelOptions); rest
/// lengths come from the 2D panel coordinates; springs that straddle a seam get their rest
/// length from the two triangles unfolded flat about their shared edge.
/// Stiffness per spring, from the material's moduli (an approximation: the spring network's
/// effective moduli depend on the triangulation):
///  - stretch: k = stretch_stiffness · A_e / L², A_e = ⅓ of the adjacent triangle areas;
///  - cross:   k = shear_stiffness · A_e / L² with A_e = ⅓ of both triangle areas, plus with
///    BendModel::springs a bending part c·L²/(h₁h₂)², c = 3B|e|²/(A₁+A₂), that matches a
///    dihedral hinge of rigidity B near a right-angle fold (like every spring bending model it
///    has no stiffness at a flat fold) [Provot 1995; Grinspun et al. 2003];
///  - hinge:   Bridson's k = 12·B (discrete-shell scaling [Grinspun et al. 2003]).
/// Throws InputError for an invalid mesh: bad indices, non-finite positions, sizes that do not
/// match, or a triangle with zero 2D area.
ClothModel build_cloth_model(const garments::GarmentMesh& garment, const Material& material,
                             const ModelOptions& options = {});

/// Rebuilds the per-particle spring lists (spring_start, spring_index) after springs changed.
void index_springs(ClothModel& model);

/// Sewing springs [the way garment CAD sews]: one spring of rest length 0 per particle pair
/// (|S|×2), whose current rest length starts at the pair's distance and shrinks at the
/// simulator's seam_close_speed, so the pull stays gentle while the seam closes around the body.
/// Appended after the stretch springs: strain limiting leaves them alone.
void add_sewing_springs(ClothModel& model, const Segments& pairs, double stiffness);

/// Cross springs over sewn seams, for a model whose seams are sewn, not merged: one per pair of
/// seam edges (two triangle edges whose ends are seam pairs), between the triangles' opposite
/// vertices, with the stiffness of a cross spring over an interior edge. They only push, and
/// only when the two triangles are folded by more than a right angle about the seam (the
/// opposite vertices closer than with the triangles unfolded flat and then folded by 90°).
/// They start off; switch_on_sewn_seams switches on those of each stitch sewn end to end.
///
/// Without them the two panels turned freely about a sewn seam, and one folded through the
/// other beside it (the shirt spec on mean_all at 3 cm: 51 self intersections along the
/// sleeves' overarm seams after sewing, 39 left at frame 600). Why these choices (measured on
/// the shirt and the hoody spec, 3 cm):
///  - a right angle, not the flat length: the sewn shirt's armhole seams are 5–7 % shorter
///    across than flat, a curve a flat rest length would push against;
///  - off until the stitch is sewn: an open seam's two panels meet folded flat onto each other,
///    like a pillowcase, and pushing from the start kept the hoody's side seams 15 cm open;
///  - per stitch, not per seam segment once its two pairs are closed: the segments just sewn
///    held the rest of the hoody's zipping side seam open (4–5 cm).
/// Appended at the end of the springs; returns how many were added.
int add_seam_cross_springs(ClothModel& model, const garments::GarmentMesh& garment);

/// Switches on the seam cross springs of every stitch whose seam pairs are all closer than
/// `sewn_distance` at positions x (once on, they stay on). Returns how many stitches it switched.
int switch_on_sewn_seams(ClothModel& model, ConstRef<Points3> x, double sewn_distance);

/// Positions per garment vertex (|V|×3) from the particle positions.
Points3 garment_positions(const ClothModel& model);

/// Strain statistics over the stretch springs (edge length / 2D rest length − 1).
struct StrainStats {
  double max = 0;       ///< largest strain (positive: stretched)
  double mean = 0;      ///< mean of |strain|
  double min = 0;       ///< most compressed
};
StrainStats strain_stats(const ClothModel& model, ConstRef<Points3> x);

/// Largest distance between the two particles of any seam pair of the garment (0 when merged).
double seam_gap_max(const ClothModel& model, const garments::GarmentMesh& garment,
                    ConstRef<Points3> x);

}  // namespace tryon::cloth
