// Turns CUDA/HIP status codes into alloy errors naming the call and device.
#pragma once

#include <string>

#include "stream_api.hpp"

namespace alloy::stream {

/// Faults in a kernel that CUDA and HIP keep for the rest of the process,
/// by the status's name: the context is unusable after them (the drivers'
/// error documentation).
bool is_sticky_fault(const std::string& status_name);

/// What to do about a status, by its name; empty where there is nothing to add.
std::string hint_for(const std::string& status_name);

/// Throws BackendError unless `status` is the API's success code.
void check(const StreamApi& api, Status status, const char* call, const std::string& device);

/// For destructors: logs a failure and carries on.
void check_in_destructor(const StreamApi& api, Status status, const char* call,
                         const std::string& device);

}  // namespace alloy::stream
