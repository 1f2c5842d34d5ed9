#include "core/logger.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace tryon {
namespace {
std::shared_ptr<spdlog::logger>& instance() {
  static std::shared_ptr<spdlog::logger> log = [] {
    auto l = spdlog::stderr_color_mt("tryon");
    l->set_pattern("[%n] [%l] %v");
    l->set_level(spdlog::level::info);
    return l;
  }();
  return log;
}
}  // namespace

spdlog::logger& logger() { return *instance(); }

void set_logger(std::shared_ptr<spdlog::logger> l) {
  if (l) instance() = std::move(l);
}

}  // namespace tryon
