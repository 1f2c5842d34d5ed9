#include "garments/dxf_pieces.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <numbers>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "core/files.hpp"

namespace tryon::garments::dxf {
namespace {

constexpr double kCornerTurnDeg = 35;   // a turn sharper than this between outline pieces is a corner
constexpr double kOnLineTol = 1.5e-3;   // 1.5 mm: a point this close to the fold line lies on it

double signed_area(const std::vector<Vec2>& p) {
  double a = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Vec2& u = p[i];
    const Vec2& v = p[(i + 1) % p.size()];
    a += u.x() * v.y() - v.x() * u.y();
  }
  return 0.5 * a;
}

Vec2 rotate(const Vec2& p, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  return {c * p.x() - s * p.y(), s * p.x() + c * p.y()};
}

double distance_to_line(const Vec2& p, const Vec2& a, const Vec2& b) {
  const Vec2 d = (b - a).normalized();
  const Vec2 r = p - a;
  return std::abs(d.x() * r.y() - d.y() * r.x());
}

Vec2 reflect(const Vec2& p, const Vec2& a, const Vec2& b) {
  const Vec2 d = (b - a).normalized();
  const Vec2 r = p - a;
  return a + 2 * r.dot(d) * d - r;
}

// Unfolds a piece cut on the fold: the outline's run along the mirror line is replaced by
// the mirror image of the rest. Returns false when the outline has no run on the line.
bool unfold(std::vector<Vec2>& outline, const Vec2& a, const Vec2& b) {
  const int n = static_cast<int>(outline.size());
  std::vector<bool> on(n);
  for (int i = 0; i < n; ++i) on[i] = distance_to_line(outline[i], a, b) < kOnLineTol;
  // The longest cyclic run of consecutive points on the line.
  int best_start = -1, best_len = 0;
  for (int s = 0; s < n; ++s) {
    if (!on[s] || on[(s + n - 1) % n]) continue;
    int len = 0;
    while (len < n && on[(s + len) % n]) ++len;
    if (len > best_len) best_len = len, best_start = s;
  }
  if (best_len < 2 || best_len == n) return false;
  const int last = (best_start + best_len - 1) % n;
  std::vector<Vec2> half;  // from the run's last point around to its first
  for (int k = 0; k <= n - best_len + 1; ++k) half.push_back(outline[(last + k) % n]);
  std::vector<Vec2> full = half;
  for (int k = static_cast<int>(half.size()) - 2; k >= 1; --k) full.push_back(reflect(half[k], a, b));
  outline = full;
  return true;
}

// Corners: points where the outline turns by more than kCornerTurnDeg. Directions are taken
// over neighbours at least 2 mm away so that digitising jitter does not count.
std::vector<int> corners(const std::vector<Vec2>& p) {
  const int n = static_cast<int>(p.size());
  auto away = [&](int i, int step) {
    for (int k = 1; k < n; ++k) {
      const Vec2& q = p[((i + step * k) % n + n) % n];
      if ((q - p[i]).norm() > 2e-3) return q;
    }
    return p[i];
  };
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    const Vec2 din = p[i] - away(i, -1), dout = away(i, 1) - p[i];
    if (din.norm() == 0 || dout.norm() == 0) continue;
    const double c = std::clamp(din.normalized().dot(dout.normalized()), -1.0, 1.0);
    if (std::acos(c) * 180 / std::numbers::pi > kCornerTurnDeg) out.push_back(i);
  }
  return out;
}

// Inserts each notch into the outline (at its nearest point, or on the nearest piece);
// returns their indices. Notches farther than 5 mm from the outline are dropped.
std::vector<int> insert_notches(std::vector<Vec2>& p, const std::vector<Vec2>& notches) {
  std::vector<Vec2> kept;
  for (const Vec2& q : notches) {
    int best = -1;
    double best_d = 5e-3;
    Vec2 best_point = Vec2::Zero();
    for (std::size_t i = 0; i < p.size(); ++i) {
      const Vec2& a = p[i];
      const Vec2& b = p[(i + 1) % p.size()];
      const Vec2 ab = b - a;
      const double t = ab.squaredNorm() > 0 ? std::clamp((q - a).dot(ab) / ab.squaredNorm(), 0.0, 1.0) : 0;
      const Vec2 c = a + t * ab;
      if ((c - q).norm() < best_d) best_d = (c - q).norm(), best = static_cast<int>(i), best_point = c;
    }
    if (best < 0) continue;
    const Vec2& a = p[best];
    const Vec2& b = p[(best + 1) % p.size()];
    if ((best_point - a).norm() < 1e-4) {
      kept.push_back(a);
    } else if ((best_point - b).norm() < 1e-4) {
      kept.push_back(b);
    } else {
      p.insert(p.begin() + best + 1, best_point);
      kept.push_back(best_point);
    }
  }
  std::vector<int> idx;
  for (const Vec2& k : kept)
    for (std::size_t i = 0; i < p.size(); ++i)
      if ((p[i] - k).norm() < 1e-9) {
        idx.push_back(static_cast<int>(i));
        break;
      }
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

void assign_keys(CutPiece& c, const std::vector<Vec2>& notch_points) {
  const std::vector<int> notch_idx = insert_notches(c.outline, notch_points);
  const std::vector<int> corner_idx = corners(c.outline);
  c.keys.clear();
  // (Appending rather than "c" + to_string(k): GCC 12 warns falsely on the latter, bug 105329.)
  auto id = [](char kind, std::size_t k) { return std::string(1, kind).append(std::to_string(k)); };
  for (std::size_t k = 0; k < corner_idx.size(); ++k) c.keys.push_back({id('c', k), corner_idx[k]});
  for (std::size_t k = 0; k < notch_idx.size(); ++k) c.keys.push_back({id('n', k), notch_idx[k]});
  std::stable_sort(c.keys.begin(), c.keys.end(), [](const KeyPoint& a, const KeyPoint& b) { return a.index < b.index; });
}

// Removes slits drawn into the cut line (the outline runs in and straight back out, e.g. a
// 1 cm vent mark at a hem's centre): a point whose two neighbours coincide goes, with one of
// them. Returns the longest slit removed (0 if none).
double remove_slits(std::vector<Vec2>& p) {
  double longest = 0;
  for (bool again = true; again && p.size() > 3;) {
    again = false;
    const std::size_t n = p.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Vec2& prev = p[(i + n - 1) % n];
      const Vec2& next = p[(i + 1) % n];
      if ((prev - next).norm() < 5e-4) {
        longest = std::max(longest, (p[i] - prev).norm());
        const std::size_t j = (i + 1) % n;
        p.erase(p.begin() + static_cast<std::ptrdiff_t>(std::max(i, j)));
        p.erase(p.begin() + static_cast<std::ptrdiff_t>(std::min(i, j)));
        again = true;
        break;
      }
    }
  }
  return longest;
}

