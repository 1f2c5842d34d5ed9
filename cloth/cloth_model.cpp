#include "cloth/cloth_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>

#include "core/error.hpp"
#include "core/logger.hpp"

namespace tryon::cloth {
namespace {

double cross2(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }

// Area of garment triangle t in its 2D panel.
double rest_area(const garments::GarmentMesh& g, int t) {
  const Vec2 r0 = g.rest.row(g.F(t, 0)), r1 = g.rest.row(g.F(t, 1)), r2 = g.rest.row(g.F(t, 2));
  return 0.5 * std::abs(cross2(r1 - r0, r2 - r0));
}

void check_garment(const garments::GarmentMesh& g) {
  const int nv = g.num_vertices();
  if (nv == 0 || g.num_triangles() == 0) throw InputError("garment mesh: no vertices or triangles");
  if (g.rest.rows() != nv)
    throw InputError("garment mesh: rest has " + std::to_string(g.rest.rows()) + " rows, V has " +
                     std::to_string(nv));
  if (!g.V.allFinite() || !g.rest.allFinite())
    throw InputError("garment mesh: non-finite vertex position or rest coordinate");
  if (g.F.size() > 0 && (g.F.minCoeff() < 0 || g.F.maxCoeff() >= nv))
    throw InputError("garment mesh: triangle index out of range");
  if (g.seam_pairs.size() > 0 && (g.seam_pairs.minCoeff() < 0 || g.seam_pairs.maxCoeff() >= nv))
    throw InputError("garment mesh: seam pair index out of range");
  if (!g.panel_of_triangle.empty() && static_cast<int>(g.panel_of_triangle.size()) != g.num_triangles())
    throw InputError("garment mesh: panel_of_triangle size does not match F");
}

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

// A spring across an edge between two triangles: rest length from the two triangles unfolded
// flat about the edge, each in its own 2D frame (a→b in the first, wa→wb in the second), and
// stiffness as documented at build_cloth_model.
struct CrossSpring {
  double rest = 0, stiffness = 0;
  double along = 0, h1 = 0, h2 = 0;  // opposite vertices: offset along the edge, heights over it
};
CrossSpring cross_spring(const garments::GarmentMesh& g, const Material& material, int a, int b, int c, int wa,
                         int wb, int wd, double area1, double area2) {
  auto unfold = [&](int p, int q, int r, double& s, double& h, double& len) {
    const Vec2 rp = g.rest.row(p), rq = g.rest.row(q), rr = g.rest.row(r);
    len = (rq - rp).norm();
    const Vec2 e = (rq - rp) / len;
    s = (rr - rp).dot(e);
    h = std::abs(cross2(e, rr - rp));
  };
  double s1, h1, l1, s2, h2, l2;
  unfold(a, b, c, s1, h1, l1);
  unfold(wa, wb, wd, s2, h2, l2);
  CrossSpring cs;
  cs.rest = std::hypot(s1 - s2, h1 + h2);
  cs.along = s1 - s2;
  cs.h1 = h1;
  cs.h2 = h2;
  const double d = cs.rest;
  cs.stiffness = material.shear_stiffness * (area1 + area2) / 3.0 / (d * d);
  if (material.bend_model == BendModel::springs) {
    const double e_len = 0.5 * (l1 + l2);
    const double c_hinge = 3.0 * material.bend_stiffness * e_len * e_len / (area1 + area2);
    cs.stiffness += c_hinge * d * d / (h1 * h1 * h2 * h2);
  }
  return cs;
}

// One directed occurrence of a particle edge in a triangle.
struct EdgeUse {
  int tri;
  int local;  // edge from corner `local` to corner (local+1)%3
};

}  // namespace

void ClothModel::set_pinned(int i, bool pin) { inv_mass[i] = pin ? 0.0 : 1.0 / mass[i]; }

namespace {

// Particles: seam pairs merged with union-find (with options.merge_seams); particles numbered
// by first vertex, each at the mean of its vertices, at rest.
void merge_particles(const garments::GarmentMesh& g, const ModelOptions& options, ClothModel& m) {
  const int nv = g.num_vertices();
  std::vector<int> parent(nv);
  std::iota(parent.begin(), parent.end(), 0);
  if (options.merge_seams) {
    for (int s = 0; s < g.seam_pairs.rows(); ++s) {
      const int ra = find_root(parent, g.seam_pairs(s, 0)), rb = find_root(parent, g.seam_pairs(s, 1));
      if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
    }
  }
  m.particle_of_vertex.assign(nv, -1);
  std::vector<int> particle_of_root(nv, -1);
  for (int v = 0; v < nv; ++v) {
    const int r = find_root(parent, v);
    if (particle_of_root[r] < 0) {
      particle_of_root[r] = static_cast<int>(m.vertex_of_particle.size());
      m.vertex_of_particle.push_back(v);
    }
    m.particle_of_vertex[v] = particle_of_root[r];
  }
  const int np = static_cast<int>(m.vertex_of_particle.size());
  m.x = Points3::Zero(np, 3);
  Eigen::VectorXd members = Eigen::VectorXd::Zero(np);
  for (int v = 0; v < nv; ++v) {
    m.x.row(m.particle_of_vertex[v]) += g.V.row(v);
    members[m.particle_of_vertex[v]] += 1;
  }
  for (int p = 0; p < np; ++p) m.x.row(p) /= members[p];
  m.v = Points3::Zero(np, 3);
}

// Triangles over particles; mass from the 2D rest areas. Triangles collapsed by merging (at
// a dart tip) are dropped from the force model but keep their mass. Returns the garment
// triangles kept, in order; `tri_area` gets every garment triangle's rest area.
std::vector<int> add_triangles(const garments::GarmentMesh& g, const Material& material, ClothModel& m,
                               std::vector<double>& tri_area) {
  const int np = m.num_particles();
  m.area = Eigen::VectorXd::Zero(np);
  std::vector<int> kept;
  tri_area.assign(g.num_triangles(), 0.0);
  int collapsed = 0;
  for (int t = 0; t < g.num_triangles(); ++t) {
    const Vec2 r0 = g.rest.row(g.F(t, 0)), r1 = g.rest.row(g.F(t, 1)), r2 = g.rest.row(g.F(t, 2));
    const double area = rest_area(g, t);
    const double scale = std::max({(r1 - r0).squaredNorm(), (r2 - r0).squaredNorm(), 1e-300});
    if (!(area > 1e-10 * scale))
      throw InputError("garment mesh: triangle " + std::to_string(t) + " has zero area in 2D");
    tri_area[t] = area;
    for (int c = 0; c < 3; ++c) m.area[m.particle_of_vertex[g.F(t, c)]] += area / 3.0;
    const int p0 = m.particle_of_vertex[g.F(t, 0)], p1 = m.particle_of_vertex[g.F(t, 1)],
              p2 = m.particle_of_vertex[g.F(t, 2)];
    if (p0 == p1 || p1 == p2 || p0 == p2) ++collapsed;
    else kept.push_back(t);
  }
  if (collapsed > 0)
    logger().warn("cloth: {} triangles collapsed by seam merging were dropped", collapsed);
  m.mass = material.density * m.area;
  m.inv_mass = m.mass.cwiseInverse();
  m.F.resize(static_cast<Eigen::Index>(kept.size()), 3);
  for (std::size_t i = 0; i < kept.size(); ++i)
    for (int c = 0; c < 3; ++c) m.F(static_cast<Eigen::Index>(i), c) = m.particle_of_vertex[g.F(kept[i], c)];
  return kept;
}

// The springs and hinges as they are found, before they go into the model's flat arrays.
struct SpringLists {
  std::vector<std::array<int, 2>> ends;
  std::vector<double> rest, stiffness;
  int num_stretch = 0;  // the first num_stretch springs stretch, the others cross
  std::vector<std::array<int, 4>> hinge_verts;
  std::vector<double> hinge_k;
};
using EdgeUses = std::map<std::pair<int, int>, std::vector<EdgeUse>>;  // particle edge → triangles

// Stretch springs: one per distinct garment edge (so each panel owning a seam edge keeps
// its own 2D rest length), area share ⅓ of each adjacent triangle. Returns the triangles
// (indices into `kept`) along each particle edge.
EdgeUses add_stretch_springs(const garments::GarmentMesh& g, const Material& material, const ClothModel& m,
                             const std::vector<int>& kept, const std::vector<double>& tri_area, SpringLists& L) {
  std::map<std::pair<int, int>, int> spring_of_vertex_edge;
  std::vector<double> share;
  EdgeUses uses;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const int t = kept[i];
    for (int c = 0; c < 3; ++c) {
      const int va = g.F(t, c), vb = g.F(t, (c + 1) % 3);
      const auto key = std::minmax(va, vb);
      auto [it, inserted] = spring_of_vertex_edge.try_emplace({key.first, key.second}, static_cast<int>(L.ends.size()));
      if (inserted) {
        L.ends.push_back({m.particle_of_vertex[key.first], m.particle_of_vertex[key.second]});
        L.rest.push_back((g.rest.row(va) - g.rest.row(vb)).norm());
        share.push_back(0.0);
      }
      share[it->second] += tri_area[t] / 3.0;
      const int pa = m.particle_of_vertex[va], pb = m.particle_of_vertex[vb];
      uses[std::minmax(pa, pb)].push_back({static_cast<int>(i), c});
    }
  }
  L.stiffness.resize(L.ends.size());
  for (std::size_t s = 0; s < L.ends.size(); ++s)
    L.stiffness[s] = material.stretch_stiffness * share[s] / (L.rest[s] * L.rest[s]);
  L.num_stretch = static_cast<int>(L.ends.size());
  return uses;
}

// Cross springs and hinges across each interior edge (exactly two triangles). Rest length
// from the two triangles unfolded flat about the shared edge, each in its own 2D frame.
void add_cross_springs_and_hinges(const garments::GarmentMesh& g, const Material& material, ClothModel& m,
                                  const std::vector<int>& kept, const std::vector<double>& tri_area,
                                  const EdgeUses& uses, SpringLists& L) {
  int non_manifold = 0;
  for (const auto& [edge, list] : uses) {
    if (list.size() != 2) {
      if (list.size() > 2) ++non_manifold;
      continue;
    }
    const EdgeUse& u1 = list[0];
    const EdgeUse& u2 = list[1];
    const int t1 = kept[u1.tri], t2 = kept[u2.tri];
    // Triangle 1 as (a, b, c) with the directed edge a→b.
    const int va = g.F(t1, u1.local), vb = g.F(t1, (u1.local + 1) % 3), vc = g.F(t1, (u1.local + 2) % 3);
    const int pa = m.particle_of_vertex[va], pb = m.particle_of_vertex[vb], pc = m.particle_of_vertex[vc];
    // Triangle 2: its own garment vertices on the edge (wa ↔ a, wb ↔ b) and opposite wd.
    int wa = g.F(t2, u2.local), wb = g.F(t2, (u2.local + 1) % 3);
    const int wd = g.F(t2, (u2.local + 2) % 3);
    const bool consistent = m.particle_of_vertex[wa] == pb;  // triangle 2 holds b→a
    if (consistent) std::swap(wa, wb);
    const int pd = m.particle_of_vertex[wd];
    if (pc == pd) continue;
    const CrossSpring cs = cross_spring(g, material, va, vb, vc, wa, wb, wd, tri_area[t1], tri_area[t2]);
    if (material.bend_model == BendModel::dihedral) {
      if (consistent) {
        L.hinge_verts.push_back({pa, pb, pc, pd});
        L.hinge_k.push_back(12.0 * material.bend_stiffness);
      } else {
        ++m.degenerate_hinges_skipped;
      }
    }
    L.ends.push_back({pc, pd});
    L.rest.push_back(cs.rest);
    L.stiffness.push_back(cs.stiffness);
  }
  if (non_manifold > 0)
    logger().warn("cloth: {} non-manifold edges (3+ triangles) get no cross spring", non_manifold);
  if (m.degenerate_hinges_skipped > 0)
    logger().warn("cloth: {} interior edges join inconsistently wound triangles: no bending hinge",
                  m.degenerate_hinges_skipped);
}

// The springs and hinges into the model's flat arrays.
void store_springs(const Material& material, const SpringLists& L, ClothModel& m) {
  const int ns = static_cast<int>(L.ends.size());
  Springs& S = m.springs;
  S.ends.resize(ns, 2);
  S.rest.resize(ns);
  S.stiffness.resize(ns);
  S.kind.resize(ns);
  S.num_stretch = L.num_stretch;
  for (int s = 0; s < ns; ++s) {
    S.ends(s, 0) = L.ends[s][0];
    S.ends(s, 1) = L.ends[s][1];
    S.rest[s] = L.rest[s];
    S.stiffness[s] = L.stiffness[s];
    S.kind[s] = s < L.num_stretch ? SpringKind::stretch : SpringKind::cross;
  }
  S.damping = material.damping * S.stiffness;
  // Springs that start longer than allowed by the strain limit (seams spanning a gap) start
  // from a rest length at the limit; the simulator brings it down to the true rest length.
  S.rest_now = S.rest;
  for (int s = 0; s < ns; ++s) {
    const double l0 = (m.x.row(S.ends(s, 1)) - m.x.row(S.ends(s, 0))).norm();
    S.rest_now[s] = std::max(S.rest[s], l0 / (1.0 + material.strain_limit));
  }
  const int nh = static_cast<int>(L.hinge_verts.size());
  m.hinges.verts.resize(nh, 4);
  m.hinges.rest_angle = Eigen::VectorXd::Zero(nh);
  m.hinges.stiffness.resize(nh);
  for (int h = 0; h < nh; ++h) {
    for (int c = 0; c < 4; ++c) m.hinges.verts(h, c) = L.hinge_verts[h][c];
    m.hinges.stiffness[h] = L.hinge_k[h];
  }
}

}  // namespace

