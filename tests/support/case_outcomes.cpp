// A doctest listener that tells, per case, whether it ran, skipped or
// failed; see case_outcomes.hpp.
#include "support/case_outcomes.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <mutex>
#include <vector>

namespace alloy::test {
namespace {

struct SkippedCase {
  std::string name;
  std::string reason;
};

struct Outcomes {
  std::mutex mutex;  // skip() may be called from a case's own threads
  std::string current_case;
  std::string current_skip;  // why the running case skipped; empty: it did not
  int cases_run = 0;
  int cases_failed = 0;
  std::vector<SkippedCase> skipped;
};

Outcomes& outcomes() {
  static Outcomes shared;
  return shared;
}

struct OutcomeListener : doctest::IReporter {
  explicit OutcomeListener(const doctest::ContextOptions&) {}

  void test_case_start(const doctest::TestCaseData& data) override {
    const std::lock_guard lock(outcomes().mutex);
    outcomes().current_case = data.m_name;
    outcomes().current_skip.clear();
  }
  void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
    Outcomes& o = outcomes();
    const std::lock_guard lock(o.mutex);
    ++o.cases_run;
    if (!stats.testCaseSuccess) {
      ++o.cases_failed;  // a failure counts even where the case also skipped
    } else if (!o.current_skip.empty()) {
      o.skipped.push_back({o.current_case, o.current_skip});
    }
  }

  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("alloy-case-outcomes", 1, OutcomeListener);

}  // namespace

void record_skip(const std::string& reason) {
  Outcomes& o = outcomes();
  const std::lock_guard lock(o.mutex);
  if (!o.current_skip.empty()) o.current_skip += "; ";
  o.current_skip += reason;
}

void report_skipped_cases(int doctest_result) {
  Outcomes& o = outcomes();
  const std::lock_guard lock(o.mutex);
  if (o.skipped.empty()) return;
  const bool all_skipped = doctest_result == 0 && o.cases_failed == 0 &&
                           static_cast<int>(o.skipped.size()) == o.cases_run;
  std::printf("%s\n", all_skipped ? "alloy-skip: every case skipped:"
                                  : "skipped cases (the others ran):");
  for (const SkippedCase& skipped : o.skipped) {
    std::printf("  %s: %s\n", skipped.name.c_str(), skipped.reason.c_str());
  }
}

}  // namespace alloy::test
