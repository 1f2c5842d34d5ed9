#pragma once
// A progress bar on stderr for long work: redrawn in place on a terminal, a line every 10 %
// otherwise (logs), nothing when disabled.
#include <chrono>
#include <string>

namespace tryon {

class ProgressBar {
 public:
  /// `total` units of work (e.g. frames); `label` prefixes the bar.
  ProgressBar(std::string label, double total, bool enabled);
  ~ProgressBar();
  /// Reports `done` units and a short status text (e.g. "moving 3.1 %").
  void update(double done, const std::string& status = {});
  /// Ends the bar with a final status line.
  void finish(const std::string& status = {});
  double elapsed_s() const;

 private:
  std::string label_;
  double total_;
  bool enabled_, tty_, finished_ = false;
  int last_decile_ = -1;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace tryon
