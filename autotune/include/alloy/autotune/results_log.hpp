// Every measurement of a tuning run, appended to a JSON-lines file as it
// happens, so an interrupted run resumes and strategies can be replayed.
#pragma once

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "alloy/autotune/measurement.hpp"
#include "alloy/device_info.hpp"

namespace alloy::autotune {

/// Which tuning task a measurement belongs to.
struct LogKey {
  std::string kernel;
  std::string source_hash;
  std::string device;  ///< fingerprint
  Extent problem;

  std::string text() const;  ///< one string, for maps
};

/// One line per measurement:
///   {"kernel": ..., "source_hash": ..., "device": ..., "problem": [...],
///    "configuration": {...}, "outcome": "ok", "seconds": ..., "low": ...,
///    "high": ..., ...}
/// and one per confirmation sample, with its "round" (from 1).
/// Each line is flushed as soon as it is written, so even `kill -9`
/// loses at most the line being written; a torn last line is skipped when
/// the file is read again. Lines of other kernels, sources, devices or
/// problems share the file. Thread-safe.
class ResultsLog {
 public:
  /// Whether new measurements go to the file or stay in memory (a dry run).
  enum class Writes { append, none };

  /// Reads what `file` holds already, then appends to it (with
  /// Writes::none, neither creates nor changes it). An empty path keeps
  /// results in memory only. Throws Error when the file cannot be opened for
  /// appending.
  explicit ResultsLog(std::filesystem::path file, Writes writes = Writes::append);

  /// The search's measurements logged for `key` (confirmation rounds are
  /// left out), in the order they were made, with
  /// configurations in `kernel`'s parameter order (lines naming other
  /// parameters are skipped) and `resumed` set.
  std::vector<Measurement> measurements(const LogKey& key, const TunableKernel& kernel) const;

  void append(const LogKey& key, const TunableKernel& kernel, const Measurement& measurement);

  const std::filesystem::path& file() const { return file_; }
  /// Lines that could not be read (a torn last line, say).
  std::size_t skipped_lines() const { return skipped_lines_; }

 private:
  struct Line {
    std::map<std::string, std::int64_t> configuration;
    Measurement measurement;
  };

  std::filesystem::path file_;
  mutable std::mutex mutex_;
  std::ofstream out_;
  std::map<std::string, std::vector<Line>> lines_;  // by LogKey::text()
  std::size_t skipped_lines_ = 0;
};

}  // namespace alloy::autotune
