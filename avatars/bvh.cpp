// BVH reading and forward kinematics after Meredith & Maddock 2001, "Motion capture file formats
// explained" (Department of Computer Science, University of Sheffield), section 3.
#include "avatars/bvh.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numbers>

#include "core/error.hpp"
#include "core/files.hpp"

namespace tryon::avatars {

int BvhClip::joint(const std::string& name) const {
  for (std::size_t j = 0; j < joints.size(); ++j)
    if (joints[j].name == name) return static_cast<int>(j);
  return -1;
}

namespace {

struct Token {
  std::string_view text;
  int line = 0;
};

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string in_quotes(std::string_view word) {
  std::string q = "'";
  q.append(word);
  q += '\'';
  return q;
}

[[noreturn]] void fail(const std::string& source, int line, const std::string& what) {
  throw InputError("BVH '" + source + "' line " + std::to_string(line) + ": " + what);
}

double parse_number(std::string_view word, const std::string& source, int line) {
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size())
    fail(source, line, in_quotes(word) + " is not a number");
  if (!std::isfinite(value)) fail(source, line, in_quotes(word) + " is not a finite number");
  return value;
}

std::optional<BvhChannel> channel_named(std::string_view name) {
  static constexpr std::pair<std::string_view, BvhChannel> names[] = {
      {"Xposition", BvhChannel::x_position}, {"Yposition", BvhChannel::y_position},
      {"Zposition", BvhChannel::z_position}, {"Xrotation", BvhChannel::x_rotation},
      {"Yrotation", BvhChannel::y_rotation}, {"Zrotation", BvhChannel::z_rotation}};
  for (const auto& [n, c] : names)
    if (n == name) return c;
  return std::nullopt;
}

// Recursive descent over the HIERARCHY section's words.
class HierarchyParser {
 public:
  HierarchyParser(std::vector<Token> tokens, BvhClip& clip) : tokens_(std::move(tokens)), clip_(clip) {}

  void parse() {
    expect("HIERARCHY");
    expect("ROOT");
    joint(-1);
    if (i_ < tokens_.size())
      fail(clip_.source, tokens_[i_].line,
           in_quotes(tokens_[i_].text) + " after the root joint (one ROOT a file, then MOTION)");
  }

 private:
  const Token& next(const std::string& expected) {
    if (i_ >= tokens_.size())
      fail(clip_.source, tokens_.empty() ? 1 : tokens_.back().line,
           "the file ends where " + expected + " was expected");
    return tokens_[i_++];
  }
  void expect(std::string_view word) {
    const Token& t = next(in_quotes(word));
    if (t.text != word)
      fail(clip_.source, t.line, in_quotes(word) + " expected, found '" + std::string(t.text) + "'");
  }
  Vec3 offset() {
    Vec3 v;
    for (int k = 0; k < 3; ++k) {
      const Token& t = next("an OFFSET value");
      v[k] = parse_number(t.text, clip_.source, t.line);
    }
    return v;
  }

  void joint(int parent) {
    const Token& name = next("a joint name");
    if (static_cast<int>(clip_.joints.size()) >= max_bvh_joints)
      fail(clip_.source, name.line, "more than " + std::to_string(max_bvh_joints) + " joints");
    if (clip_.joint(std::string(name.text)) >= 0)
      fail(clip_.source, name.line, "a second joint named '" + std::string(name.text) + "'");
    const int self = static_cast<int>(clip_.joints.size());
    BvhJoint j;
    j.name = std::string(name.text);
    j.parent = parent;
    clip_.joints.push_back(std::move(j));
    if (parent >= 0) clip_.joints[parent].children.push_back(self);
    expect("{");
    for (;;) {
      const Token& t = next("'}'");
      if (t.text == "}") return;
      if (t.text == "OFFSET")
        clip_.joints[self].offset = offset();
      else if (t.text == "CHANNELS")
        channels(self, t.line);
      else if (t.text == "JOINT")
        joint(self);
      else if (t.text == "End")
        end_site(self);
      else
        fail(clip_.source, t.line, "unknown keyword '" + std::string(t.text) + "'");
    }
  }

