#include "stderr_capture.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

namespace alloy::autotune::command {

StderrCapture::StderrCapture(std::filesystem::path file) : file_(std::move(file)) {
  std::fflush(stderr);
  int ends[2];
  saved_stderr_ = ::dup(STDERR_FILENO);
  if (saved_stderr_ < 0 || ::pipe(ends) != 0) {
    // Without a pipe the compiler's lines reach the terminal as before.
    if (saved_stderr_ >= 0) ::close(saved_stderr_);
    saved_stderr_ = -1;
    finished_ = true;
    return;
  }
  terminal_ = ::fdopen(::dup(saved_stderr_), "w");
  if (terminal_ == nullptr) terminal_ = stderr;
  ::dup2(ends[1], STDERR_FILENO);
  ::close(ends[1]);
  pipe_read_ = ends[0];
  // alloy's warnings are for the person at the terminal, not the file.
  std::FILE* terminal = terminal_;
  previous_sink_ = set_log_sink([terminal](LogLevel level, std::string_view message) {
    std::fprintf(terminal, "%s%.*s\n", level == LogLevel::warning ? "alloy: warning: " : "alloy: ",
                 static_cast<int>(message.size()), message.data());
    std::fflush(terminal);
  });
  reader_ = std::thread([this] { read_pipe(); });
}

StderrCapture::~StderrCapture() {
  finish();
  if (terminal_ != stderr) std::fclose(terminal_);
}

std::size_t StderrCapture::finish() {
  if (finished_) return lines_;
  finished_ = true;
  std::fflush(stderr);
  std::cerr.flush();
  // Pointing fd 2 back at the terminal closes the pipe's last writer, so
  // the reader sees the end of what was written.
  ::dup2(saved_stderr_, STDERR_FILENO);
  ::close(saved_stderr_);
  reader_.join();
  ::close(pipe_read_);
  set_log_sink(std::move(previous_sink_));
  std::lock_guard lock(mutex_);
  if (!partial_line_.empty()) keep("\n");
  return lines_;
}

void StderrCapture::begin_section(const std::string& title) {
  std::lock_guard lock(mutex_);
  section_ = "== " + title + '\n';
}

void StderrCapture::read_pipe() {
  char buffer[4096];
  for (;;) {
    const ssize_t count = ::read(pipe_read_, buffer, sizeof buffer);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return;
    std::lock_guard lock(mutex_);
    keep(std::string(buffer, static_cast<std::size_t>(count)));
  }
}

// Called with mutex_ held.
void StderrCapture::keep(const std::string& text) {
  for (char c : text) {
    if (c != '\n') {
      partial_line_ += c;
      continue;
    }
    ++lines_;
    if (!file_.empty() && kept_) {
      if (!out_.is_open()) out_.open(file_, std::ios::app);
      out_ << section_ << partial_line_ << '\n' << std::flush;
      section_.clear();
      kept_ = static_cast<bool>(out_);
    }
    partial_line_.clear();
  }
}

}  // namespace alloy::autotune::command
