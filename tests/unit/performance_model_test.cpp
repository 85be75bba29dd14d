// The earliest-finish-time policy's model: medians, outliers, nearest sizes.
#include "alloy/performance_model.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {

TEST_CASE("Unit.PerformanceModel.median_of_recent_samples") {
  PerformanceModel model;
  CHECK_FALSE(model.kernel_seconds(7, 0, 1024));
  for (double seconds : {3.0, 1.0, 2.0}) CHECK(model.record_kernel(7, 0, 1024, seconds));
  CHECK(*model.kernel_seconds(7, 0, 1024) == doctest::Approx(2.0));
  CHECK(model.kernel_samples(7, 0, 1024) == 3);
  // Other devices and kernels have their own history.
  CHECK_FALSE(model.kernel_seconds(7, 1, 1024));
  CHECK_FALSE(model.kernel_seconds(8, 0, 1024));
}

TEST_CASE("Unit.PerformanceModel.one_spike_is_rejected") {
  PerformanceModel model;
  for (int i = 0; i < 5; ++i) model.record_kernel(1, 0, 64, 1e-3);
  CHECK_FALSE(model.record_kernel(1, 0, 64, 1.0));  // a 1000x spike
  CHECK(model.rejected() == 1);
  CHECK(*model.kernel_seconds(1, 0, 64) == doctest::Approx(1e-3));
  // A slower but plausible sample is kept.
  CHECK(model.record_kernel(1, 0, 64, 4e-3));
  CHECK(model.kernel_samples(1, 0, 64) == 6);
}

TEST_CASE("Unit.PerformanceModel.follows_drift_within_the_window") {
  PerformanceModel model;
  for (std::size_t i = 0; i < PerformanceModel::window; ++i) model.record_kernel(1, 0, 64, 1.0);
  // Each step is within the outlier factor, so the model moves to the new level.
  for (std::size_t i = 0; i < PerformanceModel::window; ++i) model.record_kernel(1, 0, 64, 4.0);
  CHECK(*model.kernel_seconds(1, 0, 64) == doctest::Approx(4.0));
}

TEST_CASE("Unit.PerformanceModel.nearest_size_scales_linearly") {
  PerformanceModel model;
  model.record_kernel(5, 0, 1000, 1.0);
  model.record_kernel(5, 0, 1'000'000, 500.0);
  // 2000 is nearest to 1000 on a log scale: twice the work, twice the time.
  CHECK(*model.kernel_seconds(5, 0, 2000) == doctest::Approx(2.0));
  CHECK(*model.kernel_seconds(5, 0, 500'000) == doctest::Approx(250.0));
}

TEST_CASE("Unit.PerformanceModel.bandwidth") {
  PerformanceModel model;
  CHECK(model.bytes_per_second(0) == PerformanceModel::default_bytes_per_second);
  model.record_transfer(0, 1'000'000, 1e-3);
  model.record_transfer(0, 2'000'000, 2e-3);
  CHECK(model.bytes_per_second(0) == doctest::Approx(1e9));
  CHECK_FALSE(model.record_transfer(0, 0, 1.0));
  CHECK_FALSE(model.record_kernel(2, 0, 1, -1.0));
}

}  // namespace alloy::test
