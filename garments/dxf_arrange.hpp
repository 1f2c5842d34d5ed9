#pragma once
// Automatic arrangement of DXF pieces around a body, as CLO's arrangement points do, from
// the body's landmarks (avatars/landmarks.hpp): fronts flat in front of the torso with their
// shoulder-neck points at the neck base, backs behind (turned round), skirts from the waist,
// sleeve halves in front of and behind their arm along its axis. Every panel's plane is put
// `clearance_m` in front of (behind) every body point within its outline seen along z, so
// that no panel starts inside the body.
#include <string>
#include <vector>

#include "avatars/landmarks.hpp"
#include "core/trimesh.hpp"
#include "garments/dxf_pieces.hpp"
#include "garments/pattern.hpp"

namespace tryon::garments::dxf {

struct ArrangeOptions {
  double clearance_m = 0.025;
};

/// Sets each panel's rotation and translation. `pattern` was made by to_pattern(cut, …),
/// possibly with panels left out (matched by name). `body` may be empty: the panels are then
/// placed around a body of the landmarks' proportions, 13 cm deep. Notes name pieces placed
/// by fallback rules.
void arrange(Pattern& pattern, const CutPattern& cut, const avatars::Landmarks& landmarks, const TriMesh& body,
             std::vector<std::string>& notes, const ArrangeOptions& options = {});

/// Landmarks of a standing adult `height_m` tall by proportions only (no body mesh).
avatars::Landmarks proportional_landmarks(double height_m);

}  // namespace tryon::garments::dxf
