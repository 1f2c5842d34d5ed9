#pragma once
// A glTF 2.0 document built by hand for the tests (accessors over one buffer), written as
// .gltf (the buffer inline, base64) or .glb; and one such document, a triangle moved by morph
// targets.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace tryon::test {

inline std::string base64(const std::vector<std::uint8_t>& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::uint32_t n = (std::uint32_t{bytes[i]} << 16) | (i + 1 < bytes.size() ? bytes[i + 1] << 8 : 0) |
                            (i + 2 < bytes.size() ? bytes[i + 2] : 0);
    out += digits[(n >> 18) & 63];
    out += digits[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? digits[n & 63] : '=';
  }
  return out;
}

// A glTF document being written: one buffer, one buffer view per accessor.
struct Gltf {
  using json = nlohmann::json;
  json doc = {{"asset", {{"version", "2.0"}}}, {"bufferViews", json::array()}, {"accessors", json::array()}};
  std::vector<std::uint8_t> bin;

  // Appends `values` (float or uint16) as an accessor of `type` ("SCALAR", "VEC3", ...); returns its index.
  template <typename T>
  int accessor(const std::vector<T>& values, const std::string& type, int components, bool min_max = false) {
    while (bin.size() % 4) bin.push_back(0);
    const std::size_t offset = bin.size();
    bin.resize(offset + values.size() * sizeof(T));
    std::memcpy(bin.data() + offset, values.data(), values.size() * sizeof(T));
    doc["bufferViews"].push_back(
        {{"buffer", 0}, {"byteOffset", offset}, {"byteLength", values.size() * sizeof(T)}});
    json a = {{"bufferView", doc["bufferViews"].size() - 1},
              {"componentType", std::is_same_v<T, float> ? 5126 : 5123},
              {"count", values.size() / components},
              {"type", type}};
    if (min_max) {
      std::vector<double> lo(components, 1e30), hi(components, -1e30);
      for (std::size_t i = 0; i < values.size(); ++i) {
        lo[i % components] = std::min<double>(lo[i % components], values[i]);
        hi[i % components] = std::max<double>(hi[i % components], values[i]);
      }
      a["min"] = lo;
      a["max"] = hi;
    }
    doc["accessors"].push_back(a);
    return static_cast<int>(doc["accessors"].size()) - 1;
  }

  void write_gltf(const std::filesystem::path& path) {
    json d = doc;
    d["buffers"] = {
        {{"byteLength", bin.size()}, {"uri", "data:application/octet-stream;base64," + base64(bin)}}};
    std::ofstream(path) << d.dump();
  }

  // The binary container: a 12-byte header, the JSON chunk, the BIN chunk (each padded to 4 bytes).
  void write_glb(const std::filesystem::path& path) {
    json d = doc;
    d["buffers"] = {{{"byteLength", bin.size()}}};
    std::string text = d.dump();
    while (text.size() % 4) text += ' ';
    std::vector<std::uint8_t> data = bin;
    while (data.size() % 4) data.push_back(0);
    const std::uint32_t total =
        12 + 8 + static_cast<std::uint32_t>(text.size()) + 8 + static_cast<std::uint32_t>(data.size());
    std::ofstream out(path, std::ios::binary);
    const auto u32 = [&](std::uint32_t v) { out.write(reinterpret_cast<const char*>(&v), 4); };
    u32(0x46546C67), u32(2), u32(total);
    u32(static_cast<std::uint32_t>(text.size())), u32(0x4E4F534A);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    u32(static_cast<std::uint32_t>(data.size())), u32(0x004E4942);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  }
};

// Two meshes: the triangle (0,0,0), (1,0,0), (0,1,0) on node "morphing" at (0, 0, 5), with
// target 0 = every vertex + (0, 0, 1) and target 1 = every vertex + (1, 0, 0); and a static
// triangle on node "still" at (0, 0, -5).
// Animation 0, "wave": weights (0, 0) at 0 s, (1, 0) at 1 s, (0, 1) at 2 s.
// Animation 1, "rise": weights (0, 1) throughout, node "morphing" from (0, 0, 5) to (0, 2, 5) in 1 s.
inline Gltf morph_scene(std::vector<float> wave_weights = {0, 0, 1, 0, 0, 1}) {
  using json = nlohmann::json;
  Gltf g;
  const std::vector<float> tri{0, 0, 0, 1, 0, 0, 0, 1, 0};
  const int p = g.accessor(tri, "VEC3", 3, true), i = g.accessor(std::vector<std::uint16_t>{0, 1, 2}, "SCALAR", 1);
  const int up = g.accessor(std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3", 3, true);
  const int right = g.accessor(std::vector<float>{1, 0, 0, 1, 0, 0, 1, 0, 0}, "VEC3", 3, true);
  const int still = g.accessor(tri, "VEC3", 3, true);
  g.doc["meshes"] = json::array(
      {{{"name", "morphing"},
        {"primitives", {{{"attributes", {{"POSITION", p}}}, {"indices", i}, {"targets", {{{"POSITION", up}}, {{"POSITION", right}}}}}}},
        {"weights", {0, 0}}},
       {{"name", "still"}, {"primitives", {{{"attributes", {{"POSITION", still}}}, {"indices", i}}}}}});
  g.doc["nodes"] = {{{"name", "morphing"}, {"mesh", 0}, {"translation", {0, 0, 5}}},
                    {{"name", "still"}, {"mesh", 1}, {"translation", {0, 0, -5}}}};
  g.doc["scenes"] = {{{"nodes", {0, 1}}}};
  g.doc["scene"] = 0;
  const int t3 = g.accessor(std::vector<float>{0, 1, 2}, "SCALAR", 1, true);
  const int w3 = g.accessor(wave_weights, "SCALAR", 1);
  const int t2 = g.accessor(std::vector<float>{0, 1}, "SCALAR", 1, true);
  const int w2 = g.accessor(std::vector<float>{0, 1, 0, 1}, "SCALAR", 1);
  const int lift = g.accessor(std::vector<float>{0, 0, 5, 0, 2, 5}, "VEC3", 3);
  const auto sampler = [](int in, int out) { return json{{"input", in}, {"output", out}, {"interpolation", "LINEAR"}}; };
  const auto channel = [](int s, const char* path) { return json{{"sampler", s}, {"target", {{"node", 0}, {"path", path}}}}; };
  g.doc["animations"] = {
      {{"name", "wave"}, {"samplers", {sampler(t3, w3)}}, {"channels", {channel(0, "weights")}}},
      {{"name", "rise"},
       {"samplers", {sampler(t2, w2), sampler(t2, lift)}},
       {"channels", {channel(0, "weights"), channel(1, "translation")}}}};
  return g;
}

}  // namespace tryon::test
