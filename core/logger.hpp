#pragma once
#include <cstdio>
#include <memory>
#include <spdlog/sinks/sink.h>
#include <spdlog/spdlog.h>

namespace tryon {

/// The library's logger (stderr, "[tryon] [level] message"). Applications may replace it.
/// Its messages never land on a progress bar's line (core/progress.hpp): a bar drawn in place on
/// stderr is erased first and redraws itself below on its next update.
spdlog::logger& logger();
void set_logger(std::shared_ptr<spdlog::logger> logger);

/// A sink that writes through `inner`, which writes to `stream`, after ending a progress bar's
/// line open on that stream (end_progress_line), both under progress_output_mutex(). The
/// library's logger writes through one on stderr; a replacement logger on stderr should too.
std::shared_ptr<spdlog::sinks::sink> progress_aware_sink(std::shared_ptr<spdlog::sinks::sink> inner,
                                                         std::FILE* stream);

}  // namespace tryon
