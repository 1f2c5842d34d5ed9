#pragma once
// Runs a shell command from a test and captures its standard output and wait status.
#include <cstdio>
#include <string>

namespace tryon::test {

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

}  // namespace tryon::test
