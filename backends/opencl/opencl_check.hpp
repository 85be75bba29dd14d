// Turns OpenCL status codes into alloy errors that name the call and device.
#pragma once

#include <string>
#include <string_view>

#include "opencl_api.hpp"

namespace alloy::opencl {

/// "CL_OUT_OF_RESOURCES" for -5; "unknown OpenCL error" for codes not in the spec.
std::string_view error_name(cl_int status);

/// Throws BackendError for any status other than CL_SUCCESS.
/// `device` is the label of the device the call was for (may be empty).
void check(cl_int status, std::string_view call, const std::string& device);

/// For destructors: logs a failure and carries on.
void check_in_destructor(cl_int status, std::string_view call, const std::string& device);

}  // namespace alloy::opencl
