// The one place the OpenCL C++ bindings are configured: OpenCL 1.2 calls only,
// so devices that stop at 1.2 (PoCL reports OpenCL C 1.2) work.
#pragma once

#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>
#include <CL/cl_ext.h>