// Normalises a panel frame: counter-clockwise, x centred (0 on the fold), lowest point y = 0.
void normalise(std::vector<Vec2>& p, bool centre_on_zero) {
  if (signed_area(p) < 0) std::reverse(p.begin(), p.end());
  Vec2 lo = Vec2::Constant(1e300), hi = Vec2::Constant(-1e300);
  for (const Vec2& q : p) lo = lo.cwiseMin(q), hi = hi.cwiseMax(q);
  const Vec2 shift(centre_on_zero ? 0.0 : -(lo.x() + hi.x()) / 2, -lo.y());
  for (Vec2& q : p) q += shift;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// ---- labelling outlines for the matcher ------------------------------------------------

struct Ranges {
  std::map<std::string, std::pair<int, int>> by_label;  // label -> (from, to) key positions in keys
};

// Corner keys only, in outline order: their positions in c.keys.
std::vector<int> corner_keys(const CutPiece& c) {
  std::vector<int> out;
  for (std::size_t k = 0; k < c.keys.size(); ++k)
    if (c.keys[k].id[0] == 'c') out.push_back(static_cast<int>(k));
  return out;
}

const Vec2& key_point(const CutPiece& c, int k) { return c.outline[c.keys[k].index]; }

// Outline length from key a to key b counter-clockwise, and the chord.
double range_length(const CutPiece& c, int ka, int kb) {
  const int n = static_cast<int>(c.outline.size());
  const int a = c.keys[ka].index, b = c.keys[kb].index;
  double len = 0;
  for (int i = a; i != b; i = (i + 1) % n) len += (c.outline[(i + 1) % n] - c.outline[i]).norm();
  return len;
}

// A bodice (front, back, skirt panel): from the hem corners up the sides to the shoulders.
// Labels with _r are on the panel's +x side.
bool label_bodice(CutPiece& c, std::string& why) {
  const std::vector<int> ck = corner_keys(c);
  const int m = static_cast<int>(ck.size());
  if (m < 4) return why = "fewer than 4 corners", false;
  double ymin = 1e300, ymax = -1e300;
  for (const Vec2& p : c.outline) ymin = std::min(ymin, p.y()), ymax = std::max(ymax, p.y());
  const double h = ymax - ymin;
  // Hem corners: the lowest quarter's outermost corners.
  int hr = -1, hl = -1;
  for (int i = 0; i < m; ++i) {
    const Vec2& q = key_point(c, ck[i]);
    if (q.y() > ymin + 0.25 * h) continue;
    if (hr < 0 || q.x() > key_point(c, ck[hr]).x()) hr = i;
    if (hl < 0 || q.x() < key_point(c, ck[hl]).x()) hl = i;
  }
  if (hr < 0 || hr == hl) return why = "no hem corners", false;
  const int ur = (hr + 1) % m, ul = (hl + m - 1) % m;
  auto set = [&](const std::string& label, int i, int j) { c.ranges[label] = {c.keys[ck[i]].id, c.keys[ck[j]].id}; };
  set("side_r", hr, ur);
  set("side_l", ul, hl);
  // Shoulder-neck points: the highest corner on each side of the centre.
  int nr = -1, nl = -1;
  for (int i = 0; i < m; ++i) {
    const Vec2& q = key_point(c, ck[i]);
    if (q.y() < ymin + 0.6 * h) continue;
    if (q.x() > 1e-3 && (nr < 0 || q.y() > key_point(c, ck[nr]).y())) nr = i;
    if (q.x() < -1e-3 && (nl < 0 || q.y() > key_point(c, ck[nl]).y())) nl = i;
  }
  // In counter-clockwise order: hl < hr < ur < sr < nr < nl < sl < ul (cyclically from hl).
  auto pos = [&](int i) { return (i - hl + m) % m; };
  if (nr >= 0 && nl >= 0) {
    const int sr = (nr + m - 1) % m, sl = (nl + 1) % m;
    if (pos(hr) < pos(ur) && pos(ur) < pos(sr) && pos(sr) < pos(nr) && pos(nr) < pos(nl) && pos(nl) < pos(sl) &&
        pos(sl) < pos(ul)) {
      set("armhole_r", ur, sr);
      set("shoulder_r", sr, nr);
      set("neck", nr, nl);
      set("shoulder_l", nl, sl);
      set("armhole_l", sl, ul);
    }
  }
  set("hem", hl, hr);
  return true;
}

// A sleeve half: hem at the bottom, the straight overarm line on one side, the cap on top,
// the short underarm seam on the other side.
bool label_sleeve_half(CutPiece& c, std::string& why) {
  const std::vector<int> ck = corner_keys(c);
  const int m = static_cast<int>(ck.size());
  if (m != 4) return why = std::to_string(m) + " corners (a sleeve half has 4)", false;
  // Hem: the range whose midpoint is lowest.
  int hem = 0;
  double best = 1e300;
  for (int i = 0; i < m; ++i) {
    const double y = 0.5 * (key_point(c, ck[i]).y() + key_point(c, ck[(i + 1) % m]).y());
    if (y < best) best = y, hem = i;
  }
  const int a = ck[hem], b = ck[(hem + 1) % m], d = ck[(hem + 2) % m], e = ck[(hem + 3) % m];
  // After the hem (counter-clockwise) comes the +x side, then the top, then the -x side.
  const double right_len = range_length(c, b, d), left_len = range_length(c, e, a);
  const bool overarm_right = right_len > left_len;  // the overarm runs the sleeve's length
  auto id = [&](int k) { return c.keys[k].id; };
  c.ranges["hem"] = {id(a), id(b)};
  c.ranges["cap"] = {id(d), id(e)};
  c.ranges["overarm"] = overarm_right ? std::pair{id(b), id(d)} : std::pair{id(e), id(a)};
  c.ranges["underarm"] = overarm_right ? std::pair{id(e), id(a)} : std::pair{id(b), id(d)};
  return true;
}


// A leg half, split from a one-piece leg: the cut line (the side seam) at x = split_x, and
// from its hem end round to its waist end: hem, inseam, rise (crotch curve), waist.
bool label_leg_half(CutPiece& c, std::string& why) {
  const std::vector<int> ck = corner_keys(c);
  const int m = static_cast<int>(ck.size());
  int top = -1, bottom = -1;
  for (int i = 0; i < m; ++i) {
    const Vec2& q = key_point(c, ck[i]);
    if (std::abs(q.x() - c.split_x) > 1e-3) continue;  // the cut's ends may be snapped to points 0.1 mm off
    if (top < 0 || q.y() > key_point(c, ck[top]).y()) top = i;
    if (bottom < 0 || q.y() < key_point(c, ck[bottom]).y()) bottom = i;
  }
  if (m != 5 || top < 0 || bottom < 0 || top == bottom)
    return why = std::to_string(m) + " corners (a leg half has 5: hem, crotch, waist, and the side seam's ends)", false;
  auto id = [&](int i) { return c.keys[ck[((i % m) + m) % m]].id; };
  if ((bottom + 1) % m == top) {  // the cut runs bottom → top: the rest runs top → bottom
    c.ranges["side"] = {id(bottom), id(top)};
    c.ranges["waist"] = {id(top), id(top + 1)};
    c.ranges["rise"] = {id(top + 1), id(top + 2)};
    c.ranges["inseam"] = {id(top + 2), id(top + 3)};
    c.ranges["hem"] = {id(top + 3), id(bottom)};
  } else {
    c.ranges["side"] = {id(top), id(bottom)};
    c.ranges["hem"] = {id(bottom), id(bottom + 1)};
    c.ranges["inseam"] = {id(bottom + 1), id(bottom + 2)};
    c.ranges["rise"] = {id(bottom + 2), id(bottom + 3)};
    c.ranges["waist"] = {id(bottom + 3), id(top)};
  }
  return true;
}

// Splits a one-piece sleeve (leg) along the vertical through its top (the notch there, else
// the highest point; a leg without one: above the hem's middle) down to the hem, into a front and a back half joined by a seam: halves
// can be placed flat in front of and behind the arm (leg). A sleeve's front half is the one
// whose cap carries a single notch (one notch marks the front of a sleeve cap, two the
// back), else the shorter cap; a leg's front half is the one with the lower waist.
// Returns false when the vertical does not reach the hem.
bool split_sleeve(const CutPiece& c, const std::vector<Vec2>& notches, CutPiece& front, CutPiece& back,
                  std::vector<Vec2>& front_notches, std::vector<Vec2>& back_notches, bool leg) {
  double ymin = 1e300, ymax = -1e300;
  Vec2 top = c.outline.front();
  for (const Vec2& p : c.outline) {
    ymin = std::min(ymin, p.y());
    if (p.y() > ymax) ymax = p.y(), top = p;
  }
  Vec2 apex = top;
  bool marked = false;
  for (const Vec2& n : notches)
    if (n.y() > ymax - 0.15 * (ymax - ymin) && (!marked || n.y() > apex.y())) apex = n, marked = true;
  if (leg && !marked) {
    // No notch at the waist (graded sizes often have none): split above the hem's middle,
    // where the waist crosses that vertical.
    double lo = 1e300, hi = -1e300;
    for (const Vec2& q : c.outline)
      if (q.y() < ymin + 0.01) lo = std::min(lo, q.x()), hi = std::max(hi, q.x());
    const double x = 0.5 * (lo + hi);
    double best = -1e300;
    for (std::size_t i = 0; i < c.outline.size(); ++i) {
      const Vec2 &a = c.outline[i], &b = c.outline[(i + 1) % c.outline.size()];
      if ((a.x() - x) * (b.x() - x) > 0 || a.x() == b.x()) continue;
      const double y = a.y() + (x - a.x()) / (b.x() - a.x()) * (b.y() - a.y());
      best = std::max(best, y);
    }
    if (best > -1e299) apex = Vec2(x, best);
  }
  std::vector<Vec2> p = c.outline;
  const int n = static_cast<int>(p.size());
  // The vertical's lowest crossing of the outline.
  int seg = -1;
  double best_y = 1e300;
  for (int i = 0; i < n; ++i) {
    const Vec2 &a = p[i], &b = p[(i + 1) % n];
    if ((a.x() - apex.x()) * (b.x() - apex.x()) > 0 || a.x() == b.x()) continue;
    const double t = (apex.x() - a.x()) / (b.x() - a.x());
    const double y = a.y() + t * (b.y() - a.y());
    if (y < best_y) best_y = y, seg = i;
  }
  if (seg < 0 || best_y > apex.y() - 0.05) return false;
  const Vec2 hem(apex.x(), best_y);
  auto insert_point = [&](const Vec2& q) {
    for (int i = 0; i < static_cast<int>(p.size()); ++i)
      if ((p[i] - q).norm() < 1e-4) return i;  // within 0.1 mm: that point itself
    int at = 0;
    double bd = 1e300;
    for (int i = 0; i < static_cast<int>(p.size()); ++i) {
      const Vec2 &a = p[i], &b = p[(i + 1) % p.size()];
      const Vec2 ab = b - a;
      const double t = std::clamp((q - a).dot(ab) / std::max(ab.squaredNorm(), 1e-30), 0.0, 1.0);
      const double d = (a + t * ab - q).norm();
      if (d < bd) bd = d, at = i;
    }
    p.insert(p.begin() + at + 1, q);
    return at + 1;
  };
  insert_point(apex);
  insert_point(hem);
  int ia = 0, ih = 0;  // the points nearest to the apex and the hem point (inserted or snapped to)
  for (int i = 0; i < static_cast<int>(p.size()); ++i) {
    if ((p[i] - apex).norm() < (p[ia] - apex).norm()) ia = i;
    if ((p[i] - hem).norm() < (p[ih] - hem).norm()) ih = i;
  }
  if (ia == ih) return false;
  const int m = static_cast<int>(p.size());
  std::vector<Vec2> right, left;  // right: hem → underarm → cap → apex; left: apex → … → hem
  for (int i = ih;; i = (i + 1) % m) {
    right.push_back(p[i]);
    if (i == ia) break;
  }
  for (int i = ia;; i = (i + 1) % m) {
    left.push_back(p[i]);
    if (i == ih) break;
  }
  std::vector<Vec2> rn, ln;
  for (const Vec2& q : notches) {
    if ((q - apex).norm() < 1e-6) continue;
    (q.x() > apex.x() ? rn : ln).push_back(q);
  }
  auto cap_length = [&](const std::vector<Vec2>& half) {
    double len = 0;
    for (std::size_t i = 0; i + 1 < half.size(); ++i)
      if (half[i].y() > ymin + 0.5 * (ymax - ymin) || half[i + 1].y() > ymin + 0.5 * (ymax - ymin))
        len += (half[i + 1] - half[i]).norm();
    return len;
  };
  auto top_of = [](const std::vector<Vec2>& half) {
    double y = -1e300;
    for (const Vec2& q : half) y = std::max(y, q.y());
    return y;
  };
  const bool right_front = leg ? top_of(right) < top_of(left)  // the front waist is lower than the back
                               : (rn.size() == 1) != (ln.size() == 1) ? rn.size() == 1
                                                                       : cap_length(right) <= cap_length(left);
  front = back = c;
  front.outline = right_front ? right : left;
  back.outline = right_front ? left : right;
  front_notches = right_front ? rn : ln;
  back_notches = right_front ? ln : rn;
  front.name = c.name + " front";
  back.name = c.name + " back";
  front.role = leg ? Role::leg_front : Role::sleeve_front;
  back.role = leg ? Role::leg_back : Role::sleeve_back;
  front.split_x = back.split_x = apex.x();
  return true;
}

}  // namespace

