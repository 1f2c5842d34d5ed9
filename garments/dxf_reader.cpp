#include "garments/dxf_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/files.hpp"

namespace tryon::garments::dxf {
namespace {

constexpr double kMaxCoordinate = 1e6;  // file units; a pattern is at most a few thousand mm
constexpr std::size_t kMaxPairs = 50'000'000;

[[noreturn]] void fail(const std::string& source, int line, const std::string& what) {
  throw InputError(source + (line > 0 ? ":" + std::to_string(line) : "") + ": " + what);
}

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// ---- entities --------------------------------------------------------------------------

// One DXF entity: its type, its pairs (code 0 excluded) and, for POLYLINE, its VERTEXes.
struct Entity {
  std::string type;
  std::vector<const GroupPair*> pairs;
  std::vector<Entity> vertices;
  int line = 0;

  const GroupPair* find(int code) const {
    for (const GroupPair* p : pairs)
      if (p->code == code) return p;
    return nullptr;
  }
  std::string text(int code, const std::string& fallback = "") const {
    const GroupPair* p = find(code);
    return p ? p->value : fallback;
  }
  std::string layer() const { return trim(text(8)); }
};

struct Reader {
  std::string source;

  double number(const GroupPair& p) const {
    const std::string v = trim(p.value);
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size())
      fail(source, p.line + 1, "group " + std::to_string(p.code) + " must be a number, found '" + v.substr(0, 40) + "'");
    if (!std::isfinite(x)) fail(source, p.line + 1, "group " + std::to_string(p.code) + " is not a finite number");
    if (std::abs(x) > kMaxCoordinate)
      fail(source, p.line + 1, "value " + v + " is out of range (|x| > 1e6): not a garment pattern coordinate");
    return x;
  }
  double number(const Entity& e, int code, double fallback) const {
    const GroupPair* p = e.find(code);
    return p ? number(*p) : fallback;
  }
  Vec2 point(const Entity& e, int xcode) const {
    const GroupPair* x = e.find(xcode);
    const GroupPair* y = e.find(xcode + 10);
    if (!x || !y) fail(source, e.line, e.type + " without its point (groups " + std::to_string(xcode) + "/" + std::to_string(xcode + 10) + ")");
    return {number(*x), number(*y)};
  }
  // Every point of a line-like entity, in order.
  std::vector<Vec2> points(const Entity& e) const {
    std::vector<Vec2> out;
    if (e.type == "LINE") {
      out = {point(e, 10), point(e, 11)};
    } else if (e.type == "POLYLINE") {
      for (const Entity& v : e.vertices) out.push_back(point(v, 10));
      if (static_cast<int>(number(e, 70, 0)) & 1 && out.size() > 2) out.push_back(out.front());
    } else if (e.type == "LWPOLYLINE") {
      // Repeated 10/20 pairs, one per vertex.
      double x = 0;
      bool have_x = false;
      for (const GroupPair* p : e.pairs) {
        if (p->code == 10) x = number(*p), have_x = true;
        else if (p->code == 20 && have_x) out.emplace_back(x, number(*p)), have_x = false;
      }
      if (static_cast<int>(number(e, 70, 0)) & 1 && out.size() > 2) out.push_back(out.front());
    }
    return out;
  }
};

// Groups the pairs of a section into entities; POLYLINE swallows its VERTEXes up to SEQEND.
std::vector<Entity> group_entities(const std::vector<GroupPair>& pairs, std::size_t& i, const std::string& source) {
  std::vector<Entity> out;
  Entity* polyline = nullptr;
  while (i < pairs.size()) {
    const GroupPair& p = pairs[i];
    if (p.code != 0) {
      fail(source, p.line, "expected an entity (group 0), found group " + std::to_string(p.code));
    }
    const std::string type = upper(trim(p.value));
    if (type == "ENDSEC" || type == "ENDBLK") break;
    Entity e;
    e.type = type;
    e.line = p.line;
    for (++i; i < pairs.size() && pairs[i].code != 0; ++i) e.pairs.push_back(&pairs[i]);
    if (type == "VERTEX" && polyline) {
      polyline->vertices.push_back(std::move(e));
    } else if (type == "SEQEND") {
      polyline = nullptr;
    } else {
      out.push_back(std::move(e));
      polyline = type == "POLYLINE" ? &out.back() : nullptr;
    }
  }
  return out;
}

struct Block {
  std::string name;
  std::vector<Entity> entities;
  int line = 0;
};

// "Key: value" text → (upper-case key, value); key empty when there is no colon.
std::pair<std::string, std::string> key_value(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) return {"", trim(text)};
  return {upper(trim(text.substr(0, colon))), trim(text.substr(colon + 1))};
}

