#include "core/logger.hpp"

#include <mutex>
#include <spdlog/sinks/stdout_color_sinks.h>

#include "core/progress.hpp"

namespace tryon {
namespace {

class ProgressAwareSink final : public spdlog::sinks::sink {
 public:
  ProgressAwareSink(std::shared_ptr<spdlog::sinks::sink> inner, std::FILE* stream)
      : inner_(std::move(inner)), stream_(stream) {}
  void log(const spdlog::details::log_msg& msg) override {
    const std::lock_guard<std::mutex> lock(progress_output_mutex());
    end_progress_line(stream_);
    inner_->log(msg);
    inner_->flush();  // before the bar draws again
  }
  void flush() override { inner_->flush(); }
  void set_pattern(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    inner_->set_formatter(std::move(formatter));
  }

 private:
  std::shared_ptr<spdlog::sinks::sink> inner_;
  std::FILE* stream_;
};

std::shared_ptr<spdlog::logger>& instance() {
  static std::shared_ptr<spdlog::logger> log = [] {
    auto sink = progress_aware_sink(std::make_shared<spdlog::sinks::stderr_color_sink_mt>(), stderr);
    auto l = std::make_shared<spdlog::logger>("tryon", std::move(sink));
    l->set_pattern("[%n] [%l] %v");
    l->set_level(spdlog::level::info);
    spdlog::register_logger(l);
    return l;
  }();
  return log;
}
}  // namespace

std::shared_ptr<spdlog::sinks::sink> progress_aware_sink(std::shared_ptr<spdlog::sinks::sink> inner,
                                                         std::FILE* stream) {
  return std::make_shared<ProgressAwareSink>(std::move(inner), stream);
}

spdlog::logger& logger() { return *instance(); }

void set_logger(std::shared_ptr<spdlog::logger> l) {
  if (l) instance() = std::move(l);
}

}  // namespace tryon