const char* to_string(Role role) {
  switch (role) {
    case Role::front: return "front";
    case Role::back: return "back";
    case Role::sleeve: return "sleeve";
    case Role::sleeve_front: return "sleeve_front";
    case Role::sleeve_back: return "sleeve_back";
    case Role::leg: return "leg";
    case Role::leg_front: return "leg_front";
    case Role::leg_back: return "leg_back";
    case Role::collar: return "collar";
    case Role::waistband: return "waistband";
    case Role::other: return "other";
  }
  return "?";
}

Role classify(const std::string& name_in, const std::string& category, const std::string& prefix) {
  const std::string name = !prefix.empty() && name_in.rfind(prefix, 0) == 0 ? name_in.substr(prefix.size()) : name_in;
  for (const std::string& text : {name, category}) {
    const std::string s = " " + upper(text) + " ";
    auto has = [&](const char* re) { return std::regex_search(s, std::regex(re)); };
    const bool sleeve = has("SLEEVE|SL[0-9]*[^A-Z]|[^A-Z]LS[0-9]*[^A-Z]");
    const bool front = has("FRONT|FR[0-9]*[^A-Z]");
    const bool back = has("BACK|BK[0-9]*[^A-Z]");
    const bool leg = has("LEG|PANT|TROUSER|[^A-Z]LL[0-9]*[^A-Z]");
    if (sleeve && front) return Role::sleeve_front;
    if (sleeve && back) return Role::sleeve_back;
    if (sleeve) return Role::sleeve;
    if (leg) return Role::leg;
    if (has("COLLAR|NECK|RIB|CO[0-9]*[^A-Z]|[^A-Z]NR[^A-Z]|[^A-Z]RN[^A-Z]")) return Role::collar;
    if (has("WAIST|WB[0-9]*[^A-Z]")) return Role::waistband;
    if (front) return Role::front;
    if (back) return Role::back;
  }
  return Role::other;
}

