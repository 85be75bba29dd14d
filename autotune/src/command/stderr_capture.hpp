// Keeps the terminal clean while tuning (internal). OpenCL drivers compile
// kernels with compilers that print straight to the process's stderr (PoCL's
// clang prints "2 warnings generated." for every configuration), over the
// progress line. While a StderrCapture lives, file descriptor 2 is a pipe:
// what arrives there is kept in a file, and alloy's own messages and the
// progress line go to the real stderr.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "alloy/log.hpp"

namespace alloy::autotune::command {

class StderrCapture {
 public:
  /// Starts capturing into `file` (appended to, created only if something
  /// arrives); an empty path keeps nothing but the count of lines.
  explicit StderrCapture(std::filesystem::path file);
  /// Restores stderr and the log sink, after reading everything written.
  ~StderrCapture();
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;

  /// The real stderr, for the progress line.
  std::FILE* terminal() const { return terminal_; }
  /// Names the tuning task in the file before any output that follows.
  void begin_section(const std::string& title);
  /// Stops capturing; later calls do nothing. Returns the lines captured.
  std::size_t finish();

  const std::filesystem::path& file() const { return file_; }
  /// False once the file could not be written.
  bool kept() const { return kept_; }

 private:
  void read_pipe();
  void keep(const std::string& text);

  std::filesystem::path file_;
  int saved_stderr_ = -1;
  int pipe_read_ = -1;
  std::FILE* terminal_ = stderr;
  LogSink previous_sink_;
  std::thread reader_;
  std::mutex mutex_;
  std::ofstream out_;
  std::string section_;  ///< written before the next captured text
  std::string partial_line_;
  std::size_t lines_ = 0;
  bool finished_ = false;
  bool kept_ = true;
};

}  // namespace alloy::autotune::command
