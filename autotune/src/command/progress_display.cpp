// Drawing the progress line.
#include "progress_display.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace alloy::autotune::command {

std::string format_seconds(double seconds) {
  char text[32];
  if (seconds >= 1.0) std::snprintf(text, sizeof text, "%.2f s", seconds);
  else if (seconds >= 1e-3) std::snprintf(text, sizeof text, "%.2f ms", seconds * 1e3);
  else std::snprintf(text, sizeof text, "%.1f us", seconds * 1e6);
  return text;
}

namespace {

std::string format_duration(double seconds) {
  char text[32];
  const long whole = std::lround(seconds);
  if (whole >= 60) std::snprintf(text, sizeof text, "%ldm%02lds", whole / 60, whole % 60);
  else std::snprintf(text, sizeof text, "%lds", whole);
  return text;
}

}  // namespace

ProgressDisplay::ProgressDisplay(std::FILE* out) : out_(out), terminal_(::isatty(::fileno(out)) != 0) {}

void ProgressDisplay::begin(const std::string& title) {
  title_ = title;
  drawn_ = false;
  last_line_ = std::chrono::steady_clock::now();
  std::fprintf(out_, "%s\n", title_.c_str());
}

void ProgressDisplay::update(const TuningProgress& progress) {
  const auto now = std::chrono::steady_clock::now();
  if (!terminal_ && now - last_line_ < std::chrono::seconds(10)) return;
  last_line_ = now;
  constexpr int width = 24;
  const int filled = static_cast<int>(std::lround(progress.budget_fraction * width));
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(width, '.');
  std::string best = "-";
  if (progress.best_seconds) {
    best = format_seconds(*progress.best_seconds);
    if (progress.default_seconds) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, " (%.2fx default)", *progress.default_seconds / *progress.best_seconds);
      best += ratio;
    }
  }
  std::string eta = "?";
  if (progress.budget_fraction > 0.01) {
    eta = format_duration(progress.elapsed_seconds * (1.0 - progress.budget_fraction) / progress.budget_fraction);
  }
  std::fprintf(out_, "%s  [%s] %zu evaluated, best %s, ETA %s%s", terminal_ ? "\r\033[K" : "",
               bar.c_str(), progress.evaluations, best.c_str(), eta.c_str(), terminal_ ? "" : "\n");
  std::fflush(out_);
  drawn_ = true;
}

void ProgressDisplay::end() {
  if (terminal_ && drawn_) std::fprintf(out_, "\n");
}

}  // namespace alloy::autotune::command
