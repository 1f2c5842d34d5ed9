#include "core/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace tryon {

ProgressBar::ProgressBar(std::string label, double total, bool enabled)
    : label_(std::move(label)), total_(std::max(total, 1e-12)), enabled_(enabled),
      tty_(::isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

ProgressBar::~ProgressBar() {
  if (enabled_ && tty_ && !finished_) std::fputc('\n', stderr);
}

double ProgressBar::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressBar::update(double done, const std::string& status) {
  if (!enabled_) return;
  const double fraction = std::clamp(done / total_, 0.0, 1.0);
  const double elapsed = elapsed_s();
  const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
  const auto now = std::chrono::steady_clock::now();
  if (tty_) {
    if (now - last_draw_ < std::chrono::milliseconds(100) && fraction < 1) return;
    last_draw_ = now;
    constexpr int width = 24;
    const int filled = static_cast<int>(fraction * width);
    std::string bar(filled, '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\r%s [%s] %5.1f%%  %s  %.1f s, at most %.0f s left   ", label_.c_str(), bar.c_str(),
                 100 * fraction, status.c_str(), elapsed, eta);
    std::fflush(stderr);
  } else {
    const int decile = static_cast<int>(fraction * 10);
    if (decile == last_decile_) return;
    last_decile_ = decile;
    std::fprintf(stderr, "%s %3.0f%%  %s  %.1f s\n", label_.c_str(), 100 * fraction, status.c_str(), elapsed);
  }
}

void ProgressBar::finish(const std::string& status) {
  if (!enabled_ || finished_) return;
  finished_ = true;
  std::fprintf(stderr, "%s%s done: %s (%.1f s)\n", tty_ ? "\r" : "", label_.c_str(), status.c_str(), elapsed_s());
}

}  // namespace tryon
