#pragma once
// A progress bar on stderr for long work: redrawn in place on a terminal, a line every 10 %
// otherwise (logs), nothing when disabled.
//
// On a terminal the bar's line is left open (no newline) between redraws. Anything else written
// to the same stream must first end that line, or it lands on the bar's line: the library's
// logger (core/logger.hpp) does so through end_progress_line(); the bar then redraws on its next
// update, on a line of its own.
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace tryon {

class ProgressBar {
 public:
  /// `total` units of work (e.g. frames); `label` prefixes the bar. Draws on stderr, in place
  /// when stderr is a terminal.
  ProgressBar(std::string label, double total, bool enabled);
  /// Draws on `stream`, in place when `terminal` (tests use a file).
  ProgressBar(std::string label, double total, bool enabled, std::FILE* stream, bool terminal);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  /// Reports `done` units and a short status text (e.g. "moving 3.1 %").
  void update(double done, const std::string& status = {});
  /// Ends the bar with a final status line.
  void finish(const std::string& status = {});
  double elapsed_s() const;

 private:
  std::string label_;
  double total_;
  bool enabled_, tty_, finished_ = false;
  std::FILE* stream_;
  int last_decile_ = -1;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

/// Serialises writes to a stream a progress bar may be drawn on: hold it while calling
/// end_progress_line() and writing the text that follows.
std::mutex& progress_output_mutex();

/// When a progress bar's line is open on `stream` (drawn in place, no newline yet), erases it and
/// leaves the cursor at the start of that line, so that the next text written starts a line of
/// its own; the bar redraws itself below on its next update. Does nothing otherwise. Call it with
/// progress_output_mutex() held.
void end_progress_line(std::FILE* stream);

}  // namespace tryon
