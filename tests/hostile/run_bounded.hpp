#pragma once
// Runs the tryon binary (TRYON_BIN) on hostile input with a wall-clock limit (the run is killed
// with SIGKILL when it is exceeded) and, outside sanitizer builds, an address-space limit, and
// captures the exit code, stdout and stderr.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "apps/run_tryon.hpp"

namespace tryon::test {

#if defined(__SANITIZE_ADDRESS__)
#define TRYON_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRYON_TEST_UNDER_ASAN 1
#endif
#endif

struct BoundedResult {
  int code = -1;         ///< exit code; -1 when the run did not exit normally
  bool timed_out = false;
  std::string out, err;
};

/// `tryon ARGS` under `timeout -s KILL seconds` and (without ASan, which reserves terabytes of
/// address space) `ulimit -v` of 4 GiB: a hang or a runaway allocation is a failure, not a stall.
inline BoundedResult run_bounded(const std::string& args, int seconds = 60) {
  const std::filesystem::path err_file =
      std::filesystem::temp_directory_path() / ("tryon_hostile_stderr_" + std::to_string(::getpid()));
  std::string cmd;
#ifndef TRYON_TEST_UNDER_ASAN
  cmd += "ulimit -v 4194304; ";
#endif
  cmd += "exec timeout -s KILL " + std::to_string(seconds) + " " + std::string(TRYON_BIN) + " " + args + " 2>" +
         err_file.string();
  BoundedResult r;
  const ShellResult sh = run_shell(cmd);
  if (!sh.started) return r;
  r.out = sh.out;
  const int status = sh.status;
  if (WIFEXITED(status)) {
    r.code = WEXITSTATUS(status);
    r.timed_out = r.code == 137;  // timeout's report of a child killed by SIGKILL
    if (r.timed_out) r.code = -1;
  }
  std::ifstream e(err_file);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  std::filesystem::remove(err_file);
  return r;
}

}  // namespace tryon::test