  void channels(int self, int line) {
    const Token& count = next("a channel count");
    const double n = parse_number(count.text, clip_.source, count.line);
    std::vector<BvhChannel> listed;
    while (i_ < tokens_.size() && tokens_[i_].line == line) {
      const auto c = channel_named(tokens_[i_].text);
      if (!c) fail(clip_.source, line, "unknown channel '" + std::string(tokens_[i_].text) + "'");
      if (std::find(listed.begin(), listed.end(), *c) != listed.end())
        fail(clip_.source, line, "channel '" + std::string(tokens_[i_].text) + "' listed twice");
      listed.push_back(*c);
      ++i_;
    }
    if (n != static_cast<double>(listed.size()))
      fail(clip_.source, line,
           "CHANNELS " + std::string(count.text) + " lists " + std::to_string(listed.size()) + " channels");
    BvhJoint& j = clip_.joints[self];
    if (!j.channels.empty()) fail(clip_.source, line, "a second CHANNELS for joint '" + j.name + "'");
    j.channels = std::move(listed);
    j.first_channel = clip_.channel_count;
    clip_.channel_count += static_cast<int>(j.channels.size());
  }

  void end_site(int self) {
    expect("Site");
    expect("{");
    expect("OFFSET");
    clip_.joints[self].end_site = offset();
    expect("}");
  }

  std::vector<Token> tokens_;
  std::size_t i_ = 0;
  BvhClip& clip_;
};

// The words of lines [0, end) as tokens, and the index of the MOTION line (or lines.size()).
std::size_t hierarchy_tokens(const std::vector<std::string_view>& lines, std::vector<Token>& tokens,
                             const std::string& source) {
  for (std::size_t l = 0; l < lines.size(); ++l) {
    const auto words = split_words(lines[l]);
    if (!words.empty() && words[0] == "MOTION") {
      if (words.size() > 1) fail(source, static_cast<int>(l + 1), "MOTION stands alone on its line");
      return l;
    }
    for (auto w : words) tokens.push_back({w, static_cast<int>(l + 1)});
  }
  return lines.size();
}

// The value after `label` words on the next non-blank line from `l` (advanced past it).
std::string_view header_value(const std::vector<std::string_view>& lines, std::size_t& l,
                              const std::vector<std::string_view>& label, const std::string& source) {
  while (l < lines.size() && split_words(lines[l]).empty()) ++l;
  if (l >= lines.size())
    fail(source, static_cast<int>(lines.size()), "the file ends before " + in_quotes(label.back()));
  const auto words = split_words(lines[l]);
  const int line = static_cast<int>(++l);
  if (words.size() != label.size() + 1 || !std::equal(label.begin(), label.end(), words.begin()))
    fail(source, line, in_quotes(std::string(label.back()) + " value") + " expected");
  return words.back();
}

void parse_motion(const std::vector<std::string_view>& lines, std::size_t l, BvhClip& clip) {
  const std::string& src = clip.source;
  if (l >= lines.size()) fail(src, static_cast<int>(lines.size()), "no MOTION section (no frames)");
  ++l;
  const std::string_view frames_word = header_value(lines, l, {"Frames:"}, src);
  const double frames = parse_number(frames_word, src, static_cast<int>(l));
  if (frames < 1) fail(src, static_cast<int>(l), "no frames");
  if (frames != std::floor(frames) || frames > 1e7)
    fail(src, static_cast<int>(l), "Frames: must be a whole number up to 10^7");
  clip.frame_time = parse_number(header_value(lines, l, {"Frame", "Time:"}, src), src, static_cast<int>(l));
  if (!(clip.frame_time > 0)) fail(src, static_cast<int>(l), "Frame Time must be positive");
  if (clip.channel_count == 0) fail(src, static_cast<int>(l), "no joint has channels");
  std::vector<double> values;
  std::size_t rows = 0;
  for (; l < lines.size(); ++l) {
    const auto words = split_words(lines[l]);
    if (words.empty()) continue;
    const int line = static_cast<int>(l + 1);
    if (rows == static_cast<std::size_t>(frames))
      fail(src, line, "more rows than 'Frames: " + std::string(frames_word) + "'");
    if (words.size() != static_cast<std::size_t>(clip.channel_count))
      fail(src, line,
           std::to_string(words.size()) + " values in a row, the joints have " +
               std::to_string(clip.channel_count) + " channels");
    for (auto w : words) values.push_back(parse_number(w, src, line));
    ++rows;
  }
  if (rows != static_cast<std::size_t>(frames))
    fail(src, static_cast<int>(lines.size()),
         "'Frames: " + std::string(frames_word) + "' but " + std::to_string(rows) + " rows");
  clip.values =
      Eigen::Map<decltype(clip.values)>(values.data(), static_cast<Eigen::Index>(rows), clip.channel_count);
}

Eigen::Quaterniond channel_rotation(BvhChannel c, double degrees) {
  const double a = degrees * std::numbers::pi / 180;
  switch (c) {
    case BvhChannel::x_rotation:
      return Eigen::Quaterniond(Eigen::AngleAxisd(a, Vec3::UnitX()));
    case BvhChannel::y_rotation:
      return Eigen::Quaterniond(Eigen::AngleAxisd(a, Vec3::UnitY()));
    default:
      return Eigen::Quaterniond(Eigen::AngleAxisd(a, Vec3::UnitZ()));
  }
}

}  // namespace