int CutPiece::key_index(const std::string& id) const {
  for (const KeyPoint& k : keys)
    if (k.id == id) return k.index;
  if (id.size() > 1 && id.size() < 10 && id[0] == 'p' && std::all_of(id.begin() + 1, id.end(), ::isdigit)) {
    const long i = std::stol(id.substr(1));
    if (i >= 0 && i < static_cast<long>(outline.size())) return static_cast<int>(i);
  }
  return -1;
}

int sleeve_side(const CutPiece& c) {
  const bool leg = c.role == Role::leg_front || c.role == Role::leg_back;
  const char* line = leg ? "side" : "overarm";  // the split line: along the arm's top, the leg's outside
  if ((c.role != Role::sleeve_front && c.role != Role::sleeve_back && !leg) || !c.ranges.count(line)) return 0;
  Vec2 centroid = Vec2::Zero();
  for (const Vec2& p : c.outline) centroid += p;
  centroid /= static_cast<double>(c.outline.size());
  const auto& overarm = c.ranges.at(line);
  const double overarm_x =
      0.5 * (c.outline[c.key_index(overarm.first)].x() + c.outline[c.key_index(overarm.second)].x()) - centroid.x();
  const bool on_plus_x = overarm_x > 0;
  return (c.role == Role::sleeve_front || c.role == Role::leg_front) == on_plus_x ? +1 : -1;
}

