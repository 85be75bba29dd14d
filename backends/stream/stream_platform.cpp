// Enumerates the devices of a stream-model API into an alloy platform.
#include "stream_platform.hpp"

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "stream_check.hpp"
#include "stream_device.hpp"

namespace alloy::stream {
namespace {

class StreamPlatform final : public OwningPlatform {
 public:
  StreamPlatform(const StreamApi& api, const std::string& load_problem) : api_(api) {
    if (!load_problem.empty()) {
      add_problem(load_problem);
      return;
    }
    const detail::HandledErrorScope handled;  // failures become the reason
    try {
      enumerate();
    } catch (const std::exception& error) {
      add_problem(error.what());
    }
  }

  std::string_view name() const override { return api_.backend; }

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
        add_device(std::make_unique<StreamDevice>(api_, ordinal, std::move(info)));
      } catch (const Error& error) {
        // One broken device must not hide the others.
        add_problem(error.what());
      }
    }
    if (has_devices() && !problems().empty()) log_warning(api_.api + ": " + problems());
  }

  const StreamApi& api_;
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
