#include "core/obj_reader.hpp"

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

TriMesh parse_obj(std::string_view text, const std::string& source) {
  std::vector<double> positions;
  std::vector<int> faces;
  std::vector<long long> polygon;
  std::size_t line_no = 0;
  auto fail = [&](const std::string& what) -> void {
    throw InputError(source + ", line " + std::to_string(line_no) + ": " + what);
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
        double value = 0;
        const auto r = std::from_chars(t.data(), t.data() + t.size(), value);
        if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(value))
          fail("vertex coordinate '" + std::string(t) + "' is not a finite number");
        positions.push_back(value);
      }
    } else if (kind == "f") {
      polygon.clear();
      while (!c.at_end()) {
        const std::string_view t = c.token();
        const std::string_view idx = t.substr(0, t.find('/'));
        long long value = 0;
        const auto r = std::from_chars(idx.data(), idx.data() + idx.size(), value);
        if (idx.empty() || r.ec != std::errc() || r.ptr != idx.data() + idx.size() || value == 0)
          fail("face index '" + std::string(t) + "' is not a vertex index");
        const long long n = static_cast<long long>(positions.size() / 3);
        const long long i = value > 0 ? value - 1 : n + value;  // negative: relative to the end
        if (i < 0 || i >= n)
          fail("face refers to vertex " + std::to_string(value) + ", but only " + std::to_string(n) +
               " vertices precede it");
        polygon.push_back(i);
      }
      if (polygon.size() < 3) fail("a face needs at least 3 vertices");
      for (std::size_t k = 1; k + 1 < polygon.size(); ++k) {
        faces.push_back(static_cast<int>(polygon[0]));
        faces.push_back(static_cast<int>(polygon[k]));
        faces.push_back(static_cast<int>(polygon[k + 1]));
      }
    }
  }
  TriMesh m;
  m.V = Eigen::Map<const Points3>(positions.data(), static_cast<Eigen::Index>(positions.size() / 3), 3);
  m.F = Eigen::Map<const Triangles>(faces.data(), static_cast<Eigen::Index>(faces.size() / 3), 3);
  return m;
}

}  // namespace tryon
