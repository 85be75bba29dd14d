// GPUDirect Storage on emulated devices: a model of cuFile that reads files
// straight into emulated device memory and takes the time the machine
// model gives (storage=<GB/s>), refusing as cuFile does (docs/emulated.md).
#pragma once

#include "direct_storage_api.hpp"

namespace alloy::emulation {

/// The emulated cuFile's calls, as the stream model takes them.
const stream::DirectStorageApi& storage_api();

}  // namespace alloy::emulation
