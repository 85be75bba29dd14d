// The emulated driver's table of calls, for the plugin and for tests of the
// driver's rules.
#pragma once

#include "machine_model.hpp"
#include "stream_api.hpp"

namespace alloy::emulation {

/// Every call of the emulated driver, as the stream-model code takes them.
const stream::StreamApi& api();

/// Makes `model` the machine the calls emulate: its devices, rules and
/// times. Commands already queued keep the model they started with.
void use_machine_model(MachineModel model);

}  // namespace alloy::emulation
