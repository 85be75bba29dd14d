// Which cases of a test process were skipped, for ctest: a process runs a
// group of cases, and ctest marks it skipped only when every case in it
// skipped and none failed.
#pragma once

#include <string>

namespace alloy::test {

/// Records that the running case is skipped, and why (test_devices' skip()).
void record_skip(const std::string& reason);

/// Prints the skipped cases after a run. When every case that ran skipped
/// and none failed, prints "alloy-skip: ..." (the tests'
/// SKIP_REGULAR_EXPRESSION), so ctest reports the process as skipped.
void report_skipped_cases(int doctest_result);

}  // namespace alloy::test
