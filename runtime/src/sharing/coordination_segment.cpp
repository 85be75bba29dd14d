// The coordination segment: a table of jobs per device in POSIX shared
// memory, with a robust mutex for its slots and lock-free counters.
#include "coordination_segment.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <optional>
#include <sstream>

#include "alloy/error.hpp"

namespace alloy::detail {

namespace {

constexpr std::uint64_t layout_magic = 0x616c6c6f79736567;  // "alloyseg"
constexpr std::uint32_t layout_version = 2;

std::string system_reason(int error) { return std::strerror(error); }

/// FNV-1a: the same name in every process and build for one key.
std::uint64_t stable_hash(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3;
  }
  return hash;
}

/// A process's state letter and start time (clock ticks after boot) from
/// /proc/PID/stat; nullopt once it is gone.
struct ProcessStat {
  char state = '?';
  std::uint64_t start_time = 0;
};

std::optional<ProcessStat> process_stat(std::int32_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!file || !std::getline(file, line)) return std::nullopt;
  // The command name, in parentheses, may hold spaces: fields follow its last ')'.
  const std::size_t name_end = line.rfind(')');
  if (name_end == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(name_end + 1));
  ProcessStat stat;
  fields >> stat.state;
  std::string skipped;
  for (int field = 4; field < 22; ++field) fields >> skipped;  // ppid .. itrealvalue
  fields >> stat.start_time;
  if (!fields) return std::nullopt;
  return stat;
}

/// Whether the process that took a slot still runs: the same pid, started
/// at the same time (not a later process given the pid), and not a zombie.
bool still_runs(std::int32_t pid, std::uint64_t start_time) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  const std::optional<ProcessStat> stat = process_stat(pid);
  if (!stat) return ::kill(pid, 0) == 0 || errno == EPERM;  // no /proc: trust the signal check
  return stat->state != 'Z' && stat->state != 'X' && stat->start_time == start_time;
}

mode_t mode_for(SegmentAccess access) {
  switch (access) {
    case SegmentAccess::group: return 0660;
    case SegmentAccess::all: return 0666;
    case SegmentAccess::user: break;
  }
  return 0600;
}

}  // namespace

struct CoordinationSegment::Layout {
  struct Slot {
    std::atomic<std::int32_t> pid;  ///< 0: free
    std::uint32_t priority_class;
    std::uint64_t start_time;  ///< of the process, against a reused pid
    std::atomic<std::uint64_t> in_flight;  ///< commands handed in, not complete (critical and background jobs)
    std::atomic<std::uint64_t> memory_in_use;
    std::atomic<std::uint64_t> memory_share;
  };

  std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t slot_count;
  pthread_mutex_t mutex;  ///< robust, process-shared: taking and freeing slots
  std::atomic<std::uint64_t> critical_pending;  ///< the sum of critical slots' in_flight
  std::atomic<std::uint64_t> in_flight;         ///< the sum of all slots'
  std::atomic<std::uint64_t> critical_jobs;     ///< slots of class critical
  Slot slot[slots];
};

// Counters that other processes read and write through the mapping must be
// lock-free: a lock-based atomic's lock would be this process's alone.
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
static_assert(std::atomic<std::int32_t>::is_always_lock_free);

namespace {

/// The segment's mutex, made consistent again when its holder died.
class SlotTableLock {
 public:
  SlotTableLock(pthread_mutex_t& mutex, const std::string& name) : mutex_(mutex) {
    const int status = pthread_mutex_lock(&mutex_);
    if (status == EOWNERDEAD) {
      // The holder died while taking or freeing a slot; each writes the
      // slot's pid last, so the table is whole, and the reclaim that follows
      // frees what the dead process held.
      pthread_mutex_consistent(&mutex_);
    } else if (status != 0) {
      throw Error("locking device coordination segment " + name + ": " + system_reason(status) +
                  "; remove /dev/shm" + name + " when no alloy program runs");
    }
  }
  ~SlotTableLock() { pthread_mutex_unlock(&mutex_); }
  SlotTableLock(const SlotTableLock&) = delete;
  SlotTableLock& operator=(const SlotTableLock&) = delete;

 private:
  pthread_mutex_t& mutex_;
};

}  // namespace

SegmentAccess segment_access_from_environment() {
  const char* text = std::getenv("ALLOY_SHARING_ACCESS");
  if (text == nullptr || *text == '\0' || std::strcmp(text, "user") == 0) return SegmentAccess::user;
  if (std::strcmp(text, "group") == 0) return SegmentAccess::group;
  if (std::strcmp(text, "all") == 0) return SegmentAccess::all;
  throw InvalidArgument(std::string("ALLOY_SHARING_ACCESS=\"") + text +
                        "\" is no access; use user (the default: only this user's processes coordinate), group "
                        "or all");
}

