#pragma once
// The drape quality checker: the quality metrics (docs/report.md) of any cloth mesh against a body,
// computed from the meshes alone. It knows nothing of the simulator, so our drapes and
// peers' drapes are judged by the same code.
#include <optional>
#include <vector>

#include "core/trimesh.hpp"

namespace tryon::quality {

/// A cloth mesh as the checker reads it.
struct Cloth {
  Points3 V;           ///< |V|×3 positions (metres, the body's frame)
  Triangles F;         ///< |F|×3
  Points2 rest;        ///< |V|×2 flat 2D panel coordinates (metres) for strain, or empty
  Segments seam_pairs; ///< |S|×2 vertex pairs sewn together (their vertices count as one)
  std::optional<Points3> previous;  ///< positions 1/60 s earlier, for moving_fraction
  std::vector<int> panel_of_vertex; ///< |V| panel indices, for Quality::crossings; or empty
};

/// Where cloth crosses: the crossing edges of one panel through one other panel or the body.
struct Crossing {
  int panel = 0;           ///< the crossing edges' panel
  int other = -1;          ///< the panel they cross, or -1: the body (panel <= other for two panels)
  int edges = 0;           ///< how many
  Vec3 at = Vec3::Zero();  ///< the mean of their midpoints (m)
};

/// A seam is closed when each of its pairs is closer than this (m).
constexpr double kSeamGapClosed = 1e-3;

struct Quality {
  int body_intersections = 0;    ///< cloth edges whose segment meets the body surface
  int vertices_inside_body = 0;  ///< cloth vertices with body winding number ≥ ½
  int self_intersections = 0;    ///< cloth edges meeting a cloth triangle they share no vertex with
  double seam_gap_max_m = 0;     ///< largest distance between sewn vertex pairs
  std::optional<double> strain_max, strain_mean;  ///< edge length / rest length − 1 (needs rest)
  std::optional<double> moving_fraction;  ///< share of vertices moved > 0.3 mm (needs previous)
  std::optional<bool> is_static;          ///< moving_fraction < 1.5 %
  /// The body and self intersections by panel, most edges first (needs panel_of_vertex).
  std::vector<Crossing> crossings;

  /// Clean: no body or self intersection, no vertex inside, seam gap < 1 mm, static.
  bool clean() const;
};

struct CheckOptions {
  double moving_threshold_m = 0.3e-3;  ///< docs/report.md: moved more than 0.3 mm in 1/60 s
  double static_fraction = 0.015;      ///< static below 1.5 % moving
};

/// Measures a cloth against a body (|V_b|×3, |F_b|×3, closed and outward for the winding
/// number to be exact). Throws InputError for mismatched array sizes or bad indices.
Quality check(const Cloth& cloth, const TriMesh& body, const CheckOptions& options = {});

/// Generalised winding number of each query point with respect to a closed triangle mesh,
/// from signed ray crossings (exact for closed meshes, ±1 per crossing by the triangle's
/// facing); a ray grazing an edge or vertex is cast again in another direction.
std::vector<double> winding_numbers(ConstRef<Points3> points, ConstRef<Points3> V, ConstRef<Triangles> F);

}  // namespace tryon::quality
