// OpenCL status names and what to do about the common ones.
#include "opencl_check.hpp"

#include "alloy/error.hpp"
#include "alloy/log.hpp"

namespace alloy::opencl {
namespace {

struct StatusName {
  cl_int status;
  std::string_view name;
};

#define ALLOY_CL_STATUS(code) {code, #code}
constexpr StatusName status_names[] = {
    ALLOY_CL_STATUS(CL_SUCCESS),
    ALLOY_CL_STATUS(CL_DEVICE_NOT_FOUND),
    ALLOY_CL_STATUS(CL_DEVICE_NOT_AVAILABLE),
    ALLOY_CL_STATUS(CL_COMPILER_NOT_AVAILABLE),
    ALLOY_CL_STATUS(CL_MEM_OBJECT_ALLOCATION_FAILURE),
    ALLOY_CL_STATUS(CL_OUT_OF_RESOURCES),
    ALLOY_CL_STATUS(CL_OUT_OF_HOST_MEMORY),
    ALLOY_CL_STATUS(CL_PROFILING_INFO_NOT_AVAILABLE),
    ALLOY_CL_STATUS(CL_MEM_COPY_OVERLAP),
    ALLOY_CL_STATUS(CL_IMAGE_FORMAT_MISMATCH),
    ALLOY_CL_STATUS(CL_IMAGE_FORMAT_NOT_SUPPORTED),
    ALLOY_CL_STATUS(CL_BUILD_PROGRAM_FAILURE),
    ALLOY_CL_STATUS(CL_MAP_FAILURE),
    ALLOY_CL_STATUS(CL_MISALIGNED_SUB_BUFFER_OFFSET),
    ALLOY_CL_STATUS(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    ALLOY_CL_STATUS(CL_COMPILE_PROGRAM_FAILURE),
    ALLOY_CL_STATUS(CL_LINKER_NOT_AVAILABLE),
    ALLOY_CL_STATUS(CL_LINK_PROGRAM_FAILURE),
    ALLOY_CL_STATUS(CL_DEVICE_PARTITION_FAILED),
    ALLOY_CL_STATUS(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
    ALLOY_CL_STATUS(CL_INVALID_VALUE),
    ALLOY_CL_STATUS(CL_INVALID_DEVICE_TYPE),
    ALLOY_CL_STATUS(CL_INVALID_PLATFORM),
    ALLOY_CL_STATUS(CL_INVALID_DEVICE),
    ALLOY_CL_STATUS(CL_INVALID_CONTEXT),
    ALLOY_CL_STATUS(CL_INVALID_QUEUE_PROPERTIES),
    ALLOY_CL_STATUS(CL_INVALID_COMMAND_QUEUE),
    ALLOY_CL_STATUS(CL_INVALID_HOST_PTR),
    ALLOY_CL_STATUS(CL_INVALID_MEM_OBJECT),
    ALLOY_CL_STATUS(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
    ALLOY_CL_STATUS(CL_INVALID_IMAGE_SIZE),
    ALLOY_CL_STATUS(CL_INVALID_SAMPLER),
    ALLOY_CL_STATUS(CL_INVALID_BINARY),
    ALLOY_CL_STATUS(CL_INVALID_BUILD_OPTIONS),
    ALLOY_CL_STATUS(CL_INVALID_PROGRAM),
    ALLOY_CL_STATUS(CL_INVALID_PROGRAM_EXECUTABLE),
    ALLOY_CL_STATUS(CL_INVALID_KERNEL_NAME),
    ALLOY_CL_STATUS(CL_INVALID_KERNEL_DEFINITION),
    ALLOY_CL_STATUS(CL_INVALID_KERNEL),
    ALLOY_CL_STATUS(CL_INVALID_ARG_INDEX),
    ALLOY_CL_STATUS(CL_INVALID_ARG_VALUE),
    ALLOY_CL_STATUS(CL_INVALID_ARG_SIZE),
    ALLOY_CL_STATUS(CL_INVALID_KERNEL_ARGS),
    ALLOY_CL_STATUS(CL_INVALID_WORK_DIMENSION),
    ALLOY_CL_STATUS(CL_INVALID_WORK_GROUP_SIZE),
    ALLOY_CL_STATUS(CL_INVALID_WORK_ITEM_SIZE),
    ALLOY_CL_STATUS(CL_INVALID_GLOBAL_OFFSET),
    ALLOY_CL_STATUS(CL_INVALID_EVENT_WAIT_LIST),
    ALLOY_CL_STATUS(CL_INVALID_EVENT),
    ALLOY_CL_STATUS(CL_INVALID_OPERATION),
    ALLOY_CL_STATUS(CL_INVALID_GL_OBJECT),
    ALLOY_CL_STATUS(CL_INVALID_BUFFER_SIZE),
    ALLOY_CL_STATUS(CL_INVALID_MIP_LEVEL),
    ALLOY_CL_STATUS(CL_INVALID_GLOBAL_WORK_SIZE),
    ALLOY_CL_STATUS(CL_INVALID_PROPERTY),
    ALLOY_CL_STATUS(CL_INVALID_IMAGE_DESCRIPTOR),
    ALLOY_CL_STATUS(CL_INVALID_COMPILER_OPTIONS),
    ALLOY_CL_STATUS(CL_INVALID_LINKER_OPTIONS),
    ALLOY_CL_STATUS(CL_INVALID_DEVICE_PARTITION_COUNT),
    ALLOY_CL_STATUS(CL_PLATFORM_NOT_FOUND_KHR),
};
#undef ALLOY_CL_STATUS

std::string_view hint_for(cl_int status) {
  switch (status) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES:
      return "the device ran out of memory or resources; free buffers, use smaller ones or "
             "smaller work-groups";
    case CL_OUT_OF_HOST_MEMORY:
      return "the host ran out of memory";
    case CL_PLATFORM_NOT_FOUND_KHR:
      return "no OpenCL driver (ICD) is installed; install one, e.g. pocl-opencl-icd or a GPU "
             "vendor's driver";
    case CL_INVALID_ARG_SIZE:
    case CL_INVALID_ARG_VALUE:
      return "the value's type does not match the kernel parameter";
    case CL_INVALID_WORK_GROUP_SIZE:
      return "the local size does not fit the kernel or device";
    default:
      return {};
  }
}

}  // namespace

std::string_view error_name(cl_int status) {
  for (const StatusName& known : status_names) {
    if (known.status == status) return known.name;
  }
  return "unknown OpenCL error";
}

void check(cl_int status, std::string_view call, const std::string& device) {
  if (status == CL_SUCCESS) return;
  throw BackendError("OpenCL", std::string(call), status, std::string(error_name(status)), device,
                     std::string(hint_for(status)));
}

void check_in_destructor(cl_int status, std::string_view call, const std::string& device) {
  if (status == CL_SUCCESS) return;
  log_warning("OpenCL call " + std::string(call) + " failed with " +
              std::string(error_name(status)) + " on " + device + " while releasing; ignored");
}

}  // namespace alloy::opencl