// MTEXT strings come in chunks (group 3, then 1); TEXT has group 1.
std::string entity_text(const Entity& e) {
  std::string s;
  for (const GroupPair* p : e.pairs)
    if (p->code == 3) s += p->value;
  return s + e.text(1);
}

int layer_number(const std::string& layer) {
  if (layer.empty() || layer.size() > 4) return -1;
  for (char c : layer)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  return std::stoi(layer);
}

// Joins boundary segments head to tail (reversing one when its far end is the nearer),
// drops repeated points and the closing point.
std::vector<Vec2> chain(const std::vector<std::vector<Vec2>>& parts, double eps) {
  std::vector<Vec2> out;
  for (std::vector<Vec2> part : parts) {
    if (part.empty()) continue;
    if (!out.empty() && (part.back() - out.back()).norm() < (part.front() - out.back()).norm())
      std::reverse(part.begin(), part.end());
    for (const Vec2& q : part)
      if (out.empty() || (q - out.back()).norm() > eps) out.push_back(q);
  }
  while (out.size() > 1 && (out.front() - out.back()).norm() <= eps) out.pop_back();
  return out;
}

struct Transform {
  Vec2 offset = Vec2::Zero();
  Vec2 scale = Vec2::Ones();
  double rotation_rad = 0;
  Vec2 apply(const Vec2& p) const {
    const Vec2 s = p.cwiseProduct(scale);
    const double c = std::cos(rotation_rad), n = std::sin(rotation_rad);
    return offset + Vec2(c * s.x() - n * s.y(), n * s.x() + c * s.y());
  }
};

Piece make_piece(const Block& b, const Transform& t, double metres, const Reader& r) {
  Piece piece;
  piece.block = b.name;
  piece.line = b.line;
  auto m = [&](const Vec2& p) -> Vec2 { return t.apply(p) * metres; };
  auto ms = [&](std::vector<Vec2> pts) {
    for (Vec2& p : pts) p = m(p);
    return pts;
  };
  std::vector<std::vector<Vec2>> boundary_parts;
  std::vector<std::pair<std::size_t, Vec2>> line_notch_far_end;  // notch index, other end
  for (const Entity& e : b.entities) {
    const int layer = layer_number(e.layer());
    const bool linear = e.type == "LINE" || e.type == "POLYLINE" || e.type == "LWPOLYLINE";
    if (e.type == "TEXT" || e.type == "MTEXT") {
      if (layer != 1) continue;
      const auto [key, value] = key_value(entity_text(e));
      if (key == "PIECE NAME") piece.name = value;
      else if (key == "SIZE") piece.size = value;
      else if (key == "CATEGORY") piece.category = value;
      else if (key == "ANNOTATION") piece.annotation = value;
      else if (key == "QUANTITY") {
        // AAMA: "2"; ASTM: "as drawn,flipped", e.g. "1,1" for a left and right pair.
        const auto comma = value.find(',');
        const std::string& quantity = value;  // a lambda may not capture a structured binding in clang 14
        auto count = [&](const std::string& v) {
          char* end = nullptr;
          const std::string t = trim(v);
          const long q = std::strtol(t.c_str(), &end, 10);
          if (t.empty() || *end != '\0' || q < 0 || q > 1000)
            fail(r.source, e.line, "block '" + b.name + "': Quantity '" + quantity + "' is not a count from 0 to 1000 (or 'n,m')");
          return static_cast<int>(q);
        };
        piece.quantity_given = true;
        if (comma == std::string::npos) {
          piece.quantity = count(value);
        } else {
          piece.flipped = count(value.substr(comma + 1));
          piece.quantity = count(value.substr(0, comma)) + piece.flipped;
        }
      }
      continue;
    }
    if (layer == 1 && linear) {
      boundary_parts.push_back(ms(r.points(e)));
    } else if (layer == 4 || (layer >= 80 && layer <= 83)) {
      Notch n;
      n.type = layer == 4 ? NotchType::slit : static_cast<NotchType>(layer - 79);
      if (e.type == "POINT") {
        n.position = m(r.point(e, 10));
        if (e.find(50)) n.angle_deg = r.number(e, 50, 0), n.has_angle = true;
      } else if (linear) {
        const auto pts = ms(r.points(e));
        if (pts.empty()) continue;
        n.position = pts.front();  // the end on the boundary is chosen once it is known
        line_notch_far_end.emplace_back(piece.notches.size(), pts.back());
      } else {
        continue;
      }
      piece.notches.push_back(n);
    } else if (layer == 2 && e.type == "POINT") {
      piece.turn_points.push_back(m(r.point(e, 10)));
    } else if ((layer == 6 || layer == 7) && linear) {
      const auto pts = ms(r.points(e));
      if (pts.size() < 2) continue;
      auto& slot = layer == 6 ? piece.mirror : piece.grain;
      if (!slot) slot = Segment2{pts.front(), pts.back()};
    } else if ((layer == 8 || layer == 11) && linear) {
      piece.internal_lines.push_back(ms(r.points(e)));
    } else if (layer == 14 && linear) {
      piece.sew_lines.push_back(ms(r.points(e)));
    } else if (layer == 13 && (e.type == "POINT" || e.type == "CIRCLE")) {
      piece.drill_holes.push_back(m(r.point(e, 10)));
    }
  }
  piece.boundary = chain(boundary_parts, 1e-7);
  // Notches drawn as short lines: keep the end nearer the boundary's points.
  auto distance_to_boundary = [&](const Vec2& q) {
    double best = 1e300;
    for (const Vec2& b : piece.boundary) best = std::min(best, (b - q).squaredNorm());
    return best;
  };
  for (const auto& [k, far] : line_notch_far_end)
    if (distance_to_boundary(far) < distance_to_boundary(piece.notches[k].position)) piece.notches[k].position = far;
  // Duplicate notches (Gerber repeats a notch once per boundary segment that ends there).
  std::vector<Notch> unique;
  for (const Notch& n : piece.notches) {
    bool dup = false;
    for (const Notch& u : unique) dup |= (u.position - n.position).norm() < 1e-5;
    if (!dup) unique.push_back(n);
  }
  piece.notches = unique;
  return piece;
}

}  // namespace

