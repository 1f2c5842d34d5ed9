#include "avatars/avatar.hpp"

#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "core/logger.hpp"
#include "core/mesh_io.hpp"

namespace tryon::avatars {

namespace {
constexpr double kMinHeight = 1.0, kMaxHeight = 2.2;  // metres: the people we dress
// Fewer triangles with area than this cannot be a person's surface (the bundled bodies have
// tens of thousands); a body that encloses less than this share of its bounding box is a sheet
// or loose triangles (the shared bodies fill 6.8-25 % of theirs, T-pose included).
constexpr int kMinTriangles = 100;
constexpr double kMinVolumeShare = 0.005;
// A body open at its neck, wrists or feet needs caps of a few % of its surface; a sheet (a
// half cylinder, a scan of one side) far more.
constexpr double kMaxHoleShare = 0.2;

// What closes the surface: its volume about `centre` (divergence theorem; about the box's centre
// so that the sum does not lose digits), unsigned, as a body with inward faces encloses as much;
// its area; and the length of its vector area (the sum of its faces' area vectors), which is 0
// for a closed surface and, for an open one, the area of the caps its holes would need.
struct Closure {
  double volume = 0, area = 0, hole_area = 0;
};
Closure closure(const TriMesh& m, const Vec3& centre) {
  Closure c;
  double six_v = 0;
  Vec3 vector_area = Vec3::Zero();
  for (int f = 0; f < m.num_triangles(); ++f) {
    const Vec3 p0 = Vec3(m.V.row(m.F(f, 0))) - centre, p1 = Vec3(m.V.row(m.F(f, 1))) - centre,
               p2 = Vec3(m.V.row(m.F(f, 2))) - centre;
    six_v += p0.dot(p1.cross(p2));
    const Vec3 n = (p1 - p0).cross(p2 - p0);
    vector_area += n;
    c.area += n.norm();
  }
  c.volume = std::abs(six_v) / 6;
  c.area /= 2;
  c.hole_area = vector_area.norm() / 2;
  return c;
}

// Refuses a mesh too small or too hollow to be a person: a single triangle or a sheet would be
// draped around for the whole frame limit (the cloth falls past it and crumples).
void check_is_a_body(const TriMesh& m, int triangles_with_area, const std::string& what) {
  if (triangles_with_area < kMinTriangles)
    throw InputError(what + " has " + std::to_string(triangles_with_area) + " triangle" +
                     (triangles_with_area == 1 ? "" : "s") + " with area; a person's body mesh has at least " +
                     std::to_string(kMinTriangles) + " (it is not a body)");
  const Bounds3 box = bounds(m.V);
  const double box_volume = box.extent().prod();
  const Closure c = closure(m, 0.5 * (box.min + box.max));
  const double share = box_volume > 0 ? c.volume / box_volume : 0;
  const double open = c.hole_area / c.area;
  logger().debug("{} encloses {:.4f} m³, {:.1f} % of its bounding box; its holes would take caps of {:.1f} % of its "
                 "{:.2f} m² of surface", what, c.volume, 100 * share, 100 * open, c.area);
  char buf[400];
  if (!(share >= kMinVolumeShare)) {
    std::snprintf(buf, sizeof buf, " encloses no volume (%.2f %% of its bounding box; a person's body fills about 7-25 %%): "
                  "it is a sheet or loose triangles, not a closed body", 100 * share);
    throw InputError(what + buf);
  }
  if (open > kMaxHoleShare) {
    std::snprintf(buf, sizeof buf, " does not enclose a volume: its holes would need caps of %.0f %% of its surface "
                  "(at most %.0f %% for a body with openings); it is an open sheet (or its faces are not turned "
                  "consistently), not a closed body",
                  100 * open, 100 * kMaxHoleShare);
    throw InputError(what + buf);
  }
}

// Brings the body to Y up, facing +Z: a quarter or half turn that takes its up axis to +Y
// (a Z-up character facing −Y then faces +Z), then one about +Y that takes its facing to +Z.
void orient(Avatar& a, const AvatarOptions& options) {
  if (a.mesh.num_vertices() == 0 || !a.mesh.V.allFinite()) return;  // refused below
  std::optional<int> given;
  if (options.up == UpAxis::y) given = 1;
  if (options.up == UpAxis::z) given = 2;
  a.frame = guess_up(a.mesh, given);
  const Mat3 up = rotation_up_to_y(a.frame.up);
  a.mesh.V = a.mesh.V * up.transpose();
  a.file_to_body = up;
  a.frame.facing = {2, 1};
  if (options.detect_facing) {
    guess_facing(a.mesh, a.frame);
    const Mat3 turn = rotation_facing_to_z(a.frame.facing);
    a.mesh.V = a.mesh.V * turn.transpose();
    a.file_to_body = turn * a.file_to_body;
  } else {
    a.frame.facing_how = "not looked for: as in the file";
  }
  a.frame.facing = nearest_axis(up.transpose() * a.frame.facing.vector());  // in the file's axes
  logger().info("body {}: up {} ({}), facing {} ({})", a.name, a.frame.up.name(), a.frame.up_how, a.frame.facing.name(),
                a.frame.facing_how);
}

const char* unit_name(double metres_per_unit) {
  if (metres_per_unit == 1) return "m";
  if (metres_per_unit == 0.1) return "dm";
  if (metres_per_unit == 0.01) return "cm";
  if (metres_per_unit == 0.001) return "mm";
  return "given";
}
}  // namespace

std::optional<double> detect_metres_per_unit(double height) {
  for (double s : {1.0, 0.1, 0.01, 0.001}) {
    const double h = height * s;
    if (h >= kMinHeight && h <= kMaxHeight) return s;
  }
  return std::nullopt;
}

Avatar load_avatar(const std::filesystem::path& path, const AvatarOptions& options) {
  return make_avatar(read_mesh(path), path.stem().string(), path.string(), options);
}

Avatar make_avatar(TriMesh mesh, const std::string& name, const std::string& source, const AvatarOptions& options) {
  Avatar a;
  a.name = name;
  const std::string what = "body '" + source + "'";
  a.mesh = std::move(mesh);

  // Weld exact duplicates only, and only when the mesh comes in split (boundary edges:
  // Assimp splits vertices per face corner or at UV seams). A mesh that is already closed
  // keeps its own indexing: real bodies carry distinct vertices at identical positions
  // (touching fingers, mouth corners) whose merging would make non-manifold edges.
  a.file_vertices = a.mesh.num_vertices();
  if (edge_topology(a.mesh.F).boundary_edges > 0) a.welded_vertices = weld_vertices(a.mesh, 0.0, &a.file_vertex);
  orient(a, options);
  Bounds3 raw = bounds(a.mesh.V);
  const double raw_height = raw.extent().y();
  if (!(raw_height > 0))
    throw InputError(what + " is flat (zero height along its up axis " + a.frame.up.name() + "); it is not a body");
  if (options.metres_per_unit) {
    if (!(*options.metres_per_unit > 0) || !std::isfinite(*options.metres_per_unit))
      throw InputError("the body unit must be a positive number of metres");
    a.metres_per_unit = *options.metres_per_unit;
  } else if (auto s = detect_metres_per_unit(raw_height)) {
    a.metres_per_unit = *s;
  } else {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%g", raw_height);
    std::string hint = raw.extent().z() > raw_height && options.up != UpAxis::z ? " (is it Z-up? try --up z)" : "";
    throw InputError(what + " is " + buf + " units tall, which is not 1.0-2.2 m in metres, decimetres, "
                     "centimetres or millimetres; it is not a person's size" + hint);
  }
  a.unit = unit_name(a.metres_per_unit);
  a.mesh.V *= a.metres_per_unit;
  a.file_to_body *= a.metres_per_unit;

  if (a.mesh.num_triangles() == 0) throw InputError(what + " has no triangles with area");
  // Zero-area triangles (collinear corners) carry no surface: none of them is a body at all.
  int degenerate = 0;
  for (int f = 0; f < a.mesh.num_triangles(); ++f) {
    const Vec3 p0 = a.mesh.V.row(a.mesh.F(f, 0)), p1 = a.mesh.V.row(a.mesh.F(f, 1)), p2 = a.mesh.V.row(a.mesh.F(f, 2));
    degenerate += (p1 - p0).cross(p2 - p0).squaredNorm() == 0.0;
  }
  if (degenerate == a.mesh.num_triangles())
    throw InputError(what + " has no triangles with area (all " + std::to_string(degenerate) + " are degenerate)");
  if (degenerate > 0) a.warnings.push_back(what + " has " + std::to_string(degenerate) + " zero-area triangles");
  check_is_a_body(a.mesh, a.mesh.num_triangles() - degenerate, what);

  // Feet at y = 0. x and z are kept: patterns are placed relative to the body's own origin.
  a.file_offset = Vec3(0, -bounds(a.mesh.V).min.y(), 0);
  a.mesh.V.col(1).array() += a.file_offset.y();
  a.bounds = bounds(a.mesh.V);
  a.height_m = a.bounds.extent().y();

  a.topology = edge_topology(a.mesh.F);
  if (a.topology.boundary_edges > 0)
    a.warnings.push_back(what + " is not closed: " + std::to_string(a.topology.boundary_edges) +
                         " boundary edges (inside/outside tests near the holes are unreliable)");
  if (a.topology.non_manifold_edges > 0)
    a.warnings.push_back(what + " has " + std::to_string(a.topology.non_manifold_edges) +
                         " non-manifold edges");
  logger().info("body {}: {} vertices, {} triangles, unit {} ({}), height {:.3f} m", a.name,
                a.mesh.num_vertices(), a.mesh.num_triangles(), a.unit,
                options.metres_per_unit ? "given" : "detected from the height", a.height_m);
  for (const auto& w : a.warnings) logger().warn("{}", w);
  return a;
}

Points3 to_body_frame(const Avatar& body, ConstRef<Points3> V_file) {
  if (V_file.rows() != body.file_vertices)
    throw InputError("body '" + body.name + "': a frame of " + std::to_string(V_file.rows()) +
                     " vertices, but the body has " + std::to_string(body.file_vertices) +
                     " in its file (a motion's frames share the body's mesh)");
  const int n = body.mesh.num_vertices();
  Points3 V(n, 3);
  for (int i = 0; i < n; ++i) {
    const int j = body.file_vertex.empty() ? i : body.file_vertex[i];
    V.row(i) = (body.file_to_body * V_file.row(j).transpose() + body.file_offset).transpose();
  }
  return V;
}

}  // namespace tryon::avatars
