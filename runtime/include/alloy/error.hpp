// alloy's exception hierarchy: every failure a user can see is one of these.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace alloy {

/// Base of every error alloy throws. Setting ALLOY_ABORT_ON_ERROR=1 makes the
/// construction of any alloy error that would reach the program print its
/// message and abort, so a debugger stops where the error is raised.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
};

/// A vendor API call failed. Carries the API ("OpenCL", "CUDA", "HIP"), the
/// call, the vendor's numeric code and its name, so callers can branch on it.
class BackendError : public Error {
 public:
  BackendError(std::string api, std::string call, std::int64_t vendor_code,
               std::string vendor_code_name, std::string device, std::string hint);

  const std::string& api() const noexcept { return api_; }
  const std::string& call() const noexcept { return call_; }
  std::int64_t vendor_code() const noexcept { return vendor_code_; }
  const std::string& vendor_code_name() const noexcept { return vendor_code_name_; }
  const std::string& device() const noexcept { return device_; }

 private:
  std::string api_;
  std::string call_;
  std::int64_t vendor_code_;
  std::string vendor_code_name_;
  std::string device_;
};

/// Kernel source failed to compile; the message holds the compiler's log.
class CompileError : public Error {
 public:
  CompileError(const std::string& program_name, const std::vector<std::string>& kernel_names,
               const std::string& device, const std::string& log);

  const std::string& log() const noexcept { return log_; }

 private:
  std::string log_;
};

/// A caller passed something alloy can check up front and reject: a wrong
/// kernel argument, a launch geometry the device or kernel cannot take, a size
/// above a device limit.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// The device ran out of memory for an allocation it could otherwise take.
class OutOfDeviceMemory : public Error {
 public:
  using Error::Error;
};

namespace detail {

/// While one exists on the current thread, ALLOY_ABORT_ON_ERROR ignores the
/// errors raised: for code that catches and handles them itself (a missing
/// driver becomes a reason in alloy-info, a stale cache file is rebuilt).
class HandledErrorScope {
 public:
  HandledErrorScope();
  ~HandledErrorScope();
  HandledErrorScope(const HandledErrorScope&) = delete;
  HandledErrorScope& operator=(const HandledErrorScope&) = delete;
};

}  // namespace detail
}  // namespace alloy