int CutPattern::find(const std::string& name) const {
  for (std::size_t i = 0; i < pieces.size(); ++i)
    if (pieces[i].name == name) return static_cast<int>(i);
  return -1;
}

CutPattern cut_pieces(const DxfPattern& dxf, const std::string& size_in, const std::map<std::string, int>& quantities) {
  CutPattern out;
  out.size = size_in.empty() ? dxf.sample_size : size_in;
  std::vector<const Piece*> pieces = dxf.pieces_of_size(out.size);
  for (const auto& [name, q] : quantities) {
    bool found = false;
    for (const Piece* p : pieces) found |= p->name == name;
    if (!found) throw InputError(dxf.source + ": a quantity is given for piece '" + name + "', which size '" + out.size + "' does not have");
    if (q < 0 || q > 2) throw InputError(dxf.source + ": quantity " + std::to_string(q) + " for piece '" + name + "': use 0, 1 or 2");
  }
  // The style's common name prefix ("REGULAR TEE" in "REGULAR TEEFR", "REGULAR TEESL1").
  std::string prefix = pieces.size() > 1 ? pieces.front()->name : "";
  for (const Piece* p : pieces) {
    std::size_t k = 0;
    while (k < prefix.size() && k < p->name.size() && prefix[k] == p->name[k]) ++k;
    prefix.resize(k);
  }
  for (const Piece* p : pieces)
    if (p->name.size() == prefix.size()) prefix.clear();
  for (const Piece* piece : pieces) {
    const auto override_q = quantities.find(piece->name);
    const int quantity = override_q != quantities.end() ? override_q->second : piece->quantity;
    if (override_q != quantities.end() && quantity != piece->quantity)
      out.notes.push_back("piece '" + piece->name + "': quantity " + std::to_string(quantity) + " (the file says " +
                          std::to_string(piece->quantity) + ")");
    if (quantity == 0) {
      out.notes.push_back("piece '" + piece->name + "' has quantity 0 (a reference piece, not cut): left out");
      continue;
    }
    CutPiece c;
    c.name = piece->name;
    c.piece = piece->name;
    c.role = classify(piece->name, piece->category, prefix);
    // Grain line up: rotate its direction (first point to second) onto +y.
    double angle = 0;
    if (piece->grain && (piece->grain->b - piece->grain->a).norm() > 1e-6) {
      const Vec2 g = piece->grain->b - piece->grain->a;
      angle = std::numbers::pi / 2 - std::atan2(g.y(), g.x());
    } else {
      out.notes.push_back("piece '" + piece->name + "' has no grain line: kept as drawn");
    }
    for (const Vec2& p : piece->boundary) c.outline.push_back(rotate(p, angle));
    std::vector<Vec2> notches;
    for (const Notch& n : piece->notches) notches.push_back(rotate(n.position, angle));
    if (piece->mirror) {
      const Vec2 a = rotate(piece->mirror->a, angle), b = rotate(piece->mirror->b, angle);
      const std::size_t before = notches.size();
      if (unfold(c.outline, a, b)) {
        c.unfolded = true;
        for (std::size_t k = 0; k < before; ++k)
          if (distance_to_line(notches[k], a, b) > kOnLineTol) notches.push_back(reflect(notches[k], a, b));
        // Centre the fold on x = 0.
        const double fold_x = 0.5 * (a.x() + b.x());
        for (Vec2& p : c.outline) p.x() -= fold_x;
        for (Vec2& p : notches) p.x() -= fold_x;
      } else {
        out.notes.push_back("piece '" + piece->name + "': the mirror line does not lie on its boundary: not unfolded");
      }
    }
    if (const double slit = remove_slits(c.outline); slit > 0) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "piece '%s': a slit of %.1f cm in the cut line is not sewn; left out of the outline",
                    piece->name.c_str(), slit * 100);
      out.notes.push_back(buf);
    }
    // Normalising moves the outline; move the notches with it.
    std::vector<Vec2> before = c.outline;
    normalise(c.outline, c.unfolded);
    Vec2 lo = Vec2::Constant(1e300), hi = Vec2::Constant(-1e300);
    for (const Vec2& q : before) lo = lo.cwiseMin(q), hi = hi.cwiseMax(q);
    const Vec2 shift(c.unfolded ? 0.0 : -(lo.x() + hi.x()) / 2, -lo.y());
    for (Vec2& q : notches) q += shift;
    const std::vector<Vec2> notch_points = notches;
    const int copies = c.unfolded ? 1 : std::max(1, std::min(quantity, 2));
    if (quantity > 2 && !c.unfolded)
      out.notes.push_back("piece '" + piece->name + "' has quantity " + std::to_string(quantity) + ": two copies used");
    std::vector<std::pair<CutPiece, std::vector<Vec2>>> made{{c, notch_points}};
    if (copies == 2) {
      CutPiece m = c;
      const bool flip = piece->flipped != 0 || override_q != quantities.end();
      m.name = c.name + (flip ? " (mirror)" : " (2)");
      m.mirrored = flip;
      std::vector<Vec2> mn = notch_points;
      if (flip) {
        for (Vec2& p : m.outline) p.x() = -p.x();
        for (Vec2& p : mn) p.x() = -p.x();
        std::reverse(m.outline.begin(), m.outline.end());
      }
      made.emplace_back(m, mn);
    }
    for (auto& [piece_copy, piece_notches] : made) {
      CutPiece front, back;
      std::vector<Vec2> fnotches, bnotches;
      if ((piece_copy.role == Role::sleeve || piece_copy.role == Role::leg) &&
          split_sleeve(piece_copy, piece_notches, front, back, fnotches, bnotches, piece_copy.role == Role::leg)) {
        assign_keys(front, fnotches);
        assign_keys(back, bnotches);
        out.pieces.push_back(front);
        out.pieces.push_back(back);
        out.split_sleeves.emplace_back(front.name, back.name);
      } else {
        assign_keys(piece_copy, piece_notches);
        out.pieces.push_back(piece_copy);
      }
    }
  }
  if (out.pieces.empty()) throw InputError(dxf.source + ": size '" + out.size + "' has no piece to cut (all have quantity 0)");
  // Name the outline ranges the matcher and the arrangement use.
  for (CutPiece& c : out.pieces) {
    std::string why;
    bool ok = false;
    if (c.role == Role::front || c.role == Role::back) ok = label_bodice(c, why);
    else if (c.role == Role::sleeve_front || c.role == Role::sleeve_back) ok = label_sleeve_half(c, why);
    else if (c.role == Role::leg_front || c.role == Role::leg_back) ok = label_leg_half(c, why);
    else why = "no seam rule for a " + std::string(to_string(c.role)) + " piece";
    if (!ok) c.ranges.clear(), out.notes.push_back("panel '" + c.name + "': " + why + "; no seams proposed for it");
  }
  return out;
}

