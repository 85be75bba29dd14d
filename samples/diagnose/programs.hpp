// The diagnose sample's three programs, each deliberately held back by one
// cause, and each in the form alloy's features fix.
#pragma once

#include <string>
#include <string_view>

#include "alloy/alloy.hpp"

namespace diagnose {

enum class Program {
  transfer_bound,  ///< one kernel between a large copy in and a large copy out
  launch_bound,    ///< thousands of tiny kernels, one after the other
  untuned,         ///< a tunable gemm on its defaults: no profile matched
};

/// "transfer-bound", "launch-bound", "untuned".
std::string_view name(Program program);

/// What one program did, and whether its results are right.
struct Outcome {
  bool verified = false;
  std::string summary;  ///< e.g. "16777216 floats polished, all exact"
};

/// What the kernels compute and how long they take on emulated devices
/// (ALLOY_EMULATED_DEVICES), which run no device code.
void define_emulated_models();

/// The device `choice` names: an index into runtime.devices(), or a backend
/// name for that backend's first device; nullptr when there is none.
alloy::Device* find_device(alloy::Runtime& runtime, const std::string& choice);

/// Runs `program` on the executor's first device, in its fixed form when
/// `fixed`: streamed through alloy::Pipeline, fused into one task, or (for
/// untuned, which is the same code) tuned by the profiles the runtime has.
Outcome run(alloy::Executor& executor, Program program, bool fixed);

}  // namespace diagnose
