// What the `autotune` command line asks for (internal).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "alloy/autotune/harness.hpp"
#include "alloy/autotune/tuner.hpp"

namespace alloy::autotune::command {

struct CommandOptions {
  std::vector<std::string> kernels;        ///< empty: all
  std::vector<std::string> sizes;          ///< "[kernel=]NxMxK"; empty: each target's defaults
  std::vector<std::string> devices;        ///< indices or backend names; empty: one per fingerprint
  std::vector<std::filesystem::path> manifests;
  /// Captured launches: when given, only they are tuned, at their own sizes.
  std::vector<std::filesystem::path> captures;
  OutputCheck capture_check;               ///< how captured outputs are compared
  std::filesystem::path profile_dir;       ///< empty: ProfileStore::default_dir()
  std::filesystem::path log_file;          ///< empty: <profile dir>/tuning-log.jsonl
  TuneOptions tune;
  bool json = false;
  bool list = false;
  bool dry_run = false;                    ///< write no profile and no log line
};

/// Parsed command line, or the exit status to return at once (--help,
/// --version, a usage error already printed).
struct ParsedCommand {
  std::optional<CommandOptions> options;
  int exit_status = 0;
};

ParsedCommand parse_command_line(int argc, char** argv);

/// "1024x512x256" → Extent(1024, 512, 256); throws InvalidArgument otherwise.
Extent parse_extent(const std::string& text);

}  // namespace alloy::autotune::command
