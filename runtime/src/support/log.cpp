// Routes runtime warnings and notes to stderr or to the program's sink.
#include "alloy/log.hpp"

#include <cstdio>
#include <mutex>
#include <string>

namespace alloy {
namespace {

std::mutex sink_mutex;
LogSink current_sink;

void emit(LogLevel level, std::string_view message) {
  LogSink sink;
  {
    std::lock_guard lock(sink_mutex);
    sink = current_sink;
  }
  // Called unlocked, so a sink may itself log or replace the sink.
  if (sink) {
    sink(level, message);
    return;
  }
  const char* prefix = level == LogLevel::warning ? "alloy: warning: " : "alloy: ";
  std::fprintf(stderr, "%s%.*s\n", prefix, static_cast<int>(message.size()), message.data());
}

}  // namespace

LogSink set_log_sink(LogSink sink) {
  std::lock_guard lock(sink_mutex);
  std::swap(current_sink, sink);
  return sink;
}

void log_warning(std::string_view message) { emit(LogLevel::warning, message); }
void log_note(std::string_view message) { emit(LogLevel::note, message); }

}  // namespace alloy