std::string CoordinationSegment::name_for(const std::string& device_key, SegmentAccess access) {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(stable_hash(device_key)));
  switch (access) {
    case SegmentAccess::group: return "/alloy-g" + std::to_string(::getgid()) + "-" + hash;
    case SegmentAccess::all: return std::string("/alloy-all-") + hash;
    case SegmentAccess::user: break;
  }
  return "/alloy-u" + std::to_string(::getuid()) + "-" + hash;
}

void CoordinationSegment::remove(const std::string& device_key, SegmentAccess access) {
  ::shm_unlink(name_for(device_key, access).c_str());
}

CoordinationSegment::CoordinationSegment(const std::string& device_key, PriorityClass priority_class,
                                         SegmentAccess access)
    : name_(name_for(device_key, access)) {
  const auto fail = [&](const std::string& what, int error) {
    return Error(what + " device coordination segment " + name_ + " (" + device_key + "): " + system_reason(error) +
                 "; ALLOY_SHARING_ACCESS=user|group|all says who may share it");
  };
  const mode_t mode = mode_for(access);
  // Joining and leaving hold the file lock: the last job to leave removes
  // the name under it, and a job that opened the removed file meanwhile
  // sees it unlinked once it has the lock, and opens the new one.
  struct stat status {};
  for (;;) {
    fd_ = ::shm_open(name_.c_str(), O_RDWR | O_CREAT, mode);
    if (fd_ < 0) throw fail("opening", errno);
    if (::flock(fd_, LOCK_EX) != 0 || ::fstat(fd_, &status) != 0) {
      const int error = errno;
      ::close(fd_);
      throw fail("locking", error);
    }
    if (status.st_nlink > 0) break;
    ::close(fd_);
  }
  try {
    join(device_key, priority_class, mode, status.st_size == 0);
  } catch (...) {
    ::close(fd_);  // drops the file lock too
    throw;
  }
  ::flock(fd_, LOCK_UN);
}

void CoordinationSegment::join(const std::string& device_key, PriorityClass priority_class, mode_t mode, bool fresh) {
  if (fresh) {
    // The creation mode passed the umask; the access asked for is what counts.
    if (::fchmod(fd_, mode) != 0 || ::ftruncate(fd_, sizeof(Layout)) != 0) {
      throw Error("laying out device coordination segment " + name_ + " (" + device_key +
                  "): " + system_reason(errno));
    }
  } else {
    struct stat status {};
    ::fstat(fd_, &status);
    if (static_cast<std::size_t>(status.st_size) != sizeof(Layout)) {
      throw Error("device coordination segment " + name_ + " (" + device_key + ") is " +
                  std::to_string(status.st_size) + " bytes, not the " + std::to_string(sizeof(Layout)) +
                  " of this alloy's layout; remove /dev/shm" + name_ + " when no alloy program runs");
    }
  }
  void* mapped = ::mmap(nullptr, sizeof(Layout), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (mapped == MAP_FAILED) {
    throw Error("mapping device coordination segment " + name_ + " (" + device_key + "): " + system_reason(errno));
  }
  layout_ = static_cast<Layout*>(mapped);
  try {
    if (fresh) {
      new (layout_) Layout{};
      pthread_mutexattr_t attributes;
      pthread_mutexattr_init(&attributes);
      pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
      pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST);
      pthread_mutex_init(&layout_->mutex, &attributes);
      pthread_mutexattr_destroy(&attributes);
      layout_->slot_count = slots;
      layout_->version = layout_version;
      layout_->magic = layout_magic;
    } else if (layout_->magic != layout_magic || layout_->version != layout_version ||
               layout_->slot_count != slots) {
      throw Error("device coordination segment " + name_ + " (" + device_key +
                  ") has another alloy's layout; remove /dev/shm" + name_ + " when no alloy program runs");
    }
    const std::int32_t pid = ::getpid();
    const std::optional<ProcessStat> own = process_stat(pid);
    SlotTableLock lock(layout_->mutex, name_);
    reclaim_dead_locked();
    for (slot_ = 0; slot_ < slots; ++slot_) {
      Layout::Slot& slot = layout_->slot[slot_];
      if (slot.pid.load() != 0) continue;
      slot.priority_class = static_cast<std::uint32_t>(priority_class);
      slot.start_time = own ? own->start_time : 0;
      slot.in_flight = 0;
      slot.memory_in_use = 0;
      slot.memory_share = 0;
      slot.pid.store(pid);  // last: the slot is whole once taken
      if (priority_class == PriorityClass::critical) layout_->critical_jobs.fetch_add(1);
      return;
    }
    throw Error("device coordination segment " + name_ + " (" + device_key + "): all " + std::to_string(slots) +
                " slots are held by running jobs; end some executors on the device");
  } catch (...) {
    ::munmap(layout_, sizeof(Layout));
    throw;
  }
}