BvhClip parse_bvh(std::string_view text, const std::string& source) {
  BvhClip clip;
  clip.source = source;
  const auto lines = split_lines(text);
  std::vector<Token> tokens;
  const std::size_t motion_line = hierarchy_tokens(lines, tokens, source);
  HierarchyParser(std::move(tokens), clip).parse();
  parse_motion(lines, motion_line, clip);
  return clip;
}

BvhClip read_bvh(const std::filesystem::path& path) {
  return parse_bvh(read_text_file(path, "BVH clip", std::size_t{1} << 30), path.string());
}

BvhLocalPose bvh_rest_pose(const BvhClip& clip) {
  BvhLocalPose pose;
  for (const BvhJoint& j : clip.joints) {
    pose.rotation.push_back(Eigen::Quaterniond::Identity());
    pose.translation.push_back(j.offset);
  }
  return pose;
}

BvhLocalPose bvh_frame_pose(const BvhClip& clip, int frame) {
  BvhLocalPose pose = bvh_rest_pose(clip);
  for (std::size_t j = 0; j < clip.joints.size(); ++j) {
    const BvhJoint& joint = clip.joints[j];
    for (std::size_t k = 0; k < joint.channels.size(); ++k) {
      const double v = clip.values(frame, joint.first_channel + static_cast<int>(k));
      const BvhChannel c = joint.channels[k];
      if (c == BvhChannel::x_position)
        pose.translation[j].x() += v;
      else if (c == BvhChannel::y_position)
        pose.translation[j].y() += v;
      else if (c == BvhChannel::z_position)
        pose.translation[j].z() += v;
      else
        pose.rotation[j] = pose.rotation[j] * channel_rotation(c, v);
    }
    pose.rotation[j].normalize();
  }
  return pose;
}

BvhLocalPose bvh_pose_at(const BvhClip& clip, double t) {
  const double f = std::clamp(t / clip.frame_time, 0.0, static_cast<double>(clip.frames() - 1));
  const int k = static_cast<int>(std::floor(f));
  BvhLocalPose a = bvh_frame_pose(clip, k);
  const double w = f - k;
  if (k + 1 >= clip.frames() || w == 0) return a;
  const BvhLocalPose b = bvh_frame_pose(clip, k + 1);
  for (std::size_t j = 0; j < a.rotation.size(); ++j) {
    a.rotation[j] = a.rotation[j].slerp(w, b.rotation[j]);
    a.translation[j] = (1 - w) * a.translation[j] + w * b.translation[j];
  }
  return a;
}

BvhGlobalPose forward_kinematics(const BvhClip& clip, const BvhLocalPose& pose) {
  BvhGlobalPose g;
  g.rotation.resize(clip.joints.size());
  g.position.resize(clip.joints.size());
  for (std::size_t j = 0; j < clip.joints.size(); ++j) {
    const int p = clip.joints[j].parent;
    const Mat3 local = pose.rotation[j].toRotationMatrix();
    if (p < 0) {
      g.rotation[j] = local;
      g.position[j] = pose.translation[j];
    } else {
      g.rotation[j] = g.rotation[p] * local;
      g.position[j] = g.position[p] + g.rotation[p] * pose.translation[j];
    }
  }
  return g;
}

}  // namespace tryon::avatars
