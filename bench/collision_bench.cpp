// tryon_bench_collision: tryon::collision against FCL 0.7 on the same meshes, in the same run.
//
// Scene A (the papers' experiment): body B placed against body A along a sweep of relative
// positions, from apart to deeply overlapping, with rotations. For every tryon volume type and for
// FCL (OBBRSS with transforms; AABB with B pre-transformed into A's frame, FCL's fastest and
// fairest configuration): build time, median query time, intersecting triangle pairs.
// Pairs are counted the same way on both sides: FCL runs with enable_contact = false and an
// unbounded num_max_contacts, which records one Contact per intersecting triangle pair
// (b1, b2); the sets of pairs are compared, not only their sizes.
//
// Scene B (cloth against body): the placed cloth against the body: AABB refit vs rebuild,
// proximity at d, self intersections with and without normal cones.
#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/math/bv/AABB.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <unistd.h>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "avatars/avatar.hpp"
#include "garments/garment_builder.hpp"
#include "garments/garmentcode_reader.hpp"
#include "collision/collision.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/logger.hpp"
#include "core/mesh_io.hpp"
#include "core/parallel.hpp"

using namespace tryon;
using namespace tryon::collision;
using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

namespace {

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Wall times of `reps` runs of body (setup untimed), sorted.
std::vector<double> times_ms(int reps, const std::function<void()>& body, const std::function<void()>& setup) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    setup();
    const auto t0 = Clock::now();
    body();
    t.push_back(ms_since(t0));
  }
  std::sort(t.begin(), t.end());
  return t;
}

// Median wall time of `reps` runs of body (setup untimed).
double median_ms(int reps, const std::function<void()>& body, const std::function<void()>& setup = [] {}) {
  const auto t = times_ms(reps, body, setup);
  return t[t.size() / 2];
}

TriMesh load(const std::string& path) {
  TriMesh m = read_mesh(path);
  weld_vertices(m, 1e-9);  // Assimp splits vertices at UV seams
  return m;
}

