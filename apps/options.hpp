#pragma once
// Options shared by several subcommands.
#include <CLI/CLI.hpp>
#include <string>

#include "avatars/avatar.hpp"

namespace tryon::apps {

/// --up (the body file's up axis, found from its shape by default) and --facing (whether the
/// body is turned to face +Z when its feet tell which way it faces).
inline void add_frame_options(CLI::App& cmd, std::string& up, std::string& facing) {
  cmd.add_option("--up", up, "up axis of the body file: auto (from its shape), y or z")
      ->check(CLI::IsMember({"auto", "y", "z", "Y", "Z"}));
  cmd.add_option("--facing", facing, "auto: turn the body to face +z when its feet tell which way it faces; keep: as in the file")
      ->check(CLI::IsMember({"auto", "keep"}));
}

inline avatars::UpAxis parse_up_axis(const std::string& up) {
  if (up == "z" || up == "Z") return avatars::UpAxis::z;
  if (up == "y" || up == "Y") return avatars::UpAxis::y;
  return avatars::UpAxis::automatic;
}

}  // namespace tryon::apps
