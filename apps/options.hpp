#pragma once
// Options shared by several subcommands.
#include <CLI/CLI.hpp>
#include <string>

#include "avatars/avatar.hpp"

namespace tryon::apps {

inline void add_up_option(CLI::App& cmd, std::string& up) {
  cmd.add_option("--up", up, "up axis of the body file: y or z")
      ->check(CLI::IsMember({"y", "z", "Y", "Z"}));
}

inline avatars::UpAxis parse_up_axis(const std::string& up) {
  return (up == "z" || up == "Z") ? avatars::UpAxis::z : avatars::UpAxis::y;
}

}  // namespace tryon::apps