ClothModel build_cloth_model(const garments::GarmentMesh& g, const Material& material,
                             const ModelOptions& options) {
  check_garment(g);
  check_material(material, "material '" + material.name + "'");
  ClothModel m;
  m.material = material;
  merge_particles(g, options, m);
  std::vector<double> tri_area;
  const std::vector<int> kept = add_triangles(g, material, m, tri_area);
  SpringLists springs;
  const EdgeUses uses = add_stretch_springs(g, material, m, kept, tri_area, springs);
  add_cross_springs_and_hinges(g, material, m, kept, tri_area, uses, springs);
  store_springs(material, springs, m);
  index_springs(m);
  return m;
}

void index_springs(ClothModel& m) {
  // Incident springs per particle (CSR, ascending spring index).
  const Springs& S = m.springs;
  const int np = m.num_particles(), ns = S.size();
  m.spring_start.assign(np + 1, 0);
  for (int s = 0; s < ns; ++s) {
    ++m.spring_start[S.ends(s, 0) + 1];
    ++m.spring_start[S.ends(s, 1) + 1];
  }
  for (int p = 0; p < np; ++p) m.spring_start[p + 1] += m.spring_start[p];
  m.spring_index.resize(m.spring_start[np]);
  std::vector<int> fill(m.spring_start.begin(), m.spring_start.end() - 1);
  for (int s = 0; s < ns; ++s) {
    m.spring_index[fill[S.ends(s, 0)]++] = s;
    m.spring_index[fill[S.ends(s, 1)]++] = s;
  }
}

