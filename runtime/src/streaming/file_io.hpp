// Reading and writing the files a pipeline streams, in chunks at given
// offsets, from several threads at once (internal to the runtime).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace alloy::detail {

/// Bytes of O_DIRECT alignment: offsets, lengths and memory are multiples of it.
inline constexpr std::size_t direct_alignment = 4096;

/// A file opened for positioned reads: with O_DIRECT (no copy through the
/// page cache) where the file system allows it, else buffered.
class FileReader {
 public:
  /// Error naming the file and the system's reason when it cannot be opened.
  explicit FileReader(const std::filesystem::path& path);
  ~FileReader();
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  std::size_t size() const { return size_; }
  /// Reads [offset, offset + bytes) into exactly `bytes` of memory at
  /// `into`: whole aligned blocks with O_DIRECT where offset and memory are
  /// aligned, the rest buffered, so that no byte past `bytes` is written.
  /// Error naming the file for a range past its end or a short read.
  void read(void* into, std::size_t offset, std::size_t bytes) const;
  bool direct() const { return direct_fd_ >= 0; }
  /// "O_DIRECT reads" or "buffered reads (O_DIRECT refused: ...)".
  const std::string& how() const { return how_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;         ///< buffered
  int direct_fd_ = -1;  ///< O_DIRECT, or -1
  std::size_t size_ = 0;
  std::string how_;
};

/// A file created (or truncated) to `bytes`, for positioned writes.
class FileWriter {
 public:
  FileWriter(const std::filesystem::path& path, std::size_t bytes);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  void write(const void* from, std::size_t offset, std::size_t bytes) const;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace alloy::detail
