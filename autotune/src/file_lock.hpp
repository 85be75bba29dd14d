// An advisory lock on a file, held while the object lives (internal).
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <string>

#include "alloy/log.hpp"

namespace alloy::autotune::detail {

/// flock() on `path`, an existing file or folder (a folder locks what is
/// written in it, and leaves no lock file behind). Without a lock (a path
/// that cannot be opened, say) the holder goes on unlocked with a warning:
/// a lost race is better than no profile.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) log_warning("cannot lock " + path + "; going on without the lock");
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

}  // namespace alloy::autotune::detail
