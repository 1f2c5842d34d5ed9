#pragma once
// The tryon command line: each subcommand registers its options and returns an exit code.
// Exit codes (docs/report.md): 0 success, 1 finished but not clean, 2 bad input or usage, 3 internal
// error; `drape` stopped by SIGINT / SIGTERM: 128 + the signal (130 / 143), nothing written.
#include <CLI/CLI.hpp>
#include <functional>

namespace tryon::apps {

constexpr int kExitOk = 0, kExitNotClean = 1, kExitBadInput = 2, kExitInternal = 3;

/// Adds `inspect` to the app; `run` is set to the command's entry point when it is chosen.
void add_inspect_command(CLI::App& app, std::function<int()>& run);
/// Adds `drape`.
void add_drape_command(CLI::App& app, std::function<int()>& run);
/// Adds `animate` (a garment following a moving body).
void add_animate_command(CLI::App& app, std::function<int()>& run);
/// Adds `check`.
void add_check_command(CLI::App& app, std::function<int()>& run);
/// Adds `batch` (many drapes, each in its own child process running `drape`).
void add_batch_command(CLI::App& app, std::function<int()>& run);
/// Adds `view` (the fit viewer in a web browser).
void add_view_command(CLI::App& app, std::function<int()>& run);

}  // namespace tryon::apps
