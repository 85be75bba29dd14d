// Device coordination segments: jobs of one process and of others see each
// other, a process killed with -9 leaves nothing behind, and a segment of
// another layout or a full table is refused with a reason.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "alloy/error.hpp"
#include "sharing/coordination_segment.hpp"
#include "support/build_paths.hpp"
#include "support/scoped_environment.hpp"

extern char** environ;

namespace alloy::test {
namespace {

using detail::CoordinationSegment;
using detail::JobState;
using detail::SegmentAccess;

/// A key no other test or run uses, whose segment is removed at the end.
struct UniqueKey {
  std::string key;
  explicit UniqueKey(const std::string& what) : key("test:" + what + ":" + std::to_string(::getpid())) {
    CoordinationSegment::remove(key, SegmentAccess::user);
  }
  ~UniqueKey() { CoordinationSegment::remove(key, SegmentAccess::user); }
};

/// tests/sharing/coordination_peer in a process of its own.
class Peer {
 public:
  Peer(const std::string& key, const char* priority_class, int pending) {
    int to_child[2];
    int from_child[2];
    REQUIRE(::pipe(to_child) == 0);
    REQUIRE(::pipe(from_child) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    posix_spawn_file_actions_addclose(&actions, to_child[1]);
    posix_spawn_file_actions_addclose(&actions, from_child[0]);
    const std::string pending_text = std::to_string(pending);
    std::vector<char*> argv{const_cast<char*>(build_paths::coordination_peer), const_cast<char*>(key.c_str()),
                            const_cast<char*>(priority_class), const_cast<char*>(pending_text.c_str()), nullptr};
    const int status = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    stdin_ = to_child[1];
    REQUIRE_MESSAGE(status == 0, "spawning " << argv[0]);
    // Its "joined" line says its slot is taken.
    std::string said;
    char c = 0;
    while (::read(from_child[0], &c, 1) == 1 && c != '\n') said += c;
    ::close(from_child[0]);
    REQUIRE(said == "joined");
  }
  ~Peer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      reap();
    }
    if (stdin_ >= 0) ::close(stdin_);
  }
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  pid_t pid() const { return pid_; }
  void kill_9() {
    ::kill(pid_, SIGKILL);
    reap();
  }
  /// Has it exit while it holds the segment's table lock.
  void die_holding_the_lock() {
    const std::string line = "die holding the lock\n";
    REQUIRE(::write(stdin_, line.data(), line.size()) == static_cast<ssize_t>(line.size()));
    CHECK(reap() == 0);
  }
  /// Closes its input: it leaves the segment and exits 0.
  void end() {
    ::close(stdin_);
    stdin_ = -1;
    CHECK(reap() == 0);
  }

 private:
  int reap() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  pid_t pid_ = -1;
  int stdin_ = -1;
};

bool lists(const std::vector<JobState>& jobs, pid_t pid, PriorityClass priority_class, std::uint64_t pending) {
  return std::any_of(jobs.begin(), jobs.end(), [&](const JobState& job) {
    return job.pid == pid && job.priority_class == priority_class && job.in_flight == pending;
  });
}

}  // namespace

TEST_CASE("Unit.CoordinationSegment.jobs_of_one_process_see_each_other") {
  const UniqueKey device("one-process");
  CoordinationSegment background(device.key, PriorityClass::background, SegmentAccess::user);
  {
    CoordinationSegment critical(device.key, PriorityClass::critical, SegmentAccess::user);
    critical.add_in_flight(3);
    critical.set_memory(1000, 4000);
    CHECK(background.critical_pending_elsewhere() == 3);
    CHECK(critical.critical_pending_elsewhere() == 0);
    CHECK(background.critical_jobs_elsewhere() == 1);
    CHECK(critical.critical_jobs_elsewhere() == 0);
    critical.add_in_flight(-2);
    CHECK(background.critical_pending_elsewhere() == 1);
    const std::vector<JobState> jobs = background.jobs();
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].priority_class == PriorityClass::background);  // its own first
    CHECK(jobs[1].priority_class == PriorityClass::critical);
    CHECK(jobs[1].in_flight == 1);
    CHECK(jobs[1].memory_in_use == 1000);
    CHECK(jobs[1].memory_share == 4000);
  }
  // Gone with what it had pending.
  CHECK(background.critical_pending_elsewhere() == 0);
  CHECK(background.critical_jobs_elsewhere() == 0);
  CHECK(background.jobs().size() == 1);
}

TEST_CASE("Unit.CoordinationSegment.a_second_process_joins_and_one_killed_with_9_is_reclaimed") {
  const UniqueKey device("processes");
  CoordinationSegment here(device.key, PriorityClass::background, SegmentAccess::user);
  Peer killed(device.key, "critical", 5);
  Peer staying(device.key, "normal", 2);
  CHECK(lists(here.jobs(), killed.pid(), PriorityClass::critical, 5));
  CHECK(lists(here.jobs(), staying.pid(), PriorityClass::normal, 2));
  CHECK(here.critical_pending_elsewhere() == 5);  // the normal job's commands are not critical
  CHECK(here.in_flight_elsewhere() == 7);
  CHECK(here.critical_jobs_elsewhere() == 1);
  const pid_t killed_pid = killed.pid();
  killed.kill_9();
  const std::vector<JobState> after_kill = here.jobs();  // reclaims
  CHECK(after_kill.size() == 2);
  CHECK_FALSE(lists(after_kill, killed_pid, PriorityClass::critical, 5));
  CHECK(lists(after_kill, staying.pid(), PriorityClass::normal, 2));
  CHECK(here.critical_pending_elsewhere() == 0);
  CHECK(here.in_flight_elsewhere() == 2);
  CHECK(here.critical_jobs_elsewhere() == 0);
  CHECK(here.reclaim_dead() == 0);
  // A process that leaves as it should frees its slot itself.
  staying.end();
  CHECK(here.in_flight_elsewhere() == 0);
  CHECK(here.jobs().size() == 1);
}

