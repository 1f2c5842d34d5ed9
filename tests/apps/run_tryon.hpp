#pragma once
// Runs the tryon binary (TRYON_BIN) and captures its exit code, stdout and stderr.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace tryon::test {

struct CommandResult {
  int code = -1;
  std::string out, err;
};

/// Runs a shell command: its standard output and its wait status (pclose's).
struct ShellResult {
  bool started = false;
  std::string out;
  int status = -1;
};
inline ShellResult run_shell(const std::string& cmd) {
  ShellResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  r.started = true;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  r.status = ::pclose(p);
  return r;
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
  std::ifstream e(err_file);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
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
