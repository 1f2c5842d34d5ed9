#pragma once
// Runs the tryon binary (TRYON_BIN) and captures its exit code, stdout and stderr.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "shell.hpp"

namespace tryon::test {

struct CommandResult {
  int code = -1;
  std::string out, err;
};

/// The whole of a file, byte for byte (empty when it cannot be read).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

inline CommandResult run_tryon(const std::string& args) {
  const std::filesystem::path err_file =
      std::filesystem::temp_directory_path() / ("tryon_stderr_" + std::to_string(::getpid()));
  const std::string cmd = std::string(TRYON_BIN) + " " + args + " 2>" + err_file.string();
  CommandResult r;
  const ShellResult sh = run_shell(cmd);
  if (!sh.started) return r;
  r.out = sh.out;
  r.code = WIFEXITED(sh.status) ? WEXITSTATUS(sh.status) : -1;
  r.err = read_file(err_file);
  std::filesystem::remove(err_file);
  return r;
}

inline std::string quoted(const std::filesystem::path& p) {
  std::string s(1, '\'');  // built piecewise: GCC 12 warns falsely (-Wrestrict) on "'" + s + "'"
  s += p.string();
  s += '\'';
  return s;
}

}  // namespace tryon::test
