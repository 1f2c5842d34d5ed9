#include "core/obj_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "core/error.hpp"

namespace tryon {
namespace {

struct Cursor {
  std::string_view line;
  std::size_t pos = 0;
  void skip_space() {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r')) ++pos;
  }
  bool at_end() {
    skip_space();
    return pos >= line.size();
  }
  std::string_view token() {
    skip_space();
    const std::size_t start = pos;
    while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t' && line[pos] != '\r') ++pos;
    return line.substr(start, pos - start);
  }
};

}  // namespace

ObjContents parse_obj(std::string_view text, const std::string& source) {
  std::vector<double> positions, texcoords;
  std::vector<int> faces, lines;
  std::vector<long long> polygon, polygon_uv;
  std::vector<long long> uv_of_vertex;  // texcoord index per vertex, -1 unset
  std::size_t line_no = 0;
  auto fail = [&](const std::string& what) -> void {
    throw InputError(source + ", line " + std::to_string(line_no) + ": " + what);
  };
  // Parses a 1-based (or negative, relative) index into a list of `count` items.
  auto parse_index = [&](std::string_view t, long long count, const char* what) -> long long {
    long long value = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), value);
    if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size() || value == 0)
      fail(std::string(what) + " index '" + std::string(t) + "' is not an index");
    const long long i = value > 0 ? value - 1 : count + value;  // negative: relative to the end
    if (i < 0 || i >= count)
      fail("refers to " + std::string(what) + " " + std::to_string(value) + ", but only " +
           std::to_string(count) + " precede it");
    return i;
  };
  auto parse_number = [&](std::string_view t, const char* what) {
    double value = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), value);
    if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(value))
      fail(std::string(what) + " '" + std::string(t) + "' is not a finite number");
    return value;
  };
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    Cursor c{text.substr(start, end - start)};
    start = end + 1;
    ++line_no;
    const std::string_view kind = c.token();
    if (kind == "v") {
      for (int k = 0; k < 3; ++k) {
        const std::string_view t = c.token();
        if (t.empty()) fail("a vertex needs 3 coordinates, found " + std::to_string(k));
        positions.push_back(parse_number(t, "vertex coordinate"));
      }
    } else if (kind == "vt") {
      texcoords.push_back(parse_number(c.token(), "texture coordinate"));
      const std::string_view v = c.token();
      texcoords.push_back(v.empty() ? 0.0 : parse_number(v, "texture coordinate"));
    } else if (kind == "f" || kind == "l") {
      polygon.clear();
      polygon_uv.clear();
      const long long nv = static_cast<long long>(positions.size() / 3);
      while (!c.at_end()) {
        const std::string_view t = c.token();
        const std::size_t slash = t.find('/');
        polygon.push_back(parse_index(t.substr(0, slash), nv, "vertex"));
        long long uv = -1;
        if (slash != std::string_view::npos) {
          const std::string_view rest = t.substr(slash + 1);
          const std::string_view vt = rest.substr(0, rest.find('/'));
          if (!vt.empty()) uv = parse_index(vt, static_cast<long long>(texcoords.size() / 2), "texture coordinate");
        }
        polygon_uv.push_back(uv);
      }
      if (kind == "l") {
        if (polygon.size() < 2) fail("a line needs at least 2 vertices");
        for (std::size_t k = 0; k + 1 < polygon.size(); ++k) {
          lines.push_back(static_cast<int>(polygon[k]));
          lines.push_back(static_cast<int>(polygon[k + 1]));
        }
        continue;
      }
      if (polygon.size() < 3) fail("a face needs at least 3 vertices");
      if (uv_of_vertex.size() < positions.size() / 3) uv_of_vertex.resize(positions.size() / 3, -1);
      for (std::size_t k = 0; k < polygon.size(); ++k)
        if (polygon_uv[k] >= 0 && uv_of_vertex[polygon[k]] < 0) uv_of_vertex[polygon[k]] = polygon_uv[k];
      for (std::size_t k = 1; k + 1 < polygon.size(); ++k) {
        faces.push_back(static_cast<int>(polygon[0]));
        faces.push_back(static_cast<int>(polygon[k]));
        faces.push_back(static_cast<int>(polygon[k + 1]));
      }
    }
  }
  ObjContents out;
  TriMesh& m = out.mesh;
  const auto nv = static_cast<Eigen::Index>(positions.size() / 3);
  m.V = Eigen::Map<const Points3>(positions.data(), nv, 3);
  m.F = Eigen::Map<const Triangles>(faces.data(), static_cast<Eigen::Index>(faces.size() / 3), 3);
  uv_of_vertex.resize(nv, -1);
  if (std::any_of(uv_of_vertex.begin(), uv_of_vertex.end(), [](long long t) { return t >= 0; })) {
    m.UV = Points2::Zero(nv, 2);
    for (Eigen::Index v = 0; v < nv; ++v)
      if (uv_of_vertex[v] >= 0) m.UV.row(v) << texcoords[2 * uv_of_vertex[v]], texcoords[2 * uv_of_vertex[v] + 1];
  }
  out.lines = Eigen::Map<const Segments>(lines.data(), static_cast<Eigen::Index>(lines.size() / 2), 2);
  return out;
}

}  // namespace tryon