namespace {
struct NewSpring {
  int a, b;
  double rest, rest_now, stiffness;
};
// Appends springs of one kind (damping from the material) and re-indexes the particles' lists.
void append_springs(ClothModel& m, const std::vector<NewSpring>& add, SpringKind kind) {
  Springs& S = m.springs;
  const int ns = S.size(), na = static_cast<int>(add.size());
  S.ends.conservativeResize(ns + na, 2);
  S.rest.conservativeResize(ns + na);
  S.rest_now.conservativeResize(ns + na);
  S.stiffness.conservativeResize(ns + na);
  S.damping.conservativeResize(ns + na);
  for (int i = 0; i < na; ++i) {
    S.ends.row(ns + i) << add[i].a, add[i].b;
    S.rest[ns + i] = add[i].rest;
    S.rest_now[ns + i] = add[i].rest_now;
    S.stiffness[ns + i] = add[i].stiffness;
    S.damping[ns + i] = m.material.damping * add[i].stiffness;
    S.kind.push_back(kind);
  }
  index_springs(m);
}
}  // namespace

void add_sewing_springs(ClothModel& m, const Segments& pairs, double stiffness) {
  std::vector<NewSpring> add;
  for (Eigen::Index i = 0; i < pairs.rows(); ++i) {
    const double gap = (m.x.row(pairs(i, 0)) - m.x.row(pairs(i, 1))).norm();
    add.push_back({pairs(i, 0), pairs(i, 1), 0.0 /* sewn shut */, gap /* closes at seam_close_speed */, stiffness});
  }
  append_springs(m, add, SpringKind::sewing);
}