std::vector<Seam> propose_seams(const CutPattern& cut, std::vector<std::string>& notes) {
  std::vector<Seam> seams;
  std::vector<int> fronts, backs, sleeve_fronts, sleeve_backs, leg_fronts, leg_backs;
  for (std::size_t i = 0; i < cut.pieces.size(); ++i) {
    const CutPiece& c = cut.pieces[i];
    if (c.ranges.empty()) continue;
    if (c.role == Role::front) fronts.push_back(static_cast<int>(i));
    if (c.role == Role::back) backs.push_back(static_cast<int>(i));
    if (c.role == Role::sleeve_front) sleeve_fronts.push_back(static_cast<int>(i));
    if (c.role == Role::sleeve_back) sleeve_backs.push_back(static_cast<int>(i));
    if (c.role == Role::leg_front) leg_fronts.push_back(static_cast<int>(i));
    if (c.role == Role::leg_back) leg_backs.push_back(static_cast<int>(i));
  }
  auto side = [&](int p, const std::string& label) {
    const auto& r = cut.pieces[p].ranges.at(label);
    return SeamSide{cut.pieces[p].name, r.first, r.second};
  };
  auto has = [&](int p, const std::string& label) { return cut.pieces[p].ranges.count(label) > 0; };
  // Legs (trousers, leggings): per leg the side seam and the inseam between its front and
  // back halves; the crotch seams join the two fronts' rises and the two backs' rises.
  auto half_on = [&](const std::vector<int>& halves, int side) {
    for (int h : halves)
      if (sleeve_side(cut.pieces[h]) == side) return h;
    return -1;
  };
  if (!leg_fronts.empty() || !leg_backs.empty()) {
    const int lf = half_on(leg_fronts, +1), rf = half_on(leg_fronts, -1), lb = half_on(leg_backs, +1),
              rb = half_on(leg_backs, -1);
    if (lf < 0 || rf < 0 || lb < 0 || rb < 0) {
      notes.push_back("legs: need a front and a back half for each leg; legs not matched");
    } else {
      for (const auto& [f, b, body] : {std::tuple{lf, lb, "left leg"}, std::tuple{rf, rb, "right leg"}}) {
        seams.push_back({side(f, "side"), side(b, "side"), false, std::string("side seam, ") + body});
        seams.push_back({side(f, "inseam"), side(b, "inseam"), false, std::string("inseam, ") + body});
      }
      seams.push_back({side(lf, "rise"), side(rf, "rise"), false, "front crotch seam"});
      seams.push_back({side(lb, "rise"), side(rb, "rise"), false, "back crotch seam"});
    }
  }
  if (fronts.size() != 1 || backs.size() != 1) {
    if (!fronts.empty() || !backs.empty() || seams.empty())
      notes.push_back("found " + std::to_string(fronts.size()) + " front and " + std::to_string(backs.size()) +
                      " back pieces; the matcher needs one of each for a top or a skirt");
    return seams;
  }
  const int f = fronts[0], b = backs[0];
  // Front +x is the body's left, back +x its right (the back faces away).
  seams.push_back({side(f, "side_r"), side(b, "side_l"), false, "side seam, body left"});
  seams.push_back({side(f, "side_l"), side(b, "side_r"), false, "side seam, body right"});
  if (has(f, "shoulder_r") && has(b, "shoulder_l")) {
    seams.push_back({side(f, "shoulder_r"), side(b, "shoulder_l"), false, "shoulder, body left"});
    seams.push_back({side(f, "shoulder_l"), side(b, "shoulder_r"), false, "shoulder, body right"});
  }
  // Sleeve halves go to the arm sleeve_side() says, a front and a back half per arm.
  auto on_side = [&](const std::vector<int>& halves, int side) {
    for (int h : halves)
      if (sleeve_side(cut.pieces[h]) == side) return h;
    return -1;
  };
  auto length_of = [&](int p, const std::string& label) {
    const CutPiece& c = cut.pieces[p];
    const auto& r = c.ranges.at(label);
    const int n = static_cast<int>(c.outline.size());
    double len = 0;
    for (int i = c.key_index(r.first); i != c.key_index(r.second); i = (i + 1) % n)
      len += (c.outline[(i + 1) % n] - c.outline[i]).norm();
    return len;
  };
  bool halves_pair = sleeve_fronts.size() == 2 && sleeve_backs.size() == 2;
  if (halves_pair) {
    const double lf = length_of(sleeve_fronts[0], "overarm"), lb = length_of(sleeve_backs[0], "overarm");
    if (std::max(lf, lb) > 1.15 * std::min(lf, lb)) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "sleeve pieces '%s' and '%s' do not pair: their overarm lines are %.1f and %.1f cm",
                    cut.pieces[sleeve_fronts[0]].name.c_str(), cut.pieces[sleeve_backs[0]].name.c_str(), lf * 100, lb * 100);
      notes.push_back(std::string(buf) + "; sleeves not matched (a seam file's \"quantities\" can choose other sleeve pieces)");
      halves_pair = false;
    }
  }
  if (halves_pair && has(f, "armhole_r") && has(b, "armhole_l")) {
    for (int left = 1; left >= 0; --left) {
      const int sf = on_side(sleeve_fronts, left ? +1 : -1), sb = on_side(sleeve_backs, left ? +1 : -1);
      if (sf < 0 || sb < 0) {
        notes.push_back(std::string("no front and back sleeve half for the ") + (left ? "left" : "right") + " arm");
        continue;
      }
      const std::string body = left ? "body left" : "body right";
      seams.push_back({side(f, left ? "armhole_r" : "armhole_l"), side(sf, "cap"), false, "front armhole, " + body});
      seams.push_back({side(b, left ? "armhole_l" : "armhole_r"), side(sb, "cap"), false, "back armhole, " + body});
      seams.push_back({side(sf, "overarm"), side(sb, "overarm"), false, "overarm, " + body});
      seams.push_back({side(sf, "underarm"), side(sb, "underarm"), false, "underarm, " + body});
    }
  } else if (!sleeve_fronts.empty() || !sleeve_backs.empty()) {
    notes.push_back("sleeve halves: need 2 front and 2 back halves with labelled armholes; sleeves not matched");
  }
  return seams;
}

