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

// A closed box `w × h × d` (file units) standing on z = 0 or y = 0, off-centre.
TriMesh box(double w, double h, double d, bool z_up) {
  TriMesh m;
  m.V.resize(8, 3);
  for (int i = 0; i < 8; ++i) {
    const double x = (i & 1) * w + 5, y = ((i >> 1) & 1) * h + 7, z = ((i >> 2) & 1) * d - 3;
    if (z_up) m.V.row(i) << x, -z, y;
    else m.V.row(i) << x, y, z;
  }
  m.F.resize(12, 3);
  m.F << 0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6,
      1, 3, 5, 3, 7, 5;
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

TEST(Avatar, RefusesWhatIsNotABodyAndWarnsOnOpenOnes) {
  const fs::path dir = temp_dir();
  write_obj(dir / "km.obj", box(250, 1700000, 120, false));
  EXPECT_THROW(load_avatar(dir / "km.obj"), InputError);
  write_obj(dir / "flat.obj", box(1, 0, 1, false));
  EXPECT_THROW(load_avatar(dir / "flat.obj"), InputError);
  std::ofstream(dir / "one.obj") << "v 0 0 0\nv 1 0 0\nv 0 1.7 0\nf 1 2 3\n";
  const Avatar one = load_avatar(dir / "one.obj");  // odd but usable: loads with warnings
  EXPECT_EQ(one.topology.boundary_edges, 3);
  EXPECT_FALSE(one.warnings.empty());
  std::ofstream(dir / "points.obj") << "v 0 0 0\nv 1 0 0\nv 0 1.7 0\n";
  EXPECT_THROW(load_avatar(dir / "points.obj"), InputError);
  EXPECT_THROW(load_avatar(dir), InputError);
  EXPECT_THROW(load_avatar(dir / "missing.obj"), InputError);
  AvatarOptions bad;
  bad.metres_per_unit = -1;
  EXPECT_THROW(load_avatar(dir / "one.obj", bad), InputError);
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
