// The emulated plugin's entry: emulated devices, made only when
// ALLOY_EMULATED_DEVICES asks for them (docs/emulated.md).
#include <cstdlib>
#include <exception>
#include <string>

#include "alloy/plugin.hpp"
#include "emulated_api.hpp"
#include "stream_platform.hpp"

namespace alloy::emulation {
namespace {

Platform* create_platform() noexcept {
  const char* spec = std::getenv("ALLOY_EMULATED_DEVICES");
  if (spec == nullptr || *spec == '\0') {
    return stream::create_platform(api(), "ALLOY_EMULATED_DEVICES is not set: emulated devices are made only "
                                          "when asked for, e.g. ALLOY_EMULATED_DEVICES=pcie5");
  }
  try {
    use_machine_model(parse_machine_model(spec));
  } catch (const std::exception& error) {
    return stream::create_platform(api(), std::string("ALLOY_EMULATED_DEVICES=") + spec + ": " + error.what());
  }
  return stream::create_platform(api(), "");
}

}  // namespace
}  // namespace alloy::emulation

ALLOY_DEFINE_PLUGIN(alloy::emulation::create_platform)
