#pragma once
#include <memory>
#include <spdlog/spdlog.h>

namespace tryon {

/// The library's logger (stderr, "[tryon] [level] message"). Applications may replace it.
spdlog::logger& logger();
void set_logger(std::shared_ptr<spdlog::logger> logger);

}  // namespace tryon