// ---------------------------------------------------------------- FCL
using S = double;
std::vector<fcl::Vector3<S>> fcl_verts(const Points3& V, const Rigid& T = {}) {
  std::vector<fcl::Vector3<S>> out(V.rows());
  for (int i = 0; i < V.rows(); ++i) out[i] = T.apply(Vec3(V.row(i)));
  return out;
}
std::vector<fcl::Triangle> fcl_tris(const Triangles& F) {
  std::vector<fcl::Triangle> out;
  out.reserve(F.rows());
  for (int i = 0; i < F.rows(); ++i) out.emplace_back(F(i, 0), F(i, 1), F(i, 2));
  return out;
}
template <class BV>
std::shared_ptr<fcl::BVHModel<BV>> fcl_build(const std::vector<fcl::Vector3<S>>& v, const std::vector<fcl::Triangle>& t) {
  auto m = std::make_shared<fcl::BVHModel<BV>>();
  m->beginModel(static_cast<int>(t.size()), static_cast<int>(v.size()));
  m->addSubModel(v, t);
  m->endModel();
  return m;
}
fcl::Transform3<S> fcl_tf(const Rigid& T) {
  fcl::Transform3<S> X = fcl::Transform3<S>::Identity();
  X.linear() = T.R;
  X.translation() = T.t;
  return X;
}
template <class BV>
std::vector<TrianglePair> fcl_pairs(const fcl::BVHModel<BV>& a, const fcl::BVHModel<BV>& b, const fcl::Transform3<S>& Tb) {
  fcl::CollisionRequest<S> req(std::numeric_limits<std::size_t>::max(), /*enable_contact=*/false);
  fcl::CollisionResult<S> res;
  fcl::collide(&a, fcl::Transform3<S>::Identity(), &b, Tb, req, res);
  std::vector<TrianglePair> out;
  out.reserve(res.numContacts());
  for (std::size_t i = 0; i < res.numContacts(); ++i) out.push_back({static_cast<int>(res.getContact(i).b1), static_cast<int>(res.getContact(i).b2)});
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// ---------------------------------------------------------------- scene A
struct SweepStep {
  double overlap;  // 0 = apart ... 1 = B's centre on A's centre
  Rigid T;         // B (pre-centred on A) into A's frame
};

std::vector<SweepStep> make_sweep(const TriMesh& A, int steps) {
  const Bounds3 bb = bounds(A.V);
  const Vec3 c = 0.5 * (bb.min + bb.max);
  const double width = bb.extent().x();
  std::vector<SweepStep> sweep;
  for (int k = 0; k < steps; ++k) {
    const double overlap = steps == 1 ? 1.0 : double(k) / (steps - 1);
    SweepStep s;
    s.overlap = overlap;
    // turned about a tilted vertical axis: 40° when apart, 5° when centred (the two bodies then
    // cross each other almost everywhere: the deep-overlap end of the sweep)
    const double angle = (5.0 + 35.0 * (1.0 - overlap)) * M_PI / 180.0;
    s.T.R = Eigen::AngleAxisd(angle, Vec3(0.15, 1, 0.1).normalized()).toRotationMatrix();
    const Vec3 offset((1.15 - 1.15 * overlap) * width, 0.02 * k, 0.01 * k);
    s.T.t = c + offset - s.T.R * c;  // rotate about A's centre, then shift along x
    sweep.push_back(s);
  }
  return sweep;
}

struct MethodRow {
  std::string method;
  double build_ms = 0;
  std::vector<double> query_ms;
  std::vector<double> first_contact_ms;
  std::vector<std::vector<TrianglePair>> pairs;
};

template <class BV>
bool fcl_any(const fcl::BVHModel<BV>& a, const fcl::BVHModel<BV>& b, const fcl::Transform3<S>& Tb) {
  fcl::CollisionRequest<S> req(1, /*enable_contact=*/false);
  fcl::CollisionResult<S> res;
  fcl::collide(&a, fcl::Transform3<S>::Identity(), &b, Tb, req, res);
  return res.isCollision();
}

template <class BV>
MethodRow run_ours(const std::string& name, const TriMesh& A, const TriMesh& B, const std::vector<SweepStep>& sweep,
                   int reps, const BvhConfig& cfg) {
  MethodRow row;
  row.method = name;
  Bvh<BV> ta, tb;
  row.build_ms = median_ms(reps, [&] {
    ta.build(A.V, A.F, cfg);
    tb.build(B.V, B.F, cfg);
  });
  for (const SweepStep& s : sweep) {
    std::vector<TrianglePair> pairs;
    row.query_ms.push_back(median_ms(reps, [&] { pairs = intersecting_pairs<BV>({A.V, A.F, ta}, {B.V, B.F, tb}, s.T); }));
    bool any = false;
    row.first_contact_ms.push_back(median_ms(reps, [&] { any = first_contact<BV>({A.V, A.F, ta}, {B.V, B.F, tb}, s.T); }));
    if (any != !pairs.empty()) throw std::runtime_error(name + ": first_contact disagrees with intersecting_pairs");
    row.pairs.push_back(std::move(pairs));
  }
  return row;
}

MethodRow run_fcl_obbrss(const TriMesh& A, const TriMesh& B, const std::vector<SweepStep>& sweep, int reps) {
  MethodRow row;
  row.method = "fcl_obbrss";
  const auto va = fcl_verts(A.V), vb = fcl_verts(B.V);
  const auto fa = fcl_tris(A.F), fb = fcl_tris(B.F);
  std::shared_ptr<fcl::BVHModel<fcl::OBBRSS<S>>> ma, mb;
  row.build_ms = median_ms(reps, [&] {
    ma = fcl_build<fcl::OBBRSS<S>>(va, fa);
    mb = fcl_build<fcl::OBBRSS<S>>(vb, fb);
  });
  for (const SweepStep& s : sweep) {
    std::vector<TrianglePair> pairs;
    row.query_ms.push_back(median_ms(reps, [&] { pairs = fcl_pairs(*ma, *mb, fcl_tf(s.T)); }));
    row.first_contact_ms.push_back(median_ms(reps, [&] { (void)fcl_any(*ma, *mb, fcl_tf(s.T)); }));
    row.pairs.push_back(std::move(pairs));
  }
  return row;
}

MethodRow run_fcl_aabb(const TriMesh& A, const TriMesh& B, const std::vector<SweepStep>& sweep, int reps) {
  MethodRow row;
  row.method = "fcl_aabb";
  const auto va = fcl_verts(A.V), vb = fcl_verts(B.V);
  const auto fa = fcl_tris(A.F), fb = fcl_tris(B.F);
  std::shared_ptr<fcl::BVHModel<fcl::AABB<S>>> ma, mb;
  row.build_ms = median_ms(reps, [&] {
    ma = fcl_build<fcl::AABB<S>>(va, fa);
    mb = fcl_build<fcl::AABB<S>>(vb, fb);
  });
  for (const SweepStep& s : sweep) {
    // B pre-transformed into A's frame (untimed): identity transforms, FCL's fast path.
    const auto mbw = fcl_build<fcl::AABB<S>>(fcl_verts(B.V, s.T), fb);
    std::vector<TrianglePair> pairs;
    row.query_ms.push_back(median_ms(reps, [&] { pairs = fcl_pairs(*ma, *mbw, fcl::Transform3<S>::Identity()); }));
    row.first_contact_ms.push_back(median_ms(reps, [&] { (void)fcl_any(*ma, *mbw, fcl::Transform3<S>::Identity()); }));
    row.pairs.push_back(std::move(pairs));
  }
  return row;
}

std::size_t symmetric_difference(const std::vector<TrianglePair>& a, const std::vector<TrianglePair>& b) {
  std::vector<TrianglePair> d;
  std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(d));
  return d.size();
}

}  // namespace

