// Captured launches: a tunable kernel's launch in a running program, with
// its arguments, the input buffers it read and the outputs it wrote, in a
// file `autotune --capture` tunes the kernel on (docs/capture.md).
//
// A program run with ALLOY_CAPTURE=<pattern> (or ExecutorOptions::capture)
// writes the first launch of each matching tunable kernel and problem size
// each of its executors runs; ALLOY_CAPTURE_DIR says where (default: the current
// directory) and ALLOY_CAPTURE_LIMIT how large one file may grow ("256M"
// by default; a launch whose capture would be larger is skipped, with a
// warning naming the limit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "alloy/buffer.hpp"
#include "alloy/kernel_args.hpp"
#include "alloy/launch_range.hpp"
#include "alloy/tunable_kernel.hpp"

namespace alloy {

/// The capture file format this build writes and reads.
inline constexpr std::uint32_t capture_format_version = 1;
/// The default ALLOY_CAPTURE_LIMIT: 256 MiB.
inline constexpr std::size_t default_capture_limit = std::size_t(256) << 20;

/// One buffer argument of a captured launch, in the host's layout (a buffer
/// the kernel read in another layout is converted back before it is kept).
struct CapturedBuffer {
  std::string parameter;           ///< the kernel parameter it was passed as
  std::optional<HostLayout> host;  ///< as Buffer::describe said, if it did
  bool read = true;                ///< the task's access read it (not a write-only access)
  bool written = false;            ///< the task's access wrote it
  std::vector<std::byte> input;    ///< the bytes before the launch
  std::vector<std::byte> output;   ///< after it, when written; else empty
};

/// A kernel argument: a buffer (an index into Capture::buffers) or a scalar.
using CapturedArgument = std::variant<std::size_t, KernelArg>;

struct Capture {
  TunableKernel kernel;  ///< the description the program ran it with
  Extent problem;
  Configuration configuration;  ///< the one that ran, in the kernel's parameter order
  std::string device;           ///< the device it ran on, as DeviceInfo::name
  LaunchRange range{Extent(1)};  ///< the launch geometry that ran
  std::vector<CapturedArgument> arguments;  ///< in the kernel's parameter order
  std::vector<CapturedBuffer> buffers;

  /// The captured source's hash (TunableKernel::source_hash) and its
  /// defines under the configuration that ran, for messages and checks.
  std::string source_hash() const { return kernel.source_hash(); }
  std::string defines() const;
  /// Bytes write_capture would write.
  std::size_t file_bytes() const;
};

/// Writes `capture` to `path` (replaced whole: written to a temporary file
/// and renamed). Throws Error naming the file when it cannot be written.
void write_capture(const std::filesystem::path& path, const Capture& capture);

/// Reads a capture file. Throws InvalidArgument naming the file and what is
/// wrong for anything but a whole, intact file of this format version: a
/// missing or foreign header, another version, a checksum that does not
/// match (a corrupt or truncated file), sizes that reach outside the file
/// or past `size_limit`, or a description that does not hold together
/// (arguments that do not match the kernel's parameters, say).
Capture read_capture(const std::filesystem::path& path, std::size_t size_limit = std::size_t(16) << 30);

/// The file name a launch is captured to: "<kernel>.<problem>.alloycap"
/// with the kernel name's characters other than letters, digits, '.', '-'
/// and '_' replaced by '_'.
std::string capture_file_name(std::string_view kernel, const Extent& problem);

/// Whether `name` matches the glob `pattern` ('*' any run of characters,
/// '?' one); patterns may be joined by ','.
bool capture_pattern_matches(std::string_view pattern, std::string_view name);

}  // namespace alloy
