// The `autotune` command's exit statuses (internal).
#pragma once

namespace alloy::autotune::command {

inline constexpr int exit_tuned = 0;
inline constexpr int exit_some_failed = 1;
inline constexpr int exit_usage = 2;
inline constexpr int exit_nothing_to_tune = 3;
inline constexpr int exit_interrupted = 130;

}  // namespace alloy::autotune::command
