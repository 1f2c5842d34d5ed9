#pragma once
// Moving a drape from one triangulation of a pattern to another (coarse to fine).
#include "garments/garment_mesh.hpp"

namespace tryon::garments {

/// Positions for the vertices of `to` from positions of `from`, another triangulation of the
/// same pattern (same panels, same 2D panel frames): each vertex of `to` takes the affine map of
/// the triangle of its panel in `from` that holds its 2D panel coordinates, or else of the
/// nearest one, extended (a finer outline's vertices lie just outside a coarser outline where
/// it is curved). The triangles of `to` thus take the stretch of the triangle they lie in.
/// Throws std::invalid_argument when the two meshes are not of the same panels, or when a
/// panel of `to` has no triangle in `from`.
Points3 transfer_positions(const GarmentMesh& from, ConstRef<Points3> from_positions, const GarmentMesh& to);

}  // namespace tryon::garments
