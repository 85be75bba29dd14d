// Positioned file reads (O_DIRECT where allowed) and writes for streaming.
#include "file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "alloy/error.hpp"

namespace alloy::detail {
namespace {

std::string system_reason() { return std::strerror(errno); }

bool aligned(std::uintptr_t value) { return value % direct_alignment == 0; }

/// Reads exactly `bytes` unless the file ends first; returns what it read.
std::size_t read_fully(int fd, void* into, std::size_t offset, std::size_t bytes, const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t got = ::pread(fd, static_cast<char*>(into) + done, bytes - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error("reading " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) + " of " +
                  path.string() + ": " + system_reason());
    }
    if (got == 0) break;  // end of file
    done += static_cast<std::size_t>(got);
  }
  return done;
}

}  // namespace

FileReader::FileReader(const std::filesystem::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error("opening " + path.string() + " to stream it: " + system_reason());
  struct stat status {};
  if (::fstat(fd_, &status) != 0) {
    const std::string reason = system_reason();
    ::close(fd_);
    throw Error("reading the size of " + path.string() + ": " + reason);
  }
  size_ = static_cast<std::size_t>(status.st_size);
  direct_fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
  how_ = direct_fd_ >= 0 ? "O_DIRECT reads"
                         : "buffered reads (the file system refused O_DIRECT: " + system_reason() + ")";
}

FileReader::~FileReader() {
  if (direct_fd_ >= 0) ::close(direct_fd_);
  if (fd_ >= 0) ::close(fd_);
}

void FileReader::read(void* into, std::size_t offset, std::size_t bytes) const {
  if (offset > size_ || bytes > size_ - offset) {
    throw Error("reading bytes [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) + ") of " +
                path_.string() + ", which has " + std::to_string(size_) + " bytes; read within the file");
  }
  auto* bytes_into = static_cast<char*>(into);
  std::size_t got = 0;
  if (direct() && aligned(offset) && aligned(reinterpret_cast<std::uintptr_t>(into))) {
    // Whole blocks only: a direct read of the last, partial one would write
    // past `bytes` should the file have grown since it was opened.
    if (const std::size_t blocks = bytes / direct_alignment * direct_alignment; blocks != 0) {
      got = read_fully(direct_fd_, bytes_into, offset, blocks, path_);
    }
  }
  if (got < bytes) got += read_fully(fd_, bytes_into + got, offset + got, bytes - got, path_);
  if (got != bytes) {
    throw Error("reading " + path_.string() + ": " + std::to_string(got) + " of " + std::to_string(bytes) +
                " bytes at offset " + std::to_string(offset) + " came back; was the file truncated?");
  }
}

FileWriter::FileWriter(const std::filesystem::path& path, std::size_t bytes) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("creating " + path.string() + " to stream into it: " + system_reason());
  if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) {
    const std::string reason = system_reason();
    ::close(fd_);
    throw Error("making " + path.string() + " " + std::to_string(bytes) + " bytes long: " + reason);
  }
}

FileWriter::~FileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void FileWriter::write(const void* from, std::size_t offset, std::size_t bytes) const {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t put =
        ::pwrite(fd_, static_cast<const char*>(from) + done, bytes - done, static_cast<off_t>(offset + done));
    if (put < 0) {
      if (errno == EINTR) continue;
      throw Error("writing " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) + " of " +
                  path_.string() + ": " + system_reason() + "; is the disk full?");
    }
    done += static_cast<std::size_t>(put);
  }
}

}  // namespace alloy::detail