std::vector<Seam> parse_seams(const nlohmann::json& doc, const CutPattern& cut, const std::string& source) {
  auto fail = [&](const std::string& where, const std::string& what) -> void {
    throw InputError(source + ": " + (where.empty() ? "" : where + ": ") + what);
  };
  if (!doc.is_object() || !doc.contains("seams") || !doc["seams"].is_array())
    fail("", "a seam file is an object with a \"seams\" list (and optionally \"quantities\")");
  if (doc.contains("size") && doc["size"].is_string() && doc["size"].get<std::string>() != cut.size)
    fail("", "written for size '" + doc["size"].get<std::string>() + "', but size '" + cut.size + "' is being read");
  std::vector<Seam> out;
  int k = 0;
  for (const auto& s : doc["seams"]) {
    const std::string where = "seam " + std::to_string(k++);
    if (!s.is_object()) fail(where, "must be an object with \"a\" and \"b\"");
    Seam seam;
    SeamSide* sides[2] = {&seam.a, &seam.b};
    const char* names[2] = {"a", "b"};
    for (int i = 0; i < 2; ++i) {
      if (!s.contains(names[i]) || !s[names[i]].is_object()) fail(where, std::string("missing side \"") + names[i] + "\"");
      const auto& j = s[names[i]];
      for (const char* key : {"panel", "from", "to"})
        if (!j.contains(key) || !j[key].is_string()) fail(where, std::string("side ") + names[i] + " needs a string \"" + key + "\"");
      sides[i]->panel = j["panel"].get<std::string>();
      sides[i]->from = j["from"].get<std::string>();
      sides[i]->to = j["to"].get<std::string>();
      const int p = cut.find(sides[i]->panel);
      if (p < 0) fail(where, "no panel '" + sides[i]->panel + "' (tryon inspect lists them)");
      for (const std::string& id : {sides[i]->from, sides[i]->to})
        if (cut.pieces[p].key_index(id) < 0)
          fail(where, "panel '" + sides[i]->panel + "' has no point '" + id + "' (corners c0…, notches n0…, outline points p0…)");
      if (sides[i]->from == sides[i]->to) fail(where, "side " + std::string(names[i]) + " starts and ends at the same point");
    }
    if (s.contains("same_direction")) {
      if (!s["same_direction"].is_boolean()) fail(where, "\"same_direction\" must be true or false");
      seam.same_direction = s["same_direction"].get<bool>();
    }
    if (s.contains("note") && s["note"].is_string()) seam.note = s["note"].get<std::string>();
    out.push_back(seam);
  }
  return out;
}

nlohmann::json read_seam_file(const std::filesystem::path& path) {
  const std::string text = read_text_file(path, "seam", std::size_t{16} << 20);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path.string() + ": not valid JSON (" + e.what() + ")");
  }
  if (!doc.is_object()) throw InputError(path.string() + ": a seam file is a JSON object");
  return doc;
}

