// CLBlast's SGEMM with the parameters it ships (its database's, or its
// defaults for a device it does not know), as bench_kernels' baseline.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace alloy::bench {

class ClblastGemm {
 public:
  /// For n × n matrices on the OpenCL device called `device_name`.
  ClblastGemm(const std::string& device_name, std::size_t n);
  ~ClblastGemm();
  ClblastGemm(const ClblastGemm&) = delete;
  ClblastGemm& operator=(const ClblastGemm&) = delete;

  /// Why there is no baseline (CLBlast not built in, no such device, an
  /// error of CLBlast's); empty when there is one.
  const std::string& why_not() const { return why_not_; }
  /// C = A × B, waiting for every kernel CLBlast ran.
  void run();

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::string why_not_;
};

}  // namespace alloy::bench
