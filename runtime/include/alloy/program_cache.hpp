// Compiled programs cached in memory and on disk.
#pragma once

#include <cstddef>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <map>
#include <utility>

#include "alloy/backend/device.hpp"

namespace alloy {

/// Counts of where programs came from, to observe the cache.
struct ProgramCacheStats {
  std::size_t memory_hits = 0;
  std::size_t disk_hits = 0;
  std::size_t compiles = 0;
  std::size_t failed_compiles = 0;  ///< each source fails once per device: the error is kept
  std::size_t rejected_files = 0;  ///< unreadable or corrupt, rebuilt
};

/// Keyed by the full source (prelude included), the options and the device
/// fingerprint (which holds the driver version). A disk entry stores its whole
/// key and a checksum, so a hash collision or a damaged file can never yield
/// the wrong binary: such a file is ignored with a warning and rewritten.
/// Files are written to a temporary name and renamed, so processes sharing
/// the folder see whole files only. The checksum guards against damage, not
/// attack: binaries are native code for some drivers, so the folder must be
/// writable only by users trusted to run code. Thread-safe.
class ProgramCache {
 public:
  /// `dir` empty: memory only.
  explicit ProgramCache(std::filesystem::path dir);

  std::shared_ptr<Program> get(Device& device, const ProgramSource& source);

  const std::filesystem::path& dir() const { return dir_; }
  ProgramCacheStats stats() const;
  /// The file a program would be stored in (for tests and tooling).
  std::filesystem::path file_for(const Device& device, const ProgramSource& source) const;

  /// $ALLOY_CACHE_DIR, else $XDG_CACHE_HOME/alloy/programs, else
  /// ~/.cache/alloy/programs; empty when none can be determined.
  static std::filesystem::path default_dir();

 private:
  std::shared_ptr<Program> load_from_disk(Device& device, const ProgramSource& source,
                                          const std::string& key,
                                          const std::filesystem::path& file);
  void store_on_disk(const Program& program, const std::string& key,
                     const std::filesystem::path& file);

  std::filesystem::path dir_;
  mutable std::mutex mutex_;
  // A Program is built for one Device, so memory entries are per device, while
  // disk entries are shared by all devices with the same fingerprint.
  std::map<std::pair<const Device*, std::string>, std::shared_ptr<Program>> programs_;
  /// Compile errors, thrown again for the same source on the same device:
  /// compiling is deterministic, and a kernel that fails in every chunk of a
  /// stream or every task of a graph would otherwise compile (and fail) each time.
  std::map<std::pair<const Device*, std::string>, std::exception_ptr> failures_;
  ProgramCacheStats stats_;
};

}  // namespace alloy