CoordinationSegment::~CoordinationSegment() {
  ::flock(fd_, LOCK_EX);
  try {
    SlotTableLock lock(layout_->mutex, name_);
    free_slot(slot_);
    reclaim_dead_locked();
    bool anyone_left = false;
    for (const Layout::Slot& slot : layout_->slot) anyone_left = anyone_left || slot.pid.load() != 0;
    // Nothing stays in /dev/shm once the last job on the device is gone.
    if (!anyone_left) ::shm_unlink(name_.c_str());
  } catch (const Error&) {
    // A segment that cannot be locked any more: the slot is reclaimed once
    // this process is gone.
  }
  ::munmap(layout_, sizeof(Layout));
  ::close(fd_);  // and with it the file lock
}

void CoordinationSegment::free_slot(std::size_t index) const {
  Layout::Slot& slot = layout_->slot[index];
  const std::uint64_t in_flight = slot.in_flight.exchange(0);
  layout_->in_flight.fetch_sub(in_flight);
  if (slot.priority_class == static_cast<std::uint32_t>(PriorityClass::critical)) {
    layout_->critical_pending.fetch_sub(in_flight);
    layout_->critical_jobs.fetch_sub(1);
  }
  slot.memory_in_use = 0;
  slot.memory_share = 0;
  slot.pid.store(0);
}

void CoordinationSegment::add_in_flight(std::int64_t delta) {
  const auto change = static_cast<std::uint64_t>(delta);  // two's complement: adding it subtracts
  Layout::Slot& own = layout_->slot[slot_];
  own.in_flight.fetch_add(change);
  layout_->in_flight.fetch_add(change);
  if (own.priority_class == static_cast<std::uint32_t>(PriorityClass::critical)) {
    layout_->critical_pending.fetch_add(change);
  }
}

void CoordinationSegment::set_memory(std::uint64_t in_use, std::uint64_t share) {
  layout_->slot[slot_].memory_in_use = in_use;
  layout_->slot[slot_].memory_share = share;
}

std::uint64_t CoordinationSegment::critical_pending_elsewhere() const {
  const Layout::Slot& own = layout_->slot[slot_];
  const bool critical = own.priority_class == static_cast<std::uint32_t>(PriorityClass::critical);
  return layout_->critical_pending.load() - (critical ? own.in_flight.load() : 0);
}

std::uint64_t CoordinationSegment::in_flight_elsewhere() const {
  return layout_->in_flight.load() - layout_->slot[slot_].in_flight.load();
}

std::uint64_t CoordinationSegment::critical_jobs_elsewhere() const {
  const bool own = layout_->slot[slot_].priority_class == static_cast<std::uint32_t>(PriorityClass::critical);
  return layout_->critical_jobs.load() - (own ? 1 : 0);
}

std::size_t CoordinationSegment::reclaim_dead() {
  SlotTableLock lock(layout_->mutex, name_);
  return reclaim_dead_locked();
}

std::size_t CoordinationSegment::reclaim_dead_locked() const {
  const std::int32_t own = ::getpid();
  std::size_t freed = 0;
  for (std::size_t s = 0; s < slots; ++s) {
    const std::int32_t pid = layout_->slot[s].pid.load();
    if (pid == 0 || pid == own || still_runs(pid, layout_->slot[s].start_time)) continue;
    free_slot(s);
    ++freed;
  }
  return freed;
}

void CoordinationSegment::exit_holding_table_lock() {
  pthread_mutex_lock(&layout_->mutex);
  std::_Exit(0);
}

std::vector<JobState> CoordinationSegment::jobs() const {
  SlotTableLock lock(layout_->mutex, name_);
  reclaim_dead_locked();
  std::vector<JobState> jobs;
  const auto add = [&](const Layout::Slot& slot) {
    JobState job;
    job.pid = slot.pid.load();
    job.priority_class = static_cast<PriorityClass>(slot.priority_class);
    job.in_flight = slot.in_flight.load();
    job.memory_in_use = slot.memory_in_use.load();
    job.memory_share = slot.memory_share.load();
    jobs.push_back(job);
  };
  add(layout_->slot[slot_]);
  for (std::size_t s = 0; s < slots; ++s) {
    if (s != slot_ && layout_->slot[s].pid.load() != 0) add(layout_->slot[s]);
  }
  return jobs;
}

}  // namespace alloy::detail
