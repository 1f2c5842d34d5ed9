#pragma once
// JSON forms of the quality figures, with DESIGN.md's report keys.
#include <nlohmann/json.hpp>

#include "quality/quality.hpp"

namespace tryon::apps {

/// The report's "quality" object; figures that could not be measured are null.
inline nlohmann::json quality_json(const quality::Quality& q) {
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"body_intersections", q.body_intersections},
          {"vertices_inside_body", q.vertices_inside_body},
          {"self_intersections", q.self_intersections},
          {"seam_gap_max_m", q.seam_gap_max_m},
          {"strain_max", opt(q.strain_max)},
          {"strain_mean", opt(q.strain_mean)},
          {"moving_fraction", opt(q.moving_fraction)}};
}

}  // namespace tryon::apps