int main(int argc, char** argv) {
  // On an otherwise idle machine, OpenMP threads that sleep between queries pay a wake-up on
  // every query (measured: 2-thread speedup 1.59 median with libgomp's default, 1.83 spinning).
  // The benchmark spins unless told otherwise; the tryon program itself waits passively, which
  // is what a busy machine needs. The policy in force is recorded in the JSON.
  if (!std::getenv("OMP_WAIT_POLICY") && ::setenv("OMP_WAIT_POLICY", "ACTIVE", 1) == 0)
    ::execv("/proc/self/exe", argv);
  CLI::App app{"tryon collision benchmark (tryon::collision vs FCL 0.7)"};
  std::string a_path = "../shared/data/avatars/makehuman/derived/makehuman_male.obj";
  std::string b_path = "../shared/data/avatars/garmentcode/mean_female.obj";
  const std::string default_cloth = "../shared/peers/data/cloth_100.obj";
  std::string cloth_path = default_cloth;
  std::string avatar_path = "../shared/peers/data/body_sphere_20k.obj";
  std::string garment_path, out_path;
  std::vector<double> cloth_offset{0.0, -0.55, 0.0};
  double cloth_wave = 0.02, prox_d = 0.005;
  std::string cloth_shape = "auto";
  int steps = 8, reps = 5, leaf = 1;
  std::string split = "midpoint";
  int sphere_levels = 6;
  int threads = 0;
  app.add_option("--threads", threads, "threads for scene A/B queries (0 = OpenMP default)");
  app.add_option("--a", a_path, "scene A: body A (OBJ or any Assimp format)");
  app.add_option("--b", b_path, "scene A: body B");
  app.add_option("--cloth", cloth_path, "scene B: a placed garment mesh (as `tryon inspect -o` writes)");
  app.add_option("--avatar", avatar_path, "scene B: the body the cloth is placed against");
  app.add_option("--garment", garment_path, "scene B: a pattern file, placed on --avatar (instead of --cloth)");
  app.add_option("--cloth-shape", cloth_shape,
                 "scene B: as-is (the placed mesh), cut (offset + waves, cuts the body), drape (a flat grid "
                 "wrapped over a sphere body 3 mm off its surface); auto = drape for the default grid, else as-is")
      ->check(CLI::IsMember({"auto", "as-is", "cut", "drape"}));
  app.add_option("--cloth-offset", cloth_offset, "scene B, cut: translation applied to the cloth (m)")->expected(3);
  app.add_option("--cloth-wave", cloth_wave, "scene B, cut: amplitude (m) of smooth waves added to the cloth");
  app.add_option("--proximity", prox_d, "scene B: proximity distance d (m)");
  app.add_option("--steps", steps, "scene A: positions in the sweep")->check(CLI::Range(1, 100));
  app.add_option("--reps", reps, "repetitions per timing (median)")->check(CLI::Range(1, 1000));
  app.add_option("--leaf", leaf, "triangles per leaf")->check(CLI::Range(1, 64));
  app.add_option("--split", split, "midpoint | sah")->check(CLI::IsMember({"midpoint", "sah"}));
  app.add_option("--sphere-levels", sphere_levels, "sphere_obb: levels tested as spheres");
  app.add_option("--json", out_path, "write the results here");
  CLI11_PARSE(app, argc, argv);

  try {
    set_num_threads(threads);
    const BvhConfig cfg{leaf, split == "sah" ? SplitRule::Sah : SplitRule::Midpoint, sphere_levels};
    json out;
    out["config"] = {{"a", a_path}, {"b", b_path}, {"cloth", cloth_path}, {"avatar", avatar_path},
                     {"leaf", leaf}, {"split", split}, {"sphere_levels", sphere_levels}, {"reps", reps},
                     {"threads", num_threads()}, {"fcl_version", FCL_VERSION},
                     {"omp_wait_policy", std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : ""}};

    // ------------------------------------------------------------ scene A
    TriMesh A = load(a_path), B = load(b_path);
    {  // centre B on A
      const Bounds3 ba = bounds(A.V), bb = bounds(B.V);
      const Vec3 shift = 0.5 * (ba.min + ba.max) - 0.5 * (bb.min + bb.max);
      B.V.rowwise() += shift.transpose();
    }
    std::cerr << "scene A: A " << A.F.rows() << " tris, B " << B.F.rows() << " tris, " << steps << " positions\n";
    const auto sweep = make_sweep(A, steps);
    std::vector<MethodRow> rows;
    rows.push_back(run_ours<Aabb>("aabb", A, B, sweep, reps, cfg));
    rows.push_back(run_ours<Sphere>("sphere", A, B, sweep, reps, cfg));
    rows.push_back(run_ours<Obb>("obb", A, B, sweep, reps, cfg));
    rows.push_back(run_ours<SphereObb>("sphere_obb", A, B, sweep, reps, cfg));
    rows.push_back(run_ours<SAabb>("s_aabb", A, B, sweep, reps, cfg));
    rows.push_back(run_fcl_obbrss(A, B, sweep, reps));
    rows.push_back(run_fcl_aabb(A, B, sweep, reps));

    json scene_a = json::array();
    json diffs = json::array();
    bool all_identical = true;
    for (std::size_t k = 0; k < sweep.size(); ++k) {
      json d = {{"overlap", sweep[k].overlap}};
      for (const MethodRow& r : rows) {
        scene_a.push_back({{"overlap", sweep[k].overlap}, {"method", r.method}, {"build_ms", r.build_ms},
                           {"query_ms", r.query_ms[k]}, {"pairs", r.pairs[k].size()},
                           {"first_contact_ms", r.first_contact_ms[k]}});
        const std::size_t diff = symmetric_difference(r.pairs[k], rows[0].pairs[k]);
        d["pairs_differing_from_aabb"][r.method] = diff;
        all_identical = all_identical && diff == 0;
      }
      diffs.push_back(d);
    }
    out["scene_a"] = scene_a;
    out["scene_a_pair_differences"] = diffs;
    out["scene_a_pairs_identical"] = all_identical;
    json sums;
    double best_ours = 1e300, best_fcl = 1e300;
    std::string best_ours_name, best_fcl_name;
    for (const MethodRow& r : rows) {
      double s = 0;
      for (double q : r.query_ms) s += q;
      sums[r.method] = s;
      if (r.method.rfind("fcl", 0) == 0) {
        if (s < best_fcl) best_fcl = s, best_fcl_name = r.method;
      } else if (s < best_ours) {
        best_ours = s, best_ours_name = r.method;
      }
    }
    out["scene_a_query_ms_sum"] = sums;
    json fsums;
    for (const MethodRow& r : rows) {
      double s = 0;
      for (double q : r.first_contact_ms) s += q;
      fsums[r.method] = s;
    }
    out["scene_a_first_contact_ms_sum"] = fsums;
    out["scene_a_best"] = {{"ours", best_ours_name}, {"ours_ms", best_ours}, {"fcl", best_fcl_name},
                           {"fcl_ms", best_fcl}, {"speedup_vs_fcl", best_fcl / best_ours}};

    // 2-thread speedup on the position with the most pairs (if > 1000), every method of ours.
    {
      std::size_t kmax = 0;
      for (std::size_t k = 0; k < sweep.size(); ++k)
        if (rows[0].pairs[k].size() > rows[0].pairs[kmax].size()) kmax = k;
      json sp;
      sp["overlap"] = sweep[kmax].overlap;
      sp["pairs"] = rows[0].pairs[kmax].size();
      auto speed = [&](auto tag, const std::string& name) {
        using BV = decltype(tag);
        Bvh<BV> ta(A.V, A.F, cfg), tb(B.V, B.F, cfg);
        auto q = [&] { (void)intersecting_pairs<BV>({A.V, A.F, ta}, {B.V, B.F, tb}, sweep[kmax].T); };
        // Alternating 1- and 2-thread runs so that both see the same background load.
        std::vector<double> a, b;
        for (int r = 0; r < std::max(reps, 9); ++r) {
          set_num_threads(1);
          a.push_back(times_ms(1, q, [] {})[0]);
          set_num_threads(2);
          b.push_back(times_ms(1, q, [] {})[0]);
        }
        set_num_threads(threads);
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        const double t1 = a[a.size() / 2], t2 = b[b.size() / 2];
        sp[name] = {{"ms_1_thread", t1}, {"ms_2_threads", t2}, {"speedup", t1 / t2},
                    {"min_ms_1_thread", a[0]}, {"min_ms_2_threads", b[0]}, {"speedup_of_min", a[0] / b[0]}};
        return t1 / t2;
      };
      speed(Aabb{}, "aabb");
      speed(Sphere{}, "sphere");
      speed(Obb{}, "obb");
      speed(SphereObb{}, "sphere_obb");
      speed(SAabb{}, "s_aabb");
      const std::string best = best_ours_name;
      out["parallel_speedup"] = sp[best]["speedup"];  // medians
      out["parallel_speedup_of_min"] = sp[best]["speedup_of_min"];  // best of N (filters background load)
      out["parallel_speedup_method"] = best;
      out["parallel_speedup_detail"] = sp;
    }

    // ------------------------------------------------------------ scene B
    TriMesh body, cloth;
    if (!garment_path.empty()) {
      // The placed garment of a pattern on the (normalised) body, as `tryon inspect` builds it.
      const avatars::Avatar avatar = avatars::load_avatar(avatar_path);
      body = avatar.mesh;
      garments::BuildOptions bopt;
      bopt.body_height_m = avatar.height_m;
      const garments::GarmentBuild build = garments::build_garment(garments::read_garmentcode(garment_path), bopt);
      cloth.V = build.mesh.V;
      cloth.F = build.mesh.F;
      cloth_path = garment_path;
      if (cloth_shape == "auto") cloth_shape = "as-is";
    } else {
      body = load(avatar_path);
      cloth = load(cloth_path);
    }
    if (cloth_shape == "auto") cloth_shape = cloth_path == default_cloth ? "drape" : "as-is";
    if (cloth_shape == "cut") {
      cloth.V.rowwise() += Vec3(cloth_offset[0], cloth_offset[1], cloth_offset[2]).transpose();
      if (cloth_wave > 0)
        for (int i = 0; i < cloth.V.rows(); ++i)
          cloth.V(i, 1) += cloth_wave * std::sin(9.0 * cloth.V(i, 0)) * std::cos(7.0 * cloth.V(i, 2));
    } else if (cloth_shape == "drape") {
      // Wrap the flat grid over the body's bounding sphere, 3 mm off it: arc length along each
      // radial line is kept (angle phi = r / R over the cap), past the equator the cloth hangs
      // straight down. The map is one-to-one, so the cloth does not intersect itself.
      const Bounds3 bb = bounds(body.V);
      const Vec3 c = 0.5 * (bb.min + bb.max);
      const double R = 0.5 * bb.extent().maxCoeff() + 0.003;
      const Bounds3 cb = bounds(cloth.V);
      const Vec3 cc = 0.5 * (cb.min + cb.max);
      for (int i = 0; i < cloth.V.rows(); ++i) {
        const double x = cloth.V(i, 0) - cc.x(), z = cloth.V(i, 2) - cc.z(), r = std::hypot(x, z);
        const double ux = r > 0 ? x / r : 0, uz = r > 0 ? z / r : 0, phi = r / R;
        Vec3 p;
        if (phi <= M_PI / 2) p = Vec3(R * std::sin(phi) * ux, R * std::cos(phi), R * std::sin(phi) * uz);
        else p = Vec3(R * ux, -(r - R * M_PI / 2), R * uz);
        cloth.V.row(i) = (c + p).transpose();
      }
    }
    out["config"]["cloth_shape"] = cloth_shape;
    std::cerr << "scene B: cloth " << cloth.F.rows() << " tris, body " << body.F.rows() << " tris\n";
    const MeshTopology topo_c = MeshTopology::build(cloth.F, static_cast<int>(cloth.V.rows()));
    const MeshTopology topo_b = MeshTopology::build(body.F, static_cast<int>(body.V.rows()));
    Bvh<Aabb> tb_body(body.V, body.F, cfg), tb_cloth(cloth.V, cloth.F, cfg);
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> U(-1e-3, 1e-3);
    Points3 moved = cloth.V;
    auto jitter = [&] {
      for (int i = 0; i < moved.rows(); ++i)
        moved.row(i) = cloth.V.row(i) + Vec3(U(rng), U(rng), U(rng)).transpose();
    };
    json sb;
    sb["cloth_triangles"] = cloth.F.rows();
    sb["body_triangles"] = body.F.rows();
    const int breps = std::max(reps, 7);
    out["refit_ms"] = median_ms(breps, [&] { tb_cloth.refit(moved, cloth.F); }, jitter);
    out["rebuild_ms"] = median_ms(breps, [&] { tb_cloth.build(moved, cloth.F, cfg); }, jitter);
    tb_cloth.build(cloth.V, cloth.F, cfg);
    ProximityResult prox, selfprox;
    out["proximity_ms"] = median_ms(breps, [&] {
      prox = proximity({cloth.V, cloth.F, topo_c, tb_cloth}, {body.V, body.F, topo_b, tb_body}, prox_d);
    });
    out["self_proximity_ms"] = median_ms(breps, [&] { selfprox = self_proximity({cloth.V, cloth.F, topo_c, tb_cloth}, prox_d); });
    SelfResult plain, coned;
    out["self_ms"] = median_ms(breps, [&] { plain = self_intersections<Aabb>({cloth.V, cloth.F, tb_cloth}, {false}); });
    out["self_cone_ms"] = median_ms(breps, [&] { coned = self_intersections<Aabb>({cloth.V, cloth.F, tb_cloth}, {true, &topo_c}); });
    sb["self_cone_no_topology_ms"] = median_ms(breps, [&] { (void)self_intersections<Aabb>({cloth.V, cloth.F, tb_cloth}, {true}); });
    std::vector<TrianglePair> cb_pairs;
    sb["cloth_body_query_ms"] = median_ms(breps, [&] {
      cb_pairs = intersecting_pairs<Aabb>({cloth.V, cloth.F, tb_cloth}, {body.V, body.F, tb_body});
    });
    sb["cloth_body_pairs"] = cb_pairs.size();
    sb["proximity_d"] = prox_d;
    sb["proximity_vertex_triangle"] = prox.vertex_triangle.size();
    sb["proximity_triangle_vertex"] = prox.triangle_vertex.size();
    sb["proximity_edge_edge"] = prox.edge_edge.size();
    sb["self_proximity_vertex_triangle"] = selfprox.vertex_triangle.size();
    sb["self_proximity_edge_edge"] = selfprox.edge_edge.size();
    sb["self_pairs"] = plain.pairs.size();
    sb["self_pairs_with_cones"] = coned.pairs.size();
    sb["self_culled_node_pairs"] = coned.culled_nodes;
    sb["self_culled_triangles"] = coned.culled_triangles;
    sb["self_cone_candidates"] = coned.cone_candidates;
    {  // FCL on the same cloth: AABB bottom-up refit and rebuild, collide in world space
      const auto fb = fcl_tris(cloth.F);
      auto m = fcl_build<fcl::AABB<S>>(fcl_verts(cloth.V), fb);
      std::vector<fcl::Vector3<S>> vj;
      auto fjitter = [&] {
        jitter();
        vj = fcl_verts(moved);
      };
      sb["fcl_aabb_refit_ms"] = median_ms(breps, [&] {
        m->beginUpdateModel();
        for (auto& p : vj) m->updateVertex(p);
        m->endUpdateModel(true, true);
      }, fjitter);
      sb["fcl_aabb_rebuild_ms"] = median_ms(breps, [&] { m = fcl_build<fcl::AABB<S>>(vj, fb); }, fjitter);
      auto mc = fcl_build<fcl::AABB<S>>(fcl_verts(cloth.V), fb);
      auto mbody = fcl_build<fcl::AABB<S>>(fcl_verts(body.V), fcl_tris(body.F));
      std::vector<TrianglePair> fp;
      sb["fcl_aabb_cloth_body_query_ms"] = median_ms(breps, [&] { fp = fcl_pairs(*mc, *mbody, fcl::Transform3<S>::Identity()); });
      sb["fcl_aabb_cloth_body_pairs"] = fp.size();
      sb["fcl_cloth_body_pairs_differing"] = symmetric_difference(fp, cb_pairs);
    }
    out["scene_b"] = sb;
    // proximity at 2 threads vs 1 (a second speedup figure)
    {
      auto q = [&] { (void)proximity({cloth.V, cloth.F, topo_c, tb_cloth}, {body.V, body.F, topo_b, tb_body}, prox_d); };
      std::vector<double> a, b;
      for (int r = 0; r < breps; ++r) {
        set_num_threads(1);
        a.push_back(times_ms(1, q, [] {})[0]);
        set_num_threads(2);
        b.push_back(times_ms(1, q, [] {})[0]);
      }
      set_num_threads(threads);
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      const double t1 = a[a.size() / 2], t2 = b[b.size() / 2];
      out["parallel_speedup_detail"]["proximity"] = {{"ms_1_thread", t1}, {"ms_2_threads", t2}, {"speedup", t1 / t2},
                                                     {"speedup_of_min", a[0] / b[0]}};
    }

    // ------------------------------------------------------------ report
    std::cout << "scene A (query ms per overlap; pairs)\n";
    std::printf("%-12s %9s", "method", "build_ms");
    for (const auto& s : sweep) std::printf(" %9.2f", s.overlap);
    std::printf(" %10s\n", "sum_ms");
    for (const MethodRow& r : rows) {
      std::printf("%-12s %9.1f", r.method.c_str(), r.build_ms);
      double sum = 0;
      for (double q : r.query_ms) std::printf(" %9.2f", q), sum += q;
      std::printf(" %10.2f\n", sum);
    }
    std::printf("%-12s %9s", "pairs", "");
    for (const auto& p : rows[0].pairs) std::printf(" %9zu", p.size());
    std::printf("\n");
    std::cout << out.dump(2) << "\n";
    if (!out_path.empty()) write_file_atomic(out_path, out.dump(2) + "\n");
    return 0;
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
