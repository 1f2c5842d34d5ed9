#include "outputs/fit_maps.hpp"

#include <cmath>
#include <limits>

#include "collision/bvh.hpp"
#include "collision/surface_queries.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace tryon::outputs {

Eigen::VectorXd vertex_strain(ConstRef<Points3> V, ConstRef<Triangles> F, ConstRef<Points2> rest) {
  if (rest.rows() != V.rows())
    throw InputError("fit maps: " + std::to_string(rest.rows()) + " rest (2D panel) coordinates for " +
                     std::to_string(V.rows()) + " vertices");
  if (F.size() > 0 && (F.minCoeff() < 0 || F.maxCoeff() >= V.rows()))
    throw InputError("fit maps: a triangle index is out of range");
  // Each undirected edge once (sorted), then the sums in a fixed order: thread-count independent.
  const Segments E = unique_edges(F);
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(V.rows());
  Eigen::VectorXi count = Eigen::VectorXi::Zero(V.rows());
  for (Eigen::Index e = 0; e < E.rows(); ++e) {
    const int a = E(e, 0), b = E(e, 1);
    const double rest_len = (rest.row(a) - rest.row(b)).norm();
    if (!(rest_len > 0)) continue;
    const double strain = (V.row(a) - V.row(b)).norm() / rest_len - 1;  // [Provot 1995]
    sum[a] += strain, sum[b] += strain;
    ++count[a], ++count[b];
  }
  Eigen::VectorXd out = Eigen::VectorXd::Zero(V.rows());
  for (Eigen::Index i = 0; i < V.rows(); ++i)
    if (count[i] > 0) out[i] = sum[i] / count[i];
  return out;
}

Eigen::VectorXd signed_distance_to_body(ConstRef<Points3> P, const TriMesh& body) {
  if (body.F.rows() == 0) throw InputError("fit maps: the body has no triangles");
  const collision::Bvh<collision::Aabb> bvh(body.V, body.F);
  const std::vector<double> winding = collision::winding_numbers(P, body.V, body.F, bvh);
  Eigen::VectorXd d(P.rows());
  // One independent query per point: the result does not depend on the thread count.
  parallel_for(static_cast<std::size_t>(P.rows()), [&](std::size_t i) {
    const collision::ClosestPoint c = collision::closest_point(P.row(i).transpose(), body.V, body.F, bvh);
    d[static_cast<Eigen::Index>(i)] = winding[i] >= 0.5 ? -c.distance : c.distance;
  });
  return d;
}

FitMaps compute_fit_maps(ConstRef<Points3> V, ConstRef<Triangles> F, ConstRef<Points2> rest,
                         const TriMesh& body) {
  FitMaps maps;
  maps.strain = vertex_strain(V, F, rest);
  if (body.F.rows() > 0) maps.distance_m = signed_distance_to_body(V, body);
  return maps;
}

std::string fit_map_name(FitMap map) {
  switch (map) {
    case FitMap::none:
      return "none";
    case FitMap::strain:
      return "strain";
    case FitMap::distance:
      return "distance";
  }
  return "none";
}

FitMap parse_fit_map(const std::string& name) {
  for (FitMap m : {FitMap::none, FitMap::strain, FitMap::distance})
    if (name == fit_map_name(m)) return m;
  throw InputError("unknown fit map '" + name + "' (use strain, distance or none)");
}

const ColorScale& fit_map_scale(FitMap map) {
  if (map == FitMap::strain) return strain_scale();
  if (map == FitMap::distance) return distance_scale();
  throw InputError("the fit map 'none' has no colour scale");
}

std::vector<Rgb> fit_map_colors(const FitMaps& maps, FitMap map) {
  if (map == FitMap::none) return {};
  const Eigen::VectorXd& values = map == FitMap::strain ? maps.strain : maps.distance_m;
  if (values.size() == 0)
    throw InputError("the " + fit_map_name(map) + " fit map was not computed" +
                     (map == FitMap::distance ? " (no body given)" : ""));
  const ColorScale& scale = fit_map_scale(map);
  std::vector<Rgb> colors(values.size());
  for (Eigen::Index i = 0; i < values.size(); ++i) colors[i] = color_at(scale, values[i]);
  return colors;
}

Range range_of(const Eigen::VectorXd& values) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Range r{nan, nan};
  for (const double v : values) {
    if (std::isnan(v)) continue;
    if (std::isnan(r.min) || v < r.min) r.min = v;
    if (std::isnan(r.max) || v > r.max) r.max = v;
  }
  return r;
}

}  // namespace tryon::outputs