TEST_CASE("Unit.CoordinationSegment.a_process_that_dies_holding_the_table_lock_leaves_it_usable") {
  const UniqueKey device("owner-dead");
  CoordinationSegment here(device.key, PriorityClass::background, SegmentAccess::user);
  Peer dying(device.key, "critical", 4);
  const pid_t dying_pid = dying.pid();
  CHECK(here.critical_pending_elsewhere() == 4);
  dying.die_holding_the_lock();
  // The next locker gets EOWNERDEAD, makes the mutex consistent and reclaims
  // the dead job with what it had in flight; the lock works after that.
  const std::vector<JobState> jobs = here.jobs();
  CHECK(jobs.size() == 1);
  CHECK_FALSE(lists(jobs, dying_pid, PriorityClass::critical, 4));
  CHECK(here.critical_pending_elsewhere() == 0);
  CHECK(here.critical_jobs_elsewhere() == 0);
  CHECK(here.reclaim_dead() == 0);
  Peer joining(device.key, "normal", 1);
  CHECK(lists(here.jobs(), joining.pid(), PriorityClass::normal, 1));
}

TEST_CASE("Unit.CoordinationSegment.the_last_job_to_leave_removes_the_name") {
  const UniqueKey device("last-leaves");
  const std::string file = "/dev/shm" + CoordinationSegment::name_for(device.key, SegmentAccess::user);
  const auto exists = [&] { return ::access(file.c_str(), F_OK) == 0; };
  auto first = std::make_unique<CoordinationSegment>(device.key, PriorityClass::normal, SegmentAccess::user);
  auto second = std::make_unique<CoordinationSegment>(device.key, PriorityClass::critical, SegmentAccess::user);
  CHECK(exists());
  first.reset();
  CHECK(exists());  // the second job is still there
  second.reset();
  CHECK_FALSE(exists());
  // A process killed with -9 does not keep it: the job leaving after it
  // reclaims its slot, then finds itself the last.
  auto here = std::make_unique<CoordinationSegment>(device.key, PriorityClass::normal, SegmentAccess::user);
  Peer killed(device.key, "critical", 1);
  killed.kill_9();
  here.reset();
  CHECK_FALSE(exists());
  // And a job that comes after finds a fresh table.
  CoordinationSegment again(device.key, PriorityClass::normal, SegmentAccess::user);
  CHECK(again.jobs().size() == 1);
  CHECK(again.critical_pending_elsewhere() == 0);
}

TEST_CASE("Unit.CoordinationSegment.a_full_table_and_another_layout_are_refused_with_the_name") {
  const UniqueKey device("full");
  std::vector<std::unique_ptr<CoordinationSegment>> held;
  for (std::size_t s = 0; s < CoordinationSegment::slots; ++s) {
    held.push_back(std::make_unique<CoordinationSegment>(device.key, PriorityClass::normal, SegmentAccess::user));
  }
  const std::string name = held.front()->name();
  try {
    CoordinationSegment one_more(device.key, PriorityClass::normal, SegmentAccess::user);
    FAIL("a job took a slot past the last");
  } catch (const Error& error) {
    CHECK(std::string(error.what()).find(name) != std::string::npos);
    CHECK(std::string(error.what()).find("slots are held by running jobs") != std::string::npos);
  }
  held.pop_back();
  CHECK_NOTHROW(CoordinationSegment(device.key, PriorityClass::normal, SegmentAccess::user));
  held.clear();

  const UniqueKey other("other-layout");
  const std::string other_name = CoordinationSegment::name_for(other.key, SegmentAccess::user);
  const int fd = ::shm_open(other_name.c_str(), O_RDWR | O_CREAT, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, 100) == 0);
  ::close(fd);
  try {
    CoordinationSegment refused(other.key, PriorityClass::normal, SegmentAccess::user);
    FAIL("a segment of another layout was used");
  } catch (const Error& error) {
    CHECK(std::string(error.what()).find("remove /dev/shm" + other_name) != std::string::npos);
  }
}

TEST_CASE("Unit.CoordinationSegment.access_sets_the_name_and_the_mode") {
  for (const auto& [access, mode] : {std::pair{SegmentAccess::user, 0600}, std::pair{SegmentAccess::group, 0660}}) {
    const std::string key = "test:mode:" + std::to_string(::getpid());
    CoordinationSegment::remove(key, access);
    {
      CoordinationSegment segment(key, PriorityClass::normal, access);
      struct stat status {};
      REQUIRE(::stat(("/dev/shm" + segment.name()).c_str(), &status) == 0);
      CHECK((status.st_mode & 0777) == static_cast<mode_t>(mode));
    }
    CoordinationSegment::remove(key, access);
  }
  CHECK(CoordinationSegment::name_for("a", SegmentAccess::user) != CoordinationSegment::name_for("b", SegmentAccess::user));
  CHECK(CoordinationSegment::name_for("a", SegmentAccess::user) != CoordinationSegment::name_for("a", SegmentAccess::all));
  {
    ScopedEnvironment group("ALLOY_SHARING_ACCESS", "group");
    CHECK(detail::segment_access_from_environment() == SegmentAccess::group);
  }
  ScopedEnvironment misspelt("ALLOY_SHARING_ACCESS", "everyone");
  CHECK_THROWS_AS(detail::segment_access_from_environment(), InvalidArgument);
}

}  // namespace alloy::test