const char* to_string(NotchType type) {
  switch (type) {
    case NotchType::slit: return "slit";
    case NotchType::t_notch: return "T";
    case NotchType::castle: return "castle";
    case NotchType::check: return "check";
    case NotchType::u_notch: return "U";
  }
  return "?";
}

std::vector<GroupPair> tokenize(const std::string& text, const std::string& source) {
  if (text.rfind("AutoCAD Binary DXF", 0) == 0)
    fail(source, 0, "binary DXF is not supported; export the pattern as ASCII DXF (AAMA or ASTM)");
  std::vector<GroupPair> out;
  std::size_t pos = 0;
  int line = 0;
  auto next_line = [&](std::string& s) {
    if (pos >= text.size()) return false;
    std::size_t end = pos;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    s.assign(text, pos, end - pos);
    if (end < text.size() && text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') ++end;
    pos = end + 1;
    ++line;
    return true;
  };
  std::string code_line, value_line;
  while (next_line(code_line)) {
    const std::string c = trim(code_line);
    if (c.empty() && pos >= text.size()) break;  // trailing blank line
    const int code_at = line;
    char* end = nullptr;
    const long code = std::strtol(c.c_str(), &end, 10);
    if (c.empty() || *end != '\0' || code < -5 || code > 1071)
      fail(source, code_at, "expected a DXF group code (an integer from -5 to 1071), found '" + c.substr(0, 40) + "'");
    if (!next_line(value_line))
      fail(source, code_at, "the file ends after group code " + c + " without its value (truncated?)");
    // Values keep inner blanks; trailing blanks and CR are dropped, leading ones too (numbers).
    out.push_back({static_cast<int>(code), trim(value_line), code_at});
    if (out.size() > kMaxPairs) fail(source, code_at, "more than 50 million group pairs; refused");
    if (code == 0 && out.back().value == "EOF") break;
  }
  return out;
}

bool looks_like_dxf(const std::string& head) {
  std::size_t pos = 0;
  while (pos < head.size() && std::isspace(static_cast<unsigned char>(head[pos]))) ++pos;
  if (head.compare(pos, 3, "999") == 0) return true;
  if (head.compare(pos, 1, "0") != 0) return head.rfind("AutoCAD Binary DXF", 0) == 0;
  ++pos;
  while (pos < head.size() && std::isspace(static_cast<unsigned char>(head[pos]))) ++pos;
  return head.compare(pos, 7, "SECTION") == 0;
}

std::vector<const Piece*> DxfPattern::pieces_of_size(const std::string& size) const {
  std::vector<const Piece*> out;
  for (const Piece& p : pieces)
    if (p.size == size) out.push_back(&p);
  if (out.empty()) {
    std::string list;
    for (const auto& s : sizes) list += (list.empty() ? "" : ", ") + s;
    throw InputError(source + ": no size '" + size + "' (the file has " + (list.empty() ? "none" : list) + ")");
  }
  return out;
}

DxfPattern parse_dxf(const std::string& text, const std::string& source) {
  const std::vector<GroupPair> pairs = tokenize(text, source);
  if (pairs.empty()) fail(source, 0, "empty file: not a DXF pattern");
  Reader r{source};

  std::vector<Block> blocks;
  std::vector<Entity> entities;
  bool saw_section = false;
  for (std::size_t i = 0; i < pairs.size();) {
    const GroupPair& p = pairs[i];
    if (p.code == 0 && upper(p.value) == "EOF") break;
    if (!(p.code == 0 && upper(p.value) == "SECTION")) {
      if (p.code == 999) { ++i; continue; }  // comment
      fail(source, p.line, "expected 0/SECTION, found " + std::to_string(p.code) + "/" + p.value.substr(0, 40));
    }
    saw_section = true;
    if (i + 1 >= pairs.size() || pairs[i + 1].code != 2) fail(source, p.line, "SECTION without its name (group 2)");
    const std::string name = upper(pairs[i + 1].value);
    i += 2;
    if (name == "BLOCKS") {
      while (i < pairs.size()) {
        const GroupPair& q = pairs[i];
        if (q.code != 0) fail(source, q.line, "expected BLOCK, found group " + std::to_string(q.code));
        const std::string t = upper(q.value);
        if (t == "ENDSEC") break;
        if (t != "BLOCK") fail(source, q.line, "expected BLOCK or ENDSEC in BLOCKS, found " + q.value.substr(0, 40));
        Block b;
        b.line = q.line;
        for (++i; i < pairs.size() && pairs[i].code != 0; ++i)
          if (pairs[i].code == 2) b.name = trim(pairs[i].value);
        b.entities = group_entities(pairs, i, source);
        if (i >= pairs.size() || upper(pairs[i].value) != "ENDBLK")
          fail(source, b.line, "block '" + b.name + "' has no ENDBLK (truncated file?)");
        for (++i; i < pairs.size() && pairs[i].code != 0; ++i) {}  // ENDBLK's own pairs
        blocks.push_back(std::move(b));
      }
    } else if (name == "ENTITIES") {
      entities = group_entities(pairs, i, source);
    } else {
      while (i < pairs.size() && !(pairs[i].code == 0 && upper(pairs[i].value) == "ENDSEC")) ++i;
    }
    if (i >= pairs.size()) fail(source, p.line, "section " + name + " has no ENDSEC (truncated file?)");
    ++i;  // ENDSEC
  }
  if (!saw_section) fail(source, 0, "no DXF sections: not a DXF pattern");

  DxfPattern out;
  out.source = source;
  // Style system text: layer-1 TEXT outside blocks.
  for (const Entity& e : entities) {
    if (e.type != "TEXT" && e.type != "MTEXT") continue;
    const auto [key, value] = key_value(entity_text(e));
    if (key == "STYLE NAME") out.style = value;
    else if (key == "AUTHOR") out.author = value;
    else if (key == "SAMPLE SIZE") out.sample_size = value;
    else if (key == "GRADE RULE TABLE") out.grade_rule_table = value;
    else if (key == "UNITS") {
      const std::string u = upper(value);
      out.units = u;
      out.units_given = true;
      if (u == "ENGLISH" || u == "INCH" || u == "INCHES" || u == "IN") out.metres_per_unit = 0.0254;
      else if (u == "METRIC" || u == "MM" || u == "MILLIMETER" || u == "MILLIMETERS" || u == "MILLIMETRES") out.metres_per_unit = 0.001;
      else if (u == "CM" || u == "CENTIMETER" || u == "CENTIMETERS" || u == "CENTIMETRES") out.metres_per_unit = 0.01;
      else fail(source, e.line, "unknown unit 'Units: " + value + "' (expected ENGLISH or METRIC)");
    }
  }
  if (!out.units_given)
    out.warnings.push_back("no 'Units:' text: coordinates read as inches (ENGLISH), the standard's default");

  std::map<std::string, const Block*> by_name;
  for (const Block& b : blocks) by_name[b.name] = &b;
  std::vector<std::pair<const Block*, Transform>> placed;
  bool any_insert = false;
  for (const Entity& e : entities) {
    if (e.type != "INSERT") continue;
    any_insert = true;
    const std::string name = trim(e.text(2));
    auto it = by_name.find(name);
    if (it == by_name.end()) fail(source, e.line, "INSERT of block '" + name + "', which the file does not define");
    Transform t;
    if (e.find(10)) t.offset = r.point(e, 10);
    t.scale = Vec2(r.number(e, 41, 1), r.number(e, 42, 1));
    if (t.scale.cwiseAbs().minCoeff() < 1e-9) fail(source, e.line, "INSERT of '" + name + "' has a zero scale");
    t.rotation_rad = r.number(e, 50, 0) * 3.14159265358979323846 / 180.0;
    placed.emplace_back(it->second, t);
  }
  if (!any_insert)
    for (const Block& b : blocks) placed.emplace_back(&b, Transform{});

  std::set<std::string> seen_sizes;
  for (const auto& [block, transform] : placed) {
    bool has_boundary = false;
    for (const Entity& e : block->entities)
      has_boundary |= layer_number(e.layer()) == 1 && (e.type == "LINE" || e.type == "POLYLINE" || e.type == "LWPOLYLINE");
    if (!has_boundary) {
      if (any_insert) out.warnings.push_back("block '" + block->name + "' has no boundary (layer 1): skipped");
      continue;
    }
    Piece piece = make_piece(*block, transform, out.metres_per_unit, r);
    if (piece.boundary.size() < 3)
      fail(source, block->line, "block '" + block->name + "': the boundary (layer 1) has " +
                                    std::to_string(piece.boundary.size()) + " distinct points; a piece needs at least 3");
    const auto us = block->name.rfind('_');
    if (piece.size.empty() && us != std::string::npos) piece.size = block->name.substr(us + 1);
    if (piece.name.empty()) {
      piece.name = block->name;
      if (!piece.size.empty() && us != std::string::npos && block->name.substr(us + 1) == piece.size)
        piece.name = block->name.substr(0, us);
    }
    if (seen_sizes.insert(piece.size).second) out.sizes.push_back(piece.size);
    out.pieces.push_back(std::move(piece));
  }
  if (out.pieces.empty())
    fail(source, 0, blocks.empty() ? "no BLOCKS: a DXF-AAMA/ASTM pattern keeps each piece in a block"
                                   : "no block has a piece boundary on layer 1");
  // Graded blocks often carry only name and size (the Gerber exports here): the other piece
  // text comes from the sample size's block of the same piece.
  if (out.sample_size.empty()) out.sample_size = out.sizes.front();
  else if (!seen_sizes.count(out.sample_size))
    out.warnings.push_back("the sample size '" + out.sample_size + "' has no pieces; using size '" + out.sizes.front() + "'"),
        out.sample_size = out.sizes.front();
  int inherited = 0;
  for (Piece& p : out.pieces) {
    if (p.quantity_given || p.size == out.sample_size) continue;
    for (const Piece& sample : out.pieces)
      if (sample.size == out.sample_size && sample.name == p.name && sample.quantity_given) {
        p.quantity = sample.quantity;
        p.flipped = sample.flipped;
        if (p.category.empty()) p.category = sample.category;
        if (p.annotation.empty()) p.annotation = sample.annotation;
        ++inherited;
        break;
      }
  }
  if (inherited > 0)
    out.warnings.push_back(std::to_string(inherited) + " graded pieces without 'Quantity:' take the sample size's quantity");
  return out;
}

DxfPattern read_dxf(const std::filesystem::path& path) {
  DxfPattern p = parse_dxf(read_text_file(path, "pattern"), path.string());
  if (p.style.empty()) p.style = path.stem().string();
  return p;
}

}  // namespace tryon::garments::dxf
