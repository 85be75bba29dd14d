// ALLOY_EMULATED_DEVICES as the emulated backend reads it.
#include <doctest/doctest.h>

#include <stdexcept>

#include "machine_model.hpp"

namespace alloy::emulation {

TEST_CASE("Emulation.Model.presets_and_overrides") {
  const MachineModel pcie5 = parse_machine_model("pcie5");
  CHECK(pcie5.preset == "pcie5");
  CHECK(pcie5.host_to_device_bytes_per_second == doctest::Approx(50e9));
  CHECK(pcie5.copy_engines == 2);
  CHECK(pcie5.devices == 1);
  CHECK(pcie5.moves_data);

  const MachineModel custom =
      parse_machine_model("pcie4, devices=2, d2h=10, copy_engines=1, memory=64M, item=0.5, data=0, jitter=20");
  CHECK(custom.host_to_device_bytes_per_second == doctest::Approx(25e9));
  CHECK(custom.device_to_host_bytes_per_second == doctest::Approx(10e9));
  CHECK(custom.devices == 2);
  CHECK(custom.copy_engines == 1);
  CHECK(custom.memory_bytes == std::size_t{64} << 20);
  CHECK(custom.seconds_per_item == doctest::Approx(0.5e-9));
  CHECK(custom.jitter_seconds == doctest::Approx(20e-6));
  CHECK_FALSE(custom.moves_data);
  CHECK(custom.describe().find("time only") != std::string::npos);
}

TEST_CASE("Emulation.Model.bad_specs_name_the_part") {
  auto message = [](const char* spec) {
    try {
      parse_machine_model(spec);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  CHECK(message("pcie9").find("pcie9") != std::string::npos);
  CHECK(message("pcie5,speed=3").find("unknown key 'speed'") != std::string::npos);
  CHECK(message("h2d=fast").find("h2d=fast") != std::string::npos);
  CHECK(message("copy_engines=3").find("1 or 2") != std::string::npos);
  CHECK(message("devices=0").find("at least 1") != std::string::npos);
  CHECK(message("").find("empty") != std::string::npos);
  CHECK(message("devices=2,pcie5").find("first only") != std::string::npos);
}

}  // namespace alloy::emulation
