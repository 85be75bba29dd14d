// One device's coordination segment: what the jobs using the device, in
// any process of this machine, tell each other (internal to the runtime).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "alloy/sharing.hpp"

namespace alloy::detail {

/// Who may open a segment: processes of its creator's user (the default),
/// of its group too, or of every user. ALLOY_SHARING_ACCESS=user|group|all.
enum class SegmentAccess { user, group, all };

/// ALLOY_SHARING_ACCESS, else user; InvalidArgument for other text.
SegmentAccess segment_access_from_environment();

/// One job (an executor) as the others on its device see it.
struct JobState {
  std::int32_t pid = 0;
  PriorityClass priority_class = PriorityClass::normal;
  /// Commands handed in and not yet complete; counted by critical and
  /// background jobs only (a normal job's count is 0).
  std::uint64_t in_flight = 0;
  std::uint64_t memory_in_use = 0;     ///< bytes of device memory
  std::uint64_t memory_share = 0;      ///< bytes; 0: no share declared
};

/// A table of the jobs on one device in POSIX shared memory, named from the
/// device's key, made by the first process that opens it: there is no
/// daemon. Each job holds a slot; a process that dies (even by kill -9)
/// leaves slots that the next reader reclaims, its pending work with them.
/// Counters are lock-free; taking and reclaiming slots holds a robust
/// process-shared mutex, which a holder's death does not leave locked.
class CoordinationSegment {
 public:
  static constexpr std::size_t slots = 256;

  /// Opens (or creates) the segment for `device_key` and takes a slot.
  /// Error naming the segment and the system's reason where shared memory
  /// cannot be opened, the segment is of another layout, or every slot is
  /// taken by a live job.
  CoordinationSegment(const std::string& device_key, PriorityClass priority_class, SegmentAccess access);
  /// Gives the slot back, with its pending work; the last job of the
  /// segment removes its name.
  ~CoordinationSegment();
  CoordinationSegment(const CoordinationSegment&) = delete;
  CoordinationSegment& operator=(const CoordinationSegment&) = delete;

  /// The shared-memory name ("/alloy-u1000-3f2a..."), for messages.
  const std::string& name() const { return name_; }

  /// Commands handed in (delta > 0) or completed (delta < 0).
  void add_in_flight(std::int64_t delta);
  void set_memory(std::uint64_t in_use, std::uint64_t share);

  /// Critical commands pending in the other jobs of the device.
  std::uint64_t critical_pending_elsewhere() const;
  /// Commands in flight in the other jobs of the device that count them.
  std::uint64_t in_flight_elsewhere() const;
  /// Critical jobs on the device besides this one (counting dead ones until
  /// they are reclaimed).
  std::uint64_t critical_jobs_elsewhere() const;
  /// Every live job on the device, this one first; reclaims dead ones first.
  std::vector<JobState> jobs() const;
  /// Frees the slots of processes that are gone; how many it freed.
  std::size_t reclaim_dead();

  /// Ends the process while it holds the table lock, as a process killed
  /// while taking a slot would: for tests of the robust mutex.
  [[noreturn]] void exit_holding_table_lock();

  /// The name a segment for `device_key` has.
  static std::string name_for(const std::string& device_key, SegmentAccess access);
  /// Removes the name (tests); processes that have it open keep using it.
  static void remove(const std::string& device_key, SegmentAccess access);

 private:
  struct Layout;

  /// Maps the segment (laying it out if `fresh`) and takes a slot; with
  /// the file lock held.
  void join(const std::string& device_key, PriorityClass priority_class, mode_t mode, bool fresh);
  std::size_t reclaim_dead_locked() const;
  /// Frees slot `index` with what it counted; under the mutex.
  void free_slot(std::size_t index) const;

  std::string name_;
  int fd_ = -1;  ///< kept open for the file lock that joining and leaving take
  Layout* layout_ = nullptr;
  std::size_t slot_ = 0;
};

}  // namespace alloy::detail
