#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "avatars/avatar.hpp"
#include "core/error.hpp"
#include "core/mesh_io.hpp"
#include "test_data.hpp"

using namespace tryon;
using namespace tryon::avatars;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / ("tryon_avatar_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// A closed box `w × h × d` (file units) standing on z = 0 or y = 0, off-centre, each side cut
// into 6 × 6 squares (432 triangles: load_avatar refuses fewer than 100).
TriMesh box(double w, double h, double d, bool z_up) {
  constexpr int n = 6;
  std::vector<Vec3> points;
  std::vector<Eigen::Vector3i> faces;
  // Side `axis` at `side` (0 or 1) of the unit cube, its squares turned outwards.
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side) {
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      const int base = static_cast<int>(points.size());
      for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
          Vec3 p;
          p[axis] = side;
          p[u] = static_cast<double>(i) / n;
          p[v] = static_cast<double>(j) / n;
          points.push_back(p);
        }
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const int a = base + i * (n + 1) + j, b = a + n + 1, c = a + 1, e = b + 1;
          if (side == 1) faces.insert(faces.end(), {{a, b, e}, {a, e, c}});
          else faces.insert(faces.end(), {{a, e, b}, {a, c, e}});
        }
    }
  TriMesh m;
  m.V.resize(static_cast<Eigen::Index>(points.size()), 3);
  for (std::size_t k = 0; k < points.size(); ++k) {
    const Vec3& q = points[k];
    const double x = q.x() * w + 5, y = q.y() * h + 7, z = q.z() * d - 3;
    if (z_up) m.V.row(static_cast<Eigen::Index>(k)) << x, -z, y;
    else m.V.row(static_cast<Eigen::Index>(k)) << x, y, z;
  }
  m.F.resize(static_cast<Eigen::Index>(faces.size()), 3);
  for (std::size_t f = 0; f < faces.size(); ++f) m.F.row(static_cast<Eigen::Index>(f)) = faces[f].transpose();
  return m;
}

struct UnitCase {
  double height;
  const char* unit;
};
}  // namespace

TEST(Avatar, DetectsUnitsFromHeight) {
  EXPECT_EQ(detect_metres_per_unit(1.7), 1.0);
  EXPECT_EQ(detect_metres_per_unit(17.0), 0.1);
  EXPECT_EQ(detect_metres_per_unit(170.0), 0.01);
  EXPECT_EQ(detect_metres_per_unit(1700.0), 0.001);
  EXPECT_FALSE(detect_metres_per_unit(0.3).has_value());
  EXPECT_FALSE(detect_metres_per_unit(1700000.0).has_value());  // a kilometre-tall "body" in mm? no: 1.7 km
}

TEST(Avatar, NormalisesUnitsAndFrame) {
  const fs::path dir = temp_dir();
  for (const UnitCase& c : {UnitCase{1.75, "m"}, UnitCase{17.5, "dm"}, UnitCase{175, "cm"}, UnitCase{1750, "mm"}}) {
    for (bool z_up : {false, true}) {
      SCOPED_TRACE(std::string(c.unit) + (z_up ? " z-up" : " y-up"));
      const fs::path p = dir / (std::string("box_") + c.unit + (z_up ? "_z" : "_y") + ".obj");
      write_obj(p, box(c.height * 0.25, c.height, c.height * 0.12, z_up));
      AvatarOptions o;
      o.up = z_up ? UpAxis::z : UpAxis::y;
      const Avatar a = load_avatar(p, o);
      EXPECT_EQ(a.unit, c.unit);
      EXPECT_NEAR(a.height_m, 1.75, 1e-6);  // Assimp reads single precision
      EXPECT_NEAR(a.bounds.min.y(), 0.0, 1e-12);
      // x and z stay where the file put them (in metres): the box spans x 5..5+w units.
      EXPECT_NEAR(a.bounds.min.x(), 5 * a.metres_per_unit, 1e-6);
      EXPECT_NEAR(a.bounds.min.z(), -3 * a.metres_per_unit, 1e-6);
      EXPECT_NEAR(a.bounds.extent().z(), 1.75 * 0.12, 1e-6);
      EXPECT_EQ(a.topology.boundary_edges, 0);
      EXPECT_TRUE(a.warnings.empty());
    }
  }
  fs::remove_all(dir);
}

