#pragma once
// Fit maps: per-vertex scalars that show how a garment fits, strain (how far the cloth is
// stretched against its flat 2D pattern) and signed distance to the body (tight / loose).
#include <string>
#include <vector>

#include "core/trimesh.hpp"
#include "outputs/colors.hpp"

namespace tryon::outputs {

/// Per-vertex fit maps of a garment, each named by its field (the GLB writes them as the
/// custom attributes _STRAIN and _DISTANCE_M).
struct FitMaps {
  /// |V| mean over incident edges of (length / rest length − 1); 0 for a vertex without edges.
  Eigen::VectorXd strain;
  /// |V| signed distance to the body surface in metres (negative inside), or empty without a body.
  Eigen::VectorXd distance_m;
};

/// Per-vertex strain: for each vertex, the mean over its incident edges of
/// ‖x_i − x_j‖ / ‖X_i − X_j‖ − 1, with X the flat 2D panel (rest) coordinates: the engineering
/// strain of the spring model [Provot 1995]; the same edge measure as report.json's strain_max / strain_mean.
/// @param[in] V     |V|×3 current (draped) positions
/// @param[in] F     |F|×3 triangles
/// @param[in] rest  |V|×2 2D panel coordinates (metres)
/// @return |V| strains; edges of zero rest length are skipped; vertices without a usable edge get 0.
/// Throws InputError on mismatched sizes or out-of-range indices.
Eigen::VectorXd vertex_strain(ConstRef<Points3> V, ConstRef<Triangles> F, ConstRef<Points2> rest);

/// Signed distance of each point to the body surface: the distance to the closest surface point
/// (branch and bound over an AABB tree), negative where the generalised winding number
/// [Jacobson, Kavan & Sorkine-Hornung 2013] is ≥ ½ (inside a closed body).
/// @param[in] P     |P|×3 points
/// @param[in] body  closed body mesh (an open body gives unsigned-looking signs near its holes)
/// @return |P| signed distances in the body's unit (metres). Throws InputError for an empty body.
Eigen::VectorXd signed_distance_to_body(ConstRef<Points3> P, const TriMesh& body);

/// Both maps. `body` may be empty (no triangles): distance_m is then left empty.
FitMaps compute_fit_maps(ConstRef<Points3> V, ConstRef<Triangles> F, ConstRef<Points2> rest,
                         const TriMesh& body);

enum class FitMap { none, strain, distance };

/// "none", "strain", "distance".
std::string fit_map_name(FitMap map);
/// Parses a name from fit_map_name; throws InputError naming the accepted values otherwise.
FitMap parse_fit_map(const std::string& name);

/// The fixed colour scale of a map (strain_scale() or distance_scale()); throws InputError for none.
const ColorScale& fit_map_scale(FitMap map);

/// Vertex colours of a map on its fixed scale (see colors.hpp); empty for FitMap::none.
/// Throws InputError when the chosen map was not computed (empty vector).
std::vector<Rgb> fit_map_colors(const FitMaps& maps, FitMap map);

/// Smallest and largest value of a map (NaN skipped), for the report; both NaN when empty.
struct Range {
  double min, max;
};
Range range_of(const Eigen::VectorXd& values);

}  // namespace tryon::outputs
