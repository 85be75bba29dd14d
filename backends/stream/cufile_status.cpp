// cuFile's status names and descriptions (cufile.h's CUFILEOP_STATUS_ENTRIES),
// and alloy's advice for the ones a user can act on.
#include "cufile_status.hpp"

#include <cstdlib>

namespace alloy::stream {
namespace {

struct Entry {
  int code;
  const char* name;
  const char* description;
};

constexpr Entry entries[] = {
    {0, "CU_FILE_SUCCESS", "cufile success"},
    {5001, "CU_FILE_DRIVER_NOT_INITIALIZED",
     "nvidia-fs driver is not loaded. Set allow_compat_mode to true in cufile.json file to enable compatible mode"},
    {5002, "CU_FILE_DRIVER_INVALID_PROPS", "invalid property"},
    {5003, "CU_FILE_DRIVER_UNSUPPORTED_LIMIT", "property range error"},
    {5004, "CU_FILE_DRIVER_VERSION_MISMATCH", "nvidia-fs driver version mismatch"},
    {5005, "CU_FILE_DRIVER_VERSION_READ_ERROR", "nvidia-fs driver version read error"},
    {5006, "CU_FILE_DRIVER_CLOSING", "driver shutdown in progress"},
    {5007, "CU_FILE_PLATFORM_NOT_SUPPORTED", "GPUDirect Storage not supported on current platform"},
    {5008, "CU_FILE_IO_NOT_SUPPORTED", "GPUDirect Storage not supported on current file"},
    {5009, "CU_FILE_DEVICE_NOT_SUPPORTED", "GPUDirect Storage not supported on current GPU"},
    {5010, "CU_FILE_NVFS_DRIVER_ERROR", "nvidia-fs driver ioctl error"},
    {5011, "CU_FILE_CUDA_DRIVER_ERROR", "CUDA Driver API error"},
    {5012, "CU_FILE_CUDA_POINTER_INVALID", "invalid device pointer"},
    {5013, "CU_FILE_CUDA_MEMORY_TYPE_INVALID", "invalid pointer memory type"},
    {5014, "CU_FILE_CUDA_POINTER_RANGE_ERROR", "pointer range exceeds allocated address range"},
    {5015, "CU_FILE_CUDA_CONTEXT_MISMATCH", "cuda context mismatch"},
    {5016, "CU_FILE_INVALID_MAPPING_SIZE", "access beyond maximum pinned size"},
    {5017, "CU_FILE_INVALID_MAPPING_RANGE", "access beyond mapped size"},
    {5018, "CU_FILE_INVALID_FILE_TYPE", "unsupported file type"},
    {5019, "CU_FILE_INVALID_FILE_OPEN_FLAG", "unsupported file open flags"},
    {5020, "CU_FILE_DIO_NOT_SET", "fd direct IO not set"},
    {5022, "CU_FILE_INVALID_VALUE", "invalid arguments"},
    {5023, "CU_FILE_MEMORY_ALREADY_REGISTERED", "device pointer already registered"},
    {5024, "CU_FILE_MEMORY_NOT_REGISTERED", "device pointer lookup failure"},
    {5025, "CU_FILE_PERMISSION_DENIED", "driver or file access error"},
    {5026, "CU_FILE_DRIVER_ALREADY_OPEN", "driver is already open"},
    {5027, "CU_FILE_HANDLE_NOT_REGISTERED", "file descriptor is not registered"},
    {5028, "CU_FILE_HANDLE_ALREADY_REGISTERED", "file descriptor is already registered"},
    {5029, "CU_FILE_DEVICE_NOT_FOUND", "GPU device not found"},
    {5030, "CU_FILE_INTERNAL_ERROR", "internal error"},
    {5031, "CU_FILE_GETNEWFD_FAILED", "failed to obtain new file descriptor"},
    {5033, "CU_FILE_NVFS_SETUP_ERROR", "NVFS driver initialization error"},
    {5034, "CU_FILE_IO_DISABLED", "GPUDirect Storage disabled by config on current file"},
    {5035, "CU_FILE_BATCH_SUBMIT_FAILED", "failed to submit batch operation"},
    {5036, "CU_FILE_GPU_MEMORY_PINNING_FAILED", "failed to allocate pinned GPU Memory"},
    {5037, "CU_FILE_BATCH_FULL", "queue full for batch operation"},
    {5038, "CU_FILE_ASYNC_NOT_SUPPORTED", "cuFile stream operation not supported"},
    {5039, "CU_FILE_INTERNAL_BATCH_SETUP_ERROR", "batch setup internal error - retry later"},
    {5040, "CU_FILE_INTERNAL_BATCH_SUBMIT_ERROR", "batch submit internal error - retry later"},
    {5041, "CU_FILE_INTERNAL_BATCH_GETSTATUS_ERROR", "batch get status internal error - retry later"},
    {5042, "CU_FILE_INTERNAL_BATCH_CANCEL_ERROR", "batch cancel internal error - retry later"},
    {5043, "CU_FILE_NOMEM_ERROR", "cufile no memory error - retry later"},
    {5044, "CU_FILE_IO_ERROR", "cufile io error"},
    {5045, "CU_FILE_INTERNAL_BUF_REGISTER_ERROR", "cufile buf registration error"},
    {5046, "CU_FILE_HASH_OPR_ERROR", "cufile hash operation error"},
    {5047, "CU_FILE_INVALID_CONTEXT_ERROR", "cufile invalid context error"},
    {5048, "CU_FILE_NVFS_INTERNAL_DRIVER_ERROR", "nvfs internal driver error"},
    {5049, "CU_FILE_BATCH_NOCOMPAT_ERROR", "compat mode off error"},
    {5050, "CU_FILE_IO_MAX_ERROR", "GPUDirect Storage Max Error"},
};

const Entry* find(int code) {
  for (const Entry& entry : entries) {
    if (entry.code == std::abs(code)) return &entry;
  }
  return nullptr;
}

/// What to do, for the codes where there is something.
const char* advice(int code) {
  switch (code) {
    case cufile_driver_not_initialized:
      return "load the nvidia-fs kernel module (modprobe nvidia_fs), or allow compat mode, in which cuFile "
             "reads through host memory itself (cufile.json: CUFILE_ENV_PATH_JSON, else /etc/cufile.json)";
    case 5004:
    case 5005:
      return "install the nvidia-fs kernel module of this libcufile's GPUDirect Storage release";
    case cufile_platform_not_supported:
    case 5009:
      return "this machine or GPU cannot move data between storage and GPU memory directly (no peer-to-peer "
             "DMA between them)";
    case cufile_io_not_supported:
    case 5034:
      return "keep the file on a file system GPUDirect Storage supports (ext4 or xfs on local NVMe, or a "
             "parallel file system with GDS support), or allow compat mode in cufile.json";
    case cufile_cuda_driver_error:
      return "the CUDA driver refused; is the GPU in a good state (nvidia-smi)?";
    case cufile_invalid_file_type:
      return "GPUDirect Storage reads regular files only";
    case cufile_invalid_file_open_flag:
    case 5020:
      return "open the file with O_DIRECT";
    case 5025:
      return "give this user access to /dev/nvidia-fs* and the file";
    default:
      return "";
  }
}

}  // namespace

std::string cufile_status_name(StorageStatus status, std::string (*cuda_error_name)(int)) {
  const Entry* entry = find(status.code);
  std::string name = entry ? entry->name : "CU_FILE error " + std::to_string(status.code);
  if (status.code == cufile_cuda_driver_error) {
    const std::string cuda = cuda_error_name ? cuda_error_name(status.driver_code) : "";
    name += " (cu_err " + (cuda.empty() ? "" : cuda + ", ") + std::to_string(status.driver_code) + ")";
  }
  return name;
}

std::string cufile_hint(StorageStatus status) {
  const Entry* entry = find(status.code);
  std::string hint = entry ? entry->description : "";
  const std::string todo = advice(std::abs(status.code));
  if (!todo.empty()) hint += (hint.empty() ? "" : "; ") + todo;
  return hint;
}

}  // namespace alloy::stream
