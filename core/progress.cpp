#include "core/progress.hpp"

#include <algorithm>
#include <unistd.h>

namespace tryon {

namespace {
// The progress line left open on a terminal: its stream and the bar that drew it. Guarded by
// progress_output_mutex().
struct OpenLine {
  std::FILE* stream = nullptr;
  const ProgressBar* owner = nullptr;
};
OpenLine g_open_line;
}  // namespace

std::mutex& progress_output_mutex() {
  static std::mutex m;
  return m;
}

void end_progress_line(std::FILE* stream) {
  if (!stream || g_open_line.stream != stream) return;
  std::fputs("\r\033[K", stream);  // back to the line's start, erase it
  g_open_line = {};
}

ProgressBar::ProgressBar(std::string label, double total, bool enabled)
    : ProgressBar(std::move(label), total, enabled, stderr, ::isatty(STDERR_FILENO) != 0) {}

ProgressBar::ProgressBar(std::string label, double total, bool enabled, std::FILE* stream, bool terminal)
    : label_(std::move(label)), total_(std::max(total, 1e-12)), enabled_(enabled), tty_(terminal), stream_(stream),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

ProgressBar::~ProgressBar() {
  if (!enabled_ || !tty_ || finished_) return;
  const std::lock_guard<std::mutex> lock(progress_output_mutex());
  if (g_open_line.owner != this) return;
  std::fputc('\n', stream_);  // keep the last state on screen
  g_open_line = {};
}

double ProgressBar::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressBar::update(double done, const std::string& status) {
  if (!enabled_ || finished_) return;
  const double fraction = std::clamp(done / total_, 0.0, 1.0);
  const double elapsed = elapsed_s();
  const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
  const auto now = std::chrono::steady_clock::now();
  const std::lock_guard<std::mutex> lock(progress_output_mutex());
  if (tty_) {
    // Redrawn at most every 0.1 s, but at once when its line is not on screen (first update, or
    // erased by a log line).
    const bool shown = g_open_line.owner == this;
    if (shown && now - last_draw_ < std::chrono::milliseconds(100) && fraction < 1) return;
    if (!shown) end_progress_line(stream_);  // another bar's line
    last_draw_ = now;
    constexpr int width = 24;
    const int filled = static_cast<int>(fraction * width);
    std::string bar(filled, '#');
    bar.resize(width, '.');
    std::fprintf(stream_, "\r\033[K%s [%s] %5.1f%%  %s  %.1f s, at most %.0f s left", label_.c_str(), bar.c_str(),
                 100 * fraction, status.c_str(), elapsed, eta);
    std::fflush(stream_);
    g_open_line = {stream_, this};
  } else {
    const int decile = static_cast<int>(fraction * 10);
    if (decile == last_decile_) return;
    last_decile_ = decile;
    std::fprintf(stream_, "%s %3.0f%%  %s  %.1f s\n", label_.c_str(), 100 * fraction, status.c_str(), elapsed);
  }
}

void ProgressBar::finish(const std::string& status) {
  if (!enabled_ || finished_) return;
  finished_ = true;
  const std::lock_guard<std::mutex> lock(progress_output_mutex());
  if (tty_) end_progress_line(stream_);
  std::fprintf(stream_, "%s done: %s (%.1f s)\n", label_.c_str(), status.c_str(), elapsed_s());
  std::fflush(stream_);
}

}  // namespace tryon
