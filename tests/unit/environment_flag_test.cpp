// Yes/no settings (ALLOY_REPORT, ALLOY_ABORT_ON_ERROR) take the usual
// spellings of on and off, and refuse any other text with a message.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>

#include "alloy/error.hpp"
#include "support/environment_flag.hpp"
#include "executor/executor_state.hpp"
#include "support/scoped_environment.hpp"

namespace alloy::test {
namespace {

using detail::parse_flag;

/// Whether a child process that makes an alloy error, with
/// ALLOY_ABORT_ON_ERROR=`value`, ends by SIGABRT.
bool error_aborts_with(const char* value) {
  std::fflush(nullptr);  // or the child would print the parent's buffered output again
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::setenv("ALLOY_ABORT_ON_ERROR", value, 1);
    // The deliberate abort is neither reported as a crash by doctest's
    // handler nor printed among the test's output.
    std::signal(SIGABRT, SIG_DFL);
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    const Error error("a deliberate error");
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

}  // namespace

TEST_CASE("Settings.Flags.the_usual_spellings_of_on_and_off") {
  for (const char* on : {"1", "true", "yes", "on", "TRUE", "Yes", "ON"}) {
    CAPTURE(on);
    CHECK(parse_flag(on) == true);
  }
  for (const char* off : {"0", "false", "no", "off", "False", "NO"}) {
    CAPTURE(off);
    CHECK(parse_flag(off) == false);
  }
  for (const char* neither : {"", "2", "maybe", "yes!", " 1", "enabled"}) {
    CAPTURE(neither);
    CHECK_FALSE(parse_flag(neither).has_value());
  }
}

TEST_CASE("Settings.Flags.report_turned_on_by_any_spelling") {
  for (const char* on : {"1", "true", "yes"}) {
    const ScopedEnvironment report("ALLOY_REPORT", on);
    CAPTURE(on);
    CHECK(detail::with_tracing_from_environment({}).report);
  }
  const ScopedEnvironment report("ALLOY_REPORT", "off");
  CHECK_FALSE(detail::with_tracing_from_environment({}).report);
}

TEST_CASE("Settings.Flags.a_misspelt_report_setting_is_refused") {
  const ScopedEnvironment report("ALLOY_REPORT", "2");
  CHECK_THROWS_WITH_AS(detail::with_tracing_from_environment({}),
                       doctest::Contains("ALLOY_REPORT=\"2\" is neither on nor off"), InvalidArgument);
}

TEST_CASE("Settings.Flags.abort_on_error_turned_on_by_any_spelling") {
  CHECK(error_aborts_with("1"));
  CHECK(error_aborts_with("true"));
  CHECK(error_aborts_with("yes"));
  CHECK_FALSE(error_aborts_with("0"));
  CHECK_FALSE(error_aborts_with("off"));
}

TEST_CASE("Settings.Flags.a_misspelt_abort_switch_is_named_in_the_error") {
  // It cannot throw in the middle of making an error; the error keeps its
  // own message and says what is wrong with the switch.
  const ScopedEnvironment abort_switch("ALLOY_ABORT_ON_ERROR", "always");
  const Error error("the original message");
  const std::string message = error.what();
  CHECK(message.find("the original message") == 0);
  CHECK(message.find("ALLOY_ABORT_ON_ERROR=\"always\" is neither on nor off") != std::string::npos);
}

}  // namespace alloy::test
