#include "garments/garment_builder.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/logger.hpp"
#include "garments/geometry2d.hpp"
#include "garments/inserts.hpp"
#include "garments/triangulate.hpp"
#include "garments/validate.hpp"

namespace tryon::garments {

std::vector<std::vector<int>> edge_segment_counts(const Pattern& pattern, double resolution_m) {
  std::vector<std::vector<int>> counts(pattern.panels.size());
  for (std::size_t p = 0; p < pattern.panels.size(); ++p)
    for (std::size_t k = 0; k < pattern.panels[p].edges.size(); ++k) {
      const double n = std::ceil(edge_length(pattern.panels[p], pattern.panels[p].edges[k]) / resolution_m - 1e-9);
      if (!(n < 1e8))  // a valid pattern's panels are a few metres wide: never near
        throw InputError(describe_edge(pattern, static_cast<int>(p), static_cast<int>(k)) +
                         " is too long to mesh at a resolution of " + std::to_string(resolution_m) + " m");
      counts[p].push_back(std::max(1, static_cast<int>(n)));
    }
  for (const Stitch& s : pattern.stitches) {
    const int n = std::max(counts[s.a.panel][s.a.edge], counts[s.b.panel][s.b.edge]);
    counts[s.a.panel][s.a.edge] = counts[s.b.panel][s.b.edge] = n;
  }
  return counts;
}

namespace {

// The 2021 templates place panels for a body whose origin is at the waist (feet at about
// y = −1.12 m for their 1.66 m SMPL template); GarmentCode bodies stand on y = 0.
constexpr double kLegacyFeetDepth = 1.12, kLegacyBodyHeight = 1.66, kLegacyHeadTop = 0.9;

Vec3 choose_offset(const Pattern& pattern, const BuildOptions& options, std::vector<std::string>& notes) {
  if (options.offset) return *options.offset;
  double min_y = std::numeric_limits<double>::infinity(), max_y = -min_y;
  for (const Panel& panel : pattern.panels)
    for (const Vec2& v : panel.vertices) {
      const double y = place_point(panel, v).y();
      min_y = std::min(min_y, y);
      max_y = std::max(max_y, y);
    }
  // Placed for feet at y = 0 unless it reaches below the feet and stays below 0.9 m (the
  // template body's head top is 0.54 m above its waist, a hood on it reaches about 0.8 m): a
  // floor-length skirt of a current file reaches below the feet too, but it hangs from a
  // waist at 0.95 m or more.
  if (min_y > -0.05 || max_y > kLegacyHeadTop) return Vec3::Zero();
  const double scale = options.body_height_m > 0 ? options.body_height_m / kLegacyBodyHeight : 1.0;
  const Vec3 offset(0, kLegacyFeetDepth * scale, 0);
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "the pattern reaches y = %.2f m, below the feet: it was placed for a body whose "
                "origin is at the waist; lifted by %.3f m%s",
                min_y, offset.y(), options.body_height_m > 0 ? " (scaled to the body's height)" : "");
  notes.emplace_back(buf);
  return offset;
}

// The factor on the placement's heights: the body's height over the height of the body the
// pattern was placed for, when that is known and more than 1 % off, and the placement not
// already lifted or given.
double choose_height_scale(const Pattern& pattern, const BuildOptions& options, const Vec3& offset,
                           std::vector<std::string>& notes) {
  if (options.offset || offset != Vec3::Zero() || !(pattern.placed_for_height_m > 0) || !(options.body_height_m > 0))
    return 1.0;
  const double scale = options.body_height_m / pattern.placed_for_height_m;
  if (std::abs(scale - 1) <= 0.01) return 1.0;
  char buf[200];
  std::snprintf(buf, sizeof buf, "the pattern is placed for a %.2f m body: its heights scaled by %.3f to the body's %.2f m",
                pattern.placed_for_height_m, scale, options.body_height_m);
  notes.emplace_back(buf);
  return scale;
}

}  // namespace