int add_seam_cross_springs(ClothModel& m, const garments::GarmentMesh& g) {
  // Boundary edges of the garment: (lower, higher vertex) -> the one triangle using it.
  std::map<std::pair<int, int>, int> uses;
  for (int t = 0; t < g.num_triangles(); ++t)
    for (int c = 0; c < 3; ++c) {
      const auto key = std::minmax(g.F(t, c), g.F(t, (c + 1) % 3));
      auto [it, inserted] = uses.try_emplace({key.first, key.second}, t);
      if (!inserted) it->second = -1;  // interior
    }
  // Seam partners of each vertex, with the stitch of the pair.
  std::multimap<int, std::pair<int, int>> partner;
  SeamCrossSprings& sc = m.seam_cross;
  int num_stitches = 0;
  for (Eigen::Index i = 0; i < g.seam_pairs.rows(); ++i) {
    const int a = g.seam_pairs(i, 0), b = g.seam_pairs(i, 1);
    const int st = i < static_cast<Eigen::Index>(g.stitch_of_pair.size()) ? g.stitch_of_pair[i] : 0;
    partner.emplace(a, std::make_pair(b, st));
    partner.emplace(b, std::make_pair(a, st));
    sc.pairs.push_back({st, m.particle_of_vertex[a], m.particle_of_vertex[b]});
    num_stitches = std::max(num_stitches, st + 1);
  }
  sc.num_stitches = num_stitches;
  auto opposite = [&](int t, int a, int b) {
    for (int c = 0; c < 3; ++c)
      if (g.F(t, c) != a && g.F(t, c) != b) return g.F(t, c);
    return -1;
  };
  const int first = m.springs.size();
  std::vector<NewSpring> add;
  for (const auto& [edge, t1] : uses) {
    if (t1 < 0) continue;
    const int va = edge.first, vb = edge.second;
    const auto [a0, a1] = partner.equal_range(va);
    const auto [b0, b1] = partner.equal_range(vb);
    for (auto ia = a0; ia != a1; ++ia)
      for (auto ib = b0; ib != b1; ++ib) {
        const int wa = ia->second.first, wb = ib->second.first;
        const auto it = uses.find(std::minmax(wa, wb));
        if (it == uses.end() || it->second < 0 || it->second <= t1) continue;  // each pair of edges once
        const int t2 = it->second;
        const int vc = opposite(t1, va, vb), wd = opposite(t2, wa, wb);
        const int pc = m.particle_of_vertex[vc], pd = m.particle_of_vertex[wd];
        if (pc == pd) continue;
        const CrossSpring c = cross_spring(g, m.material, va, vb, vc, wa, wb, wd, rest_area(g, t1), rest_area(g, t2));
        // The opposite vertices with the triangles at a right angle about the edge:
        // |c − d|² = along² + h₁² + h₂² (flat: along² + (h₁ + h₂)²). Off (rest_now 0) until sewn.
        const double right_angle = std::sqrt(c.along * c.along + c.h1 * c.h1 + c.h2 * c.h2);
        add.push_back({pc, pd, right_angle, 0.0, c.stiffness});
        sc.spring.push_back(first + static_cast<int>(sc.stitch.size()));
        sc.stitch.push_back(ia->second.second);
      }
  }
  append_springs(m, add, SpringKind::seam_cross);
  return static_cast<int>(add.size());
}

