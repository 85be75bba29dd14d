// Enumerates the devices of a stream-model API into an alloy platform.
#include "stream_platform.hpp"

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "stream_check.hpp"
#include "stream_device.hpp"

namespace alloy::stream {
namespace {

class StreamPlatform final : public Platform {
 public:
  StreamPlatform(const StreamApi& api, const std::string& load_problem) : api_(api) {
    if (!load_problem.empty()) {
      reason_ = load_problem;
      return;
    }
    const detail::HandledErrorScope handled;  // failures become the reason
    try {
      enumerate();
    } catch (const std::exception& error) {
      reason_ = error.what();
    }
    if (devices_.empty() && reason_.empty()) reason_ = "0 devices";
  }

  std::string_view name() const override { return api_.backend; }

  std::vector<Device*> devices() override {
    std::vector<Device*> devices;
    for (auto& device : devices_) devices.push_back(device.get());
    return devices;
  }

  std::string unavailable_reason() const override { return devices_.empty() ? reason_ : ""; }

 private:
  void enumerate() {
    int count = 0;
    check(api_, api_.device_count(&count), api_.device_count.name, api_.api);
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      try {
        DeviceInfo info;
        check(api_, api_.device_info(ordinal, &info), api_.device_info.name,
              api_.backend + ":" + std::to_string(ordinal));
        info.backend = api_.backend;
        auto device = std::make_unique<StreamDevice>(api_, ordinal, std::move(info));
        device->set_index(devices_.size());
        devices_.push_back(std::move(device));
      } catch (const Error& error) {
        // One broken device must not hide the others.
        reason_ += std::string(reason_.empty() ? "" : "; ") + error.what();
      }
    }
    if (!devices_.empty() && !reason_.empty()) log_warning(api_.api + ": " + reason_);
  }

  const StreamApi& api_;
  std::vector<std::unique_ptr<StreamDevice>> devices_;
  std::string reason_;
};

}  // namespace

Platform* create_platform(const StreamApi& api, const std::string& load_problem) noexcept {
  try {
    return new StreamPlatform(api, load_problem);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace alloy::stream
