#include "garments/inserts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "garments/geometry2d.hpp"

namespace tryon::garments {

namespace {

constexpr int kSamplesPerEdge = 16;  // outline and seam points per edge: for areas and middles
constexpr double kInsertAreaRatio = 0.5;
// Inserts seated side by side overlap (a godet is wider than the spacing of its slits): each
// further insert of a panel lies this much further off it, so none starts through another.
constexpr double kLayerGap = 0.01;

double panel_area(const Panel& panel) {
  std::vector<Vec2> loop;
  for (const Edge& e : panel.edges) {
    const auto s = sample_edge(panel, e, kSamplesPerEdge);
    loop.insert(loop.end(), s.begin(), s.end() - 1);
  }
  return std::abs(signed_area(loop));
}

// The stitches joining a panel to other panels, in stitch order, each as (the panel's side, the
// other side); stitches within the panel itself (a dart) are left out.
using Seams = std::vector<std::pair<StitchSide, StitchSide>>;

Seams seams_to_others(const Pattern& pattern, int p) {
  Seams out;
  for (const Stitch& s : pattern.stitches) {
    if (s.a.panel == p && s.b.panel != p) out.emplace_back(s.a, s.b);
    if (s.b.panel == p && s.a.panel != p) out.emplace_back(s.b, s.a);
  }
  return out;
}

// The panel the seams lead to when they all lead to one panel, else -1.
int single_partner(const Seams& seams) {
  std::set<int> partners;
  for (const auto& [mine, theirs] : seams) partners.insert(theirs.panel);
  return partners.size() == 1 ? *partners.begin() : -1;
}

// Whether the partner's edges that the seams lead to are one run of consecutive edges of its
// outline: the two sides of a slit (a godet), one edge (a patch), never edges apart (a jacket's
// front half sewn to the back at the shoulder and at the side).
bool fills_one_opening(const Panel& partner, const Seams& seams) {
  const int n = static_cast<int>(partner.edges.size());
  std::vector<bool> sewn(n, false);
  for (const auto& [mine, theirs] : seams) sewn[theirs.edge] = true;
  int runs = 0;
  for (int k = 0; k < n; ++k) runs += sewn[k] && !sewn[(k + n - 1) % n];
  return runs <= 1;
}

// Mean 3D step from points of the seams' own edges to the points they are sewn to.
Vec3 mean_seam_step(const Pattern& pattern, const Seams& seams) {
  Vec3 sum = Vec3::Zero();
  int n = 0;
  for (const auto& [mine, theirs] : seams) {
    const Panel& P = pattern.panels[mine.panel];
    const Panel& Q = pattern.panels[theirs.panel];
    const auto from = sample_edge(P, P.edges[mine.edge], kSamplesPerEdge);
    const auto to = sample_edge(Q, Q.edges[theirs.edge], kSamplesPerEdge);
    for (int i = 0; i <= kSamplesPerEdge; ++i) {  // the middles: the pairing order does not matter
      sum += place_point(Q, to[i]) - place_point(P, from[i]);
      ++n;
    }
  }
  return n > 0 ? Vec3(sum / n) : Vec3::Zero();
}

}  // namespace

std::vector<Vec3> insert_shifts(const Pattern& pattern, std::vector<std::string>& notes) {
  const int count = static_cast<int>(pattern.panels.size());
  std::vector<Vec3> shift(count, Vec3::Zero());
  std::vector<int> layers(count, 0);  // inserts seated so far, per panel they fill
  std::string moved;
  double largest = 0;
  for (int p = 0; p < count; ++p) {
    const auto seams = seams_to_others(pattern, p);
    const int partner = single_partner(seams);
    if (partner < 0 || !fills_one_opening(pattern.panels[partner], seams) ||
        !(panel_area(pattern.panels[p]) < kInsertAreaRatio * panel_area(pattern.panels[partner])))
      continue;
    const Vec3 step = mean_seam_step(pattern, seams);
    const Vec3 normal = panel_rotation(pattern.panels[p].rotation_deg) * Vec3::UnitZ();
    const Vec3 away = normal.dot(step) > 0 ? Vec3(-normal) : normal;  // off the partner, on the insert's side
    shift[p] = step - normal * normal.dot(step) + away * (kLayerGap * layers[partner]++);
    largest = std::max(largest, shift[p].norm());
    moved += (moved.empty() ? "'" : ", '") + pattern.panels[p].name + "'";
  }
  if (!moved.empty()) {
    char buf[120];
    std::snprintf(buf, sizeof buf, " moved in their planes (up to %.0f cm) to the seams they are sewn into",
                  largest * 100);
    notes.push_back("inserts " + moved + buf);
  }
  return shift;
}

}  // namespace tryon::garments