int switch_on_sewn_seams(ClothModel& m, ConstRef<Points3> x, double sewn_distance) {
  // The state is the rest lengths alone (0: off), which the simulator restores on a retry.
  const SeamCrossSprings& sc = m.seam_cross;
  Eigen::VectorXd& rest_now = m.springs.rest_now;
  std::vector<char> sewn(sc.num_stitches, 0);  // off so far, and sewn now
  bool any_off = false;
  for (std::size_t i = 0; i < sc.spring.size(); ++i)
    if (rest_now[sc.spring[i]] == 0) {
      sewn[sc.stitch[i]] = 1;
      any_off = true;
    }
  if (!any_off) return 0;
  for (const auto& [stitch, a, b] : sc.pairs)
    if ((x.row(a) - x.row(b)).squaredNorm() >= sewn_distance * sewn_distance) sewn[stitch] = 0;
  for (std::size_t i = 0; i < sc.spring.size(); ++i)
    if (sewn[sc.stitch[i]]) rest_now[sc.spring[i]] = m.springs.rest[sc.spring[i]];
  return static_cast<int>(std::count(sewn.begin(), sewn.end(), 1));
}

Points3 garment_positions(const ClothModel& model) {
  const int nv = static_cast<int>(model.particle_of_vertex.size());
  Points3 V(nv, 3);
  for (int v = 0; v < nv; ++v) V.row(v) = model.x.row(model.particle_of_vertex[v]);
  return V;
}

StrainStats strain_stats(const ClothModel& model, ConstRef<Points3> x) {
  StrainStats st;
  const Springs& S = model.springs;
  if (S.num_stretch == 0) return st;
  st.max = -std::numeric_limits<double>::infinity();
  st.min = std::numeric_limits<double>::infinity();
  double sum = 0;
  for (int s = 0; s < S.num_stretch; ++s) {
    const double strain = (x.row(S.ends(s, 1)) - x.row(S.ends(s, 0))).norm() / S.rest[s] - 1.0;
    st.max = std::max(st.max, strain);
    st.min = std::min(st.min, strain);
    sum += std::abs(strain);
  }
  st.mean = sum / S.num_stretch;
  return st;
}

double seam_gap_max(const ClothModel& model, const garments::GarmentMesh& garment,
                    ConstRef<Points3> x) {
  double gap = 0;
  for (int s = 0; s < garment.seam_pairs.rows(); ++s) {
    const int a = model.particle_of_vertex[garment.seam_pairs(s, 0)];
    const int b = model.particle_of_vertex[garment.seam_pairs(s, 1)];
    gap = std::max(gap, (x.row(a) - x.row(b)).norm());
  }
  return gap;
}

}  // namespace tryon::cloth