GarmentBuild build_garment(const Pattern& pattern, const BuildOptions& options) {
  if (!(options.resolution_m > 0) || !std::isfinite(options.resolution_m))
    throw InputError("the mesh resolution must be a positive length");
  const Diagnostics diag = validate_pattern(pattern);
  if (!diag.ok()) {
    std::string msg = "pattern '" + pattern.name + "' cannot be sewn:";
    for (const std::string& e : diag.errors) msg += "\n  - " + e;
    throw InputError(msg);
  }
  GarmentBuild out;
  out.warnings = diag.warnings;

  // Refuse work that would need more triangles than a sane budget, before allocating it.
  double total_area = 0;
  std::vector<std::vector<int>> counts = edge_segment_counts(pattern, options.resolution_m);
  for (std::size_t p = 0; p < pattern.panels.size(); ++p) {
    std::vector<Vec2> loop;
    for (std::size_t k = 0; k < pattern.panels[p].edges.size(); ++k) {
      const auto s = sample_edge(pattern.panels[p], pattern.panels[p].edges[k], std::min(counts[p][k], 64));
      loop.insert(loop.end(), s.begin(), s.end() - 1);
    }
    total_area += std::abs(signed_area(loop));
  }
  const double h = options.resolution_m;
  const double estimate = 2.0 * total_area / (std::sqrt(3.0) / 4 * h * h);  // equilateral, with margin
  if (estimate > static_cast<double>(options.max_triangles))
    throw InputError("pattern '" + pattern.name + "' at " + std::to_string(h * 100) + " cm would need about " +
                     std::to_string(static_cast<long long>(estimate / 2)) + " triangles, more than the " +
                     std::to_string(options.max_triangles) + " allowed; use a coarser --resolution-cm");

  out.offset = choose_offset(pattern, options, out.warnings);
  out.height_scale = choose_height_scale(pattern, options, out.offset, out.warnings);
  const std::vector<Vec3> insert_shift = insert_shifts(pattern, out.warnings);
  GarmentMesh& mesh = out.mesh;
  mesh.num_stitches = static_cast<int>(pattern.stitches.size());
  std::vector<Vec3> V;
  std::vector<Vec2> rest;
  std::vector<Eigen::Vector3i> F;
  // edge_vertices[p][k]: mesh vertex indices along edge k of panel p, start to end.
  std::vector<std::vector<std::vector<int>>> edge_vertices(pattern.panels.size());

  for (std::size_t p = 0; p < pattern.panels.size(); ++p) {
    const Panel& panel = pattern.panels[p];
    mesh.panel_names.push_back(panel.name);
    mesh.panel_labels.push_back(panel.label);
    std::vector<Vec2> loop;
    std::vector<int> edge_start;
    for (std::size_t k = 0; k < panel.edges.size(); ++k) {
      edge_start.push_back(static_cast<int>(loop.size()));
      const auto s = sample_edge(panel, panel.edges[k], counts[p][k]);
      loop.insert(loop.end(), s.begin(), s.end() - 1);
    }
    Points2 outline(loop.size(), 2);
    for (std::size_t i = 0; i < loop.size(); ++i) outline.row(i) = loop[i].transpose();
    TriangulateOptions topt;
    topt.target_edge = h;
    topt.max_triangles = options.max_triangles;
    PanelTriangulation tri;
    try {
      tri = triangulate_panel(outline, topt);
    } catch (const InputError& e) {
      throw InputError("pattern '" + pattern.name + "', panel '" + panel.name + "': " + e.what());
    }
    const int base = static_cast<int>(V.size());
    const int nb = static_cast<int>(loop.size());
    edge_vertices[p].resize(panel.edges.size());
    for (std::size_t k = 0; k < panel.edges.size(); ++k)
      for (int i = 0; i <= counts[p][k]; ++i)
        edge_vertices[p][k].push_back(base + (edge_start[k] + i) % nb);
    for (Eigen::Index i = 0; i < tri.V.rows(); ++i) {
      const Vec2 q = tri.V.row(i).transpose();
      rest.push_back(q);
      Vec3 x = place_point(panel, q) + insert_shift[p];
      x.y() *= out.height_scale;
      V.push_back(x + out.offset);
      mesh.panel_of_vertex.push_back(static_cast<int>(p));
    }
    PanelStats stats;
    stats.name = panel.name;
    stats.first_vertex = base;
    stats.boundary_vertices = nb;
    stats.vertices = static_cast<int>(tri.V.rows());
    stats.triangles = static_cast<int>(tri.F.rows());
    stats.area_m2 = std::abs(signed_area(loop));
    const TriangulationQuality q = triangulation_quality(tri, kSharpCornerDeg);
    stats.min_angle_deg = q.min_angle_deg;
    stats.mesh_area_m2 = q.area;
    for (Eigen::Index f = 0; f < tri.F.rows(); ++f) {
      F.emplace_back(base + tri.F(f, 0), base + tri.F(f, 1), base + tri.F(f, 2));
      mesh.panel_of_triangle.push_back(static_cast<int>(p));
    }
    out.panels.push_back(stats);
    for (std::size_t k = 0; k < panel.edges.size(); ++k)
      if (!panel.edges[k].label.empty()) {
        auto& list = mesh.labelled_vertices[panel.edges[k].label];
        list.insert(list.end(), edge_vertices[p][k].begin(), edge_vertices[p][k].end());
      }
  }
  for (auto& [label, list] : mesh.labelled_vertices) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }

  std::vector<std::pair<int, int>> pairs;
  for (std::size_t s = 0; s < pattern.stitches.size(); ++s) {
    const Stitch& st = pattern.stitches[s];
    const auto& a = edge_vertices[st.a.panel][st.a.edge];
    const auto& b = edge_vertices[st.b.panel][st.b.edge];
    const std::size_t n = a.size();  // equal to b.size() by edge_segment_counts
    for (std::size_t i = 0; i < n; ++i) {
      pairs.emplace_back(a[i], st.same_direction ? b[i] : b[n - 1 - i]);
      mesh.stitch_of_pair.push_back(static_cast<int>(s));
    }
  }

  mesh.V.resize(static_cast<Eigen::Index>(V.size()), 3);
  mesh.rest.resize(static_cast<Eigen::Index>(V.size()), 2);
  for (std::size_t i = 0; i < V.size(); ++i) {
    mesh.V.row(i) = V[i].transpose();
    mesh.rest.row(i) = rest[i].transpose();
  }
  mesh.F.resize(static_cast<Eigen::Index>(F.size()), 3);
  for (std::size_t f = 0; f < F.size(); ++f) mesh.F.row(f) = F[f].transpose();
  mesh.seam_pairs.resize(static_cast<Eigen::Index>(pairs.size()), 2);
  for (std::size_t i = 0; i < pairs.size(); ++i) mesh.seam_pairs.row(i) << pairs[i].first, pairs[i].second;
  out.min_angle_deg = 180;  // over all panels
  for (const PanelStats& s : out.panels) out.min_angle_deg = std::min(out.min_angle_deg, s.min_angle_deg);
  return out;
}

}  // namespace tryon::garments
