// Log lines and the progress bar share stderr: a log line written while the bar is drawn in place
// must start a line of its own, never continue the bar's. The bar and the logger write to a file
// here, the bar as on a terminal, and a small terminal model replays what a screen would show.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <spdlog/sinks/base_sink.h>
#include <string>
#include <thread>
#include <vector>

#include "core/logger.hpp"
#include "core/progress.hpp"

namespace {

/// Writes formatted messages to a FILE* (the file the bar draws on).
class FileSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit FileSink(std::FILE* f) : file_(f) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t buf;
    formatter_->format(msg, buf);
    std::fwrite(buf.data(), 1, buf.size(), file_);
  }
  void flush_() override { std::fflush(file_); }

 private:
  std::FILE* file_;
};

/// A logger like the library's, writing to `file` through progress_aware_sink.
std::shared_ptr<spdlog::logger> file_logger(std::FILE* file) {
  auto l = std::make_shared<spdlog::logger>("test", tryon::progress_aware_sink(std::make_shared<FileSink>(file), file));
  l->set_pattern("[%n] [%l] %v");
  return l;
}

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
  return s;
}

/// The lines a terminal shows for `text`: '\r' returns to column 0, ESC [K erases to the end of
/// the line, '\n' ends it. The last, unfinished line is included when not empty.
std::vector<std::string> screen_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t col = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\r') {
      col = 0;
    } else if (c == '\n') {
      lines.push_back(line);
      line.clear();
      col = 0;
    } else if (c == '\033' && text.compare(i, 3, "\033[K") == 0) {
      line.resize(col);
      i += 2;
    } else {
      if (col < line.size()) line[col] = c;
      else line += c;
      ++col;
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

/// Every shown line is either the bar's (starting with its label) or a whole log line.
void expect_no_mixed_lines(const std::vector<std::string>& lines, const std::string& label) {
  for (const std::string& l : lines) {
    const bool bar = l.rfind(label, 0) == 0;
    const bool log = l.rfind("[test] ", 0) == 0;
    EXPECT_TRUE(bar != log) << "line mixes the bar and a log line, or is neither: '" << l << "'";
    if (bar) {
      EXPECT_EQ(l.find("[test]"), std::string::npos) << "a log line landed on the bar's line: '" << l << "'";
    }
  }
}

}  // namespace

TEST(ProgressLog, ALogLineEndsTheBarsLineAndTheBarRedrawsBelow) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    const auto log = file_logger(f);
    tryon::ProgressBar bar("drape", 10, true, f, /*terminal=*/true);
    bar.update(1, "sewing");
    log->info("first message");
    bar.update(2, "sewing");  // right after the log line: redrawn at once, below it
    log->warn("second message");
    bar.update(3, "draping");
    bar.finish("ok");
  }
  const std::string text = contents(f);
  std::fclose(f);
  const std::vector<std::string> lines = screen_lines(text);
  ASSERT_EQ(lines.size(), 3u) << text;
  EXPECT_EQ(lines[0], "[test] [info] first message");
  EXPECT_EQ(lines[1], "[test] [warning] second message");
  EXPECT_EQ(lines[2].rfind("drape done: ok (", 0), 0u) << lines[2];
  // The bar was on screen between the messages: each message erased it first.
  EXPECT_NE(text.find("sewing"), std::string::npos);
  EXPECT_NE(text.find("\r\033[K[test] [info] first message"), std::string::npos) << text;
  EXPECT_NE(text.find("\r\033[K[test] [warning] second message"), std::string::npos) << text;
}

TEST(ProgressLog, WithoutABarLogLinesAreWrittenAsTheyAre) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    const auto log = file_logger(f);
    log->info("alone");
    tryon::ProgressBar bar("drape", 10, true, f, true);
    bar.update(10, "done");
    bar.finish("ok");
    log->info("after the bar");  // the bar's line is closed: nothing to erase
  }
  const std::string text = contents(f);
  std::fclose(f);
  EXPECT_EQ(text.rfind("[test] [info] alone\n", 0), 0u) << text;
  EXPECT_NE(text.find("s)\n[test] [info] after the bar\n"), std::string::npos) << text;
}

TEST(ProgressLog, NotATerminalBarWritesWholeLines) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    const auto log = file_logger(f);
    tryon::ProgressBar bar("batch", 10, true, f, /*terminal=*/false);
    for (int i = 1; i <= 10; ++i) {
      bar.update(i, "working");
      log->info("job {}", i);
    }
    bar.finish("ok");
  }
  const std::string text = contents(f);
  std::fclose(f);
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_EQ(text.find('\033'), std::string::npos) << text;
  expect_no_mixed_lines(screen_lines(text), "batch");
}

TEST(ProgressLog, LogLinesFromOtherThreadsNeverLandOnTheBar) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    const auto log = file_logger(f);
    tryon::ProgressBar bar("drape", 2000, true, f, true);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
      threads.emplace_back([&log, t] {
        for (int i = 0; i < 200; ++i) log->info("thread {} message {}", t, i);
      });
    for (int i = 0; i <= 2000; ++i) bar.update(i, "frame " + std::to_string(i));
    for (auto& t : threads) t.join();
    bar.finish("ok");
  }
  const std::string text = contents(f);
  std::fclose(f);
  const std::vector<std::string> lines = screen_lines(text);
  expect_no_mixed_lines(lines, "drape");
  int logged = 0;
  for (const auto& l : lines) logged += l.rfind("[test] [info] thread ", 0) == 0;
  EXPECT_EQ(logged, 600);
  EXPECT_EQ(lines.back().rfind("drape done: ok", 0), 0u) << lines.back();
}