std::map<std::string, int> parse_quantities(const nlohmann::json& doc, const std::string& source) {
  std::map<std::string, int> out;
  if (!doc.is_object() || !doc.contains("quantities")) return out;
  const auto& q = doc["quantities"];
  if (!q.is_object()) throw InputError(source + ": \"quantities\" must be an object {\"piece name\": count}");
  for (auto it = q.begin(); it != q.end(); ++it) {
    if (!it.value().is_number_integer()) throw InputError(source + ": quantity of '" + it.key() + "' must be 0, 1 or 2");
    out[it.key()] = it.value().get<int>();
  }
  return out;
}

nlohmann::json seams_to_json(const CutPattern& cut, const std::vector<Seam>& seams) {
  using json = nlohmann::json;
  json list = json::array();
  for (const Seam& s : seams) {
    json j = {{"a", {{"panel", s.a.panel}, {"from", s.a.from}, {"to", s.a.to}}},
              {"b", {{"panel", s.b.panel}, {"from", s.b.from}, {"to", s.b.to}}}};
    if (s.same_direction) j["same_direction"] = true;
    if (!s.note.empty()) j["note"] = s.note;
    list.push_back(j);
  }
  return {{"format", "tryon-seams-1"}, {"size", cut.size}, {"seams", list}};
}

Pattern to_pattern(const CutPattern& cut, const std::vector<Seam>& seams, const std::string& name) {
  Pattern pattern;
  pattern.name = name;
  // Per panel: the seam ranges on it (outline indices, counter-clockwise).
  std::vector<std::vector<std::pair<int, int>>> ranges(cut.pieces.size());
  auto range_of = [&](const SeamSide& s) {
    const int p = cut.find(s.panel);
    if (p < 0) throw InputError("seam refers to panel '" + s.panel + "', which the pattern does not have");
    const int a = cut.pieces[p].key_index(s.from), b = cut.pieces[p].key_index(s.to);
    if (a < 0 || b < 0 || a == b) throw InputError("seam on panel '" + s.panel + "': bad range " + s.from + "–" + s.to);
    return std::tuple{p, a, b};
  };
  auto inside = [](int i, int a, int b, int n) {  // strictly inside the ccw range a→b
    const int d = (i - a + n) % n, len = (b - a + n) % n;
    return d > 0 && d < len;
  };
  for (const Seam& s : seams)
    for (const SeamSide* side : {&s.a, &s.b}) {
      const auto [p, a, b] = range_of(*side);
      const int n = static_cast<int>(cut.pieces[p].outline.size());
      for (const auto& [c, d] : ranges[p])
        if (inside(a, c, d, n) || inside(b, c, d, n) || inside(c, a, b, n) || (a == c && b == d))
          throw InputError("panel '" + side->panel + "': seam range " + side->from + "–" + side->to + " overlaps another seam");
      ranges[p].emplace_back(a, b);
    }
  for (std::size_t p = 0; p < cut.pieces.size(); ++p) {
    const CutPiece& c = cut.pieces[p];
    const int n = static_cast<int>(c.outline.size());
    std::set<int> breaks;
    for (const auto& [a, b] : ranges[p]) breaks.insert(a), breaks.insert(b);
    for (const KeyPoint& k : c.keys) {
      if (k.id[0] != 'c') continue;
      bool in = false;
      for (const auto& [a, b] : ranges[p]) in |= inside(k.index, a, b, n);
      if (!in) breaks.insert(k.index);
    }
    // At least three vertices so that the panel is a loop of edges with area.
    for (int i = 0; breaks.size() < 3 && i < 3; ++i) breaks.insert(i * n / 3);
    Panel panel;
    panel.name = c.name;
    panel.label = to_string(c.role);
    const std::vector<int> bv(breaks.begin(), breaks.end());
    for (int i : bv) panel.vertices.push_back(c.outline[i]);
    for (std::size_t k = 0; k < bv.size(); ++k) {
      Edge e;
      e.start = static_cast<int>(k);
      e.end = static_cast<int>((k + 1) % bv.size());
      const int a = bv[k], b = bv[(k + 1) % bv.size()];
      for (int i = (a + 1) % n; i != b; i = (i + 1) % n) e.controls.push_back(c.outline[i]);
      e.kind = e.controls.empty() ? CurveKind::straight : CurveKind::polyline;
      for (const KeyPoint& kp : c.keys) {
        if (kp.index == a) e.label = kp.id;
        if (kp.index == b) e.label += (e.label.empty() ? "" : "-") + kp.id;
      }
      for (const auto& [label, r] : c.ranges)
        if (c.key_index(r.first) == a && c.key_index(r.second) == b) e.label = label;
      panel.edges.push_back(std::move(e));
    }
    pattern.panels.push_back(std::move(panel));
  }
  auto edge_of = [&](const SeamSide& s) {
    const auto [p, a, b] = range_of(s);
    const Panel& panel = pattern.panels[p];
    for (std::size_t k = 0; k < panel.edges.size(); ++k)
      if ((panel.vertices[panel.edges[k].start] - cut.pieces[p].outline[a]).norm() < 1e-12 &&
          (panel.vertices[panel.edges[k].end] - cut.pieces[p].outline[b]).norm() < 1e-12)
        return StitchSide{p, static_cast<int>(k)};
    throw InputError("panel '" + s.panel + "': seam range " + s.from + "–" + s.to + " is not one edge (internal)");
  };
  for (const Seam& s : seams) pattern.stitches.push_back({edge_of(s.a), edge_of(s.b), s.same_direction});
  return pattern;
}

}  // namespace tryon::garments::dxf
