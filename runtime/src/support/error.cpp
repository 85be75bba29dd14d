// Error messages, and the ALLOY_ABORT_ON_ERROR debugging switch.
#include "alloy/error.hpp"

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "environment_flag.hpp"

namespace alloy {
namespace {

thread_local int handled_error_scopes = 0;

std::string abort_if_requested(std::string message) {
  if (handled_error_scopes > 0) return message;
  const char* abort_flag = std::getenv("ALLOY_ABORT_ON_ERROR");
  if (abort_flag == nullptr || *abort_flag == '\0') return message;
  const std::optional<bool> abort_requested = detail::parse_flag(abort_flag);
  // A misspelt switch cannot throw here, in the middle of making an error,
  // without losing that error: the error says so instead.
  if (!abort_requested) return message + " (" + detail::not_a_flag("ALLOY_ABORT_ON_ERROR", abort_flag) + ")";
  if (*abort_requested) {
    std::fprintf(stderr, "alloy: error (ALLOY_ABORT_ON_ERROR=%s): %s\n", abort_flag, message.c_str());
    std::abort();
  }
  return message;
}

std::string backend_message(const std::string& api, const std::string& call,
                            std::int64_t code, const std::string& code_name,
                            const std::string& device, const std::string& hint) {
  std::string message = api + " call " + call + " failed with " + code_name + " (" +
                        std::to_string(code) + ")";
  if (!device.empty()) message += " on " + device;
  if (!hint.empty()) message += ": " + hint;
  return message;
}

std::string kernel_list(const std::vector<std::string>& kernel_names) {
  std::string list;
  for (const std::string& name : kernel_names) list += (list.empty() ? "" : ", ") + name;
  return list.empty() ? "" : " (kernels " + list + ")";
}

}  // namespace

Error::Error(const std::string& message) : std::runtime_error(abort_if_requested(message)) {}

BackendError::BackendError(std::string api, std::string call, std::int64_t vendor_code,
                           std::string vendor_code_name, std::string device, std::string hint)
    : Error(backend_message(api, call, vendor_code, vendor_code_name, device, hint)),
      api_(std::move(api)),
      call_(std::move(call)),
      vendor_code_(vendor_code),
      vendor_code_name_(std::move(vendor_code_name)),
      device_(std::move(device)) {}

CompileError::CompileError(const std::string& program_name,
                           const std::vector<std::string>& kernel_names, const std::string& device,
                           const std::string& log)
    : Error("compiling " + program_name + kernel_list(kernel_names) + " for " + device +
            " failed; fix the kernel source. Compiler log:\n" + log),
      log_(log) {}

namespace detail {

HandledErrorScope::HandledErrorScope() { ++handled_error_scopes; }
HandledErrorScope::~HandledErrorScope() { --handled_error_scopes; }

}  // namespace detail
}  // namespace alloy
