// Turns CUDA/HIP status codes into alloy errors naming the call and device.
#pragma once

#include <string>

#include "stream_api.hpp"

namespace alloy::stream {

/// Throws BackendError unless `status` is the API's success code.
void check(const StreamApi& api, Status status, const char* call, const std::string& device);

/// For destructors: logs a failure and carries on.
void check_in_destructor(const StreamApi& api, Status status, const char* call,
                         const std::string& device);

}  // namespace alloy::stream