namespace {
/// The message of the InputError `load_avatar(path)` throws, or "" when it loads.
std::string refusal(const fs::path& path) {
  try {
    load_avatar(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}
}  // namespace

TEST(Avatar, RefusesWhatIsNotABodyAndWarnsOnOpenOnes) {
  const fs::path dir = temp_dir();
  write_obj(dir / "km.obj", box(250, 1700000, 120, false));
  EXPECT_THROW(load_avatar(dir / "km.obj"), InputError);
  write_obj(dir / "flat.obj", box(1, 0, 1, false));
  EXPECT_THROW(load_avatar(dir / "flat.obj"), InputError);
  std::ofstream(dir / "points.obj") << "v 0 0 0\nv 1 0 0\nv 0 1.7 0\n";
  EXPECT_THROW(load_avatar(dir / "points.obj"), InputError);
  EXPECT_THROW(load_avatar(dir), InputError);
  EXPECT_THROW(load_avatar(dir / "missing.obj"), InputError);
  // A box without its top (open at the head, 5 % of its surface): still a volume. It loads, with
  // a warning. 72 triangles a side, in the order x = 0, x = 1, y = 0, y = 1, z = 0, z = 1.
  TriMesh open = box(0.4, 1.7, 0.3, false);
  open.F.middleRows(216, 144) = Triangles(open.F.bottomRows(144));
  open.F.conservativeResize(open.F.rows() - 72, 3);
  write_obj(dir / "open.obj", open);
  const Avatar a = load_avatar(dir / "open.obj");
  EXPECT_GT(a.topology.boundary_edges, 0);
  ASSERT_FALSE(a.warnings.empty());
  EXPECT_NE(a.warnings[0].find("not closed"), std::string::npos) << a.warnings[0];
  AvatarOptions bad;
  bad.metres_per_unit = -1;
  EXPECT_THROW(load_avatar(dir / "open.obj", bad), InputError);
  fs::remove_all(dir);
}

TEST(Avatar, RefusesBodiesTooSmallOrHollowToBeAPerson) {
  const fs::path dir = temp_dir();
  // A single triangle, a tetrahedron: fewer than 100 triangles with area.
  std::ofstream(dir / "one.obj") << "v 0 0 0\nv 1 0 0\nv 0 1.7 0\nf 1 2 3\n";
  std::string msg = refusal(dir / "one.obj");
  EXPECT_NE(msg.find("one.obj"), std::string::npos) << msg;
  EXPECT_NE(msg.find("has 1 triangle with area"), std::string::npos) << msg;
  std::ofstream(dir / "tetra.obj") << "v 0 0 0\nv 1 0 0\nv 0 1.7 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  EXPECT_NE(refusal(dir / "tetra.obj").find("has 4 triangles with area"), std::string::npos);
  // A flat sheet standing upright (a 1.7 m wall, 800 triangles): no volume.
  write_obj(dir / "wall.obj", box(0.5, 1.7, 0.0, false));
  msg = refusal(dir / "wall.obj");
  EXPECT_NE(msg.find("wall.obj"), std::string::npos) << msg;
  EXPECT_NE(msg.find("encloses no volume"), std::string::npos) << msg;
  // Three sides of a box meeting at a corner: a sheet whose volume about its centre is not zero,
  // but whose holes would need caps of most of its surface.
  TriMesh corner = box(0.5, 1.7, 0.4, false);
  Triangles kept(corner.F.rows(), 3);
  int k = 0;
  for (int f = 0; f < corner.F.rows(); ++f) {
    const int side = f / 72;  // 72 triangles a side: x=0, x=1, y=0, y=1, z=0, z=1
    if (side == 0 || side == 2 || side == 5) kept.row(k++) = corner.F.row(f);
  }
  corner.F = kept.topRows(k);
  write_obj(dir / "corner.obj", corner);
  msg = refusal(dir / "corner.obj");
  EXPECT_NE(msg.find("does not enclose a volume"), std::string::npos) << msg;
  fs::remove_all(dir);
}

TEST(Avatar, EverySharedBodyLoads) {
  TRYON_REQUIRE_SHARED("avatars");
  int count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(test::shared_data() / "avatars")) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".obj" && ext != ".glb" && ext != ".dae") continue;
    SCOPED_TRACE(entry.path().string());
    const Avatar a = load_avatar(entry.path());
    EXPECT_GE(a.height_m, 1.0);
    EXPECT_LE(a.height_m, 2.2);
    EXPECT_GT(a.mesh.num_triangles(), 1000);
    if (entry.path().string().find("derived") != std::string::npos ||
        entry.path().parent_path().filename() == "garmentcode") {
      EXPECT_EQ(a.topology.boundary_edges, 0) << "the derived and GarmentCode bodies are closed";
      EXPECT_EQ(a.topology.non_manifold_edges, 0);
      EXPECT_EQ(a.unit, "m");
    }
    ++count;
  }
  EXPECT_GE(count, 11);
}

TEST(Avatar, MakeHumanBaseMeshIsInDecimetres) {
  TRYON_REQUIRE_SHARED("avatars/makehuman/raw/base.obj");
  const Avatar a = load_avatar(test::shared_data() / "avatars/makehuman/raw/base.obj");
  EXPECT_EQ(a.unit, "dm");
  EXPECT_NEAR(a.height_m, 1.69, 0.02);
}
