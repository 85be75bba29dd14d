// The CUDA backend's cuFile loader against the real libcufile.so.0 where the
// build found one (scripts/setup-common.sh fetches NVIDIA's wheel), a
// missing one and a library without cuFile's calls; and its driver open,
// which refuses on a machine without GPUDirect Storage and names the code.
#include <doctest/doctest.h>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>
#include <optional>
#include <string>

#include "cufile_loader.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

bool built_with_library() {
  if (*cuda::built_cufile_library() != '\0') return true;
  skip("this build found no libcufile.so.0 to load (scripts/setup-common.sh's alloy_install_cufile puts NVIDIA's "
       "in /opt/alloy/cufile; -DALLOY_CUFILE_ROOT=<folder> names another)");
  return false;
}

/// What `ask` answered in a child process, or how the child ended without
/// answering: killed after `seconds`, or by a signal. libcufile is loaded
/// only there: its driver open may hang or crash on a machine without what
/// it expects (the CUDA backend calls it only with a CUDA device), and what
/// it allocates when loaded is not this process's leak to report.
struct ChildAnswer {
  std::optional<std::string> answer;
  std::string ended;  ///< when there is no answer
};

ChildAnswer answer_in_child(const std::function<std::string()>& ask, int seconds = 10) {
  int pipe_ends[2];
  REQUIRE(::pipe(pipe_ends) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(pipe_ends[0]);
    const std::string answer = "answer:" + ask();
    const ssize_t written = ::write(pipe_ends[1], answer.data(), answer.size());
    ::_exit(written == static_cast<ssize_t>(answer.size()) ? 0 : 1);
  }
  ::close(pipe_ends[1]);
  std::string text;
  pollfd readable{pipe_ends[0], POLLIN, 0};
  bool closed = false;
  while (!closed && ::poll(&readable, 1, seconds * 1000) > 0) {
    char chunk[512];
    const ssize_t got = ::read(pipe_ends[0], chunk, sizeof chunk);
    if (got <= 0) closed = true;
    if (got > 0) text.append(chunk, static_cast<std::size_t>(got));
  }
  ::close(pipe_ends[0]);
  if (!closed) ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!closed) return {std::nullopt, "did not return within " + std::to_string(seconds) + " s"};
  if (text.rfind("answer:", 0) != 0) {
    return {std::nullopt, WIFSIGNALED(status) ? "crashed with signal " + std::to_string(WTERMSIG(status))
                                              : "ended without answering"};
  }
  return {text.substr(7), ""};
}

}  // namespace

TEST_CASE("CuFile.Loader.a_missing_library_is_named_with_the_loader_error") {
  const std::string problem = cuda::check_cufile_library("/no/such/folder/libcufile.so.0");
  if (problem.find("built without cufile.h") != std::string::npos) {
    skip("this CUDA backend was built without cufile.h: " + problem);
    return;
  }
  CHECK(problem.find("/no/such/folder/libcufile.so.0 cannot be loaded (") == 0);
  CHECK(problem.find("No such file or directory") != std::string::npos);
}

TEST_CASE("CuFile.Loader.a_library_without_the_calls_is_named_with_what_it_lacks") {
  const std::string problem = cuda::check_cufile_library("libc.so.6");
  if (problem.find("built without cufile.h") != std::string::npos) {
    skip("this CUDA backend was built without cufile.h: " + problem);
    return;
  }
  CHECK(problem.find("libc.so.6 lacks cuFileDriverOpen, cuFileDriverClose_v2, cuFileHandleRegister") == 0);
  CHECK(problem.find("install a newer GPUDirect Storage") != std::string::npos);
}

TEST_CASE("CuFile.Loader.the_real_library_has_every_call") {
  if (!built_with_library()) return;
  const ChildAnswer child = answer_in_child([] { return cuda::check_cufile_library(cuda::built_cufile_library()); });
  REQUIRE_MESSAGE(child.answer, "loading " << cuda::built_cufile_library() << " " << child.ended);
  CHECK(*child.answer == "");
}

TEST_CASE("CuFile.Loader.the_driver_opens_or_refuses_with_its_code") {
  if (!built_with_library()) return;
  const ChildAnswer child = answer_in_child([] { return cuda::try_cufile_driver(cuda::built_cufile_library()); });
  if (!child.answer) {
    skip("cuFileDriverOpen " + child.ended + " on this machine; the CUDA backend calls it only with a CUDA device");
    return;
  }
  const std::optional<std::string>& answer = child.answer;
  MESSAGE("cuFileDriverOpen here: " << (answer->empty() ? std::string("opened") : *answer));
  if (answer->empty()) return;  // a machine with GPUDirect Storage (or its compat mode)
  CHECK(answer->find("cuFileDriverOpen") == 0);
  // Refused with a code, or not called where it would not return.
  const bool named = answer->find("failed with CU_FILE_") != std::string::npos;
  const bool not_called = answer->find("is not called: /proc/modules cannot be read") != std::string::npos;
  CHECK_MESSAGE(named != not_called, *answer);
}

TEST_CASE("CuFile.Table.says_why_it_cannot_be_used_or_nothing") {
  const ChildAnswer child = answer_in_child([] { return cuda::cufile_api().unavailable(); });
  REQUIRE_MESSAGE(child.answer, "asking the CUDA backend's cuFile table " << child.ended);
  const std::string& why = *child.answer;
  MESSAGE("the CUDA backend's cuFile here: " << (why.empty() ? std::string("usable") : why));
  if (why.empty()) return;
  const bool known = why.find("built without cufile.h") != std::string::npos ||
                     why.find("cannot be loaded") != std::string::npos ||
                     why.find("/proc/modules") != std::string::npos;
  CHECK_MESSAGE(known, why);
}

}  // namespace alloy::test
