// Warnings and notes from the runtime, to stderr or to a sink the program sets.
#pragma once

#include <functional>
#include <string_view>

namespace alloy {

enum class LogLevel { note, warning };

using LogSink = std::function<void(LogLevel, std::string_view message)>;

/// Replaces where runtime messages go (stderr by default) and returns the
/// previous sink; an empty sink restores stderr. Thread-safe; the sink may be
/// called from several threads at once.
LogSink set_log_sink(LogSink sink);

void log_warning(std::string_view message);
void log_note(std::string_view message);

}  // namespace alloy
