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

TEST_CASE("Emulation.Model.storage_is_off_unless_given") {
  CHECK(parse_machine_model("pcie5").storage_bytes_per_second == 0.0);
  CHECK(parse_machine_model("pcie5").describe().find("GPUDirect Storage") == std::string::npos);
  const MachineModel with_storage = parse_machine_model("h100,storage=6.5");
  CHECK(with_storage.storage_bytes_per_second == doctest::Approx(6.5e9));
  CHECK(with_storage.describe().find(", GPUDirect Storage at 6.5 GB/s") != std::string::npos);
  CHECK_THROWS_WITH_AS(parse_machine_model("storage=-1"), doctest::Contains("'storage=-1': out of range"),
                       std::invalid_argument);
}

TEST_CASE("Emulation.Model.gpu_presets_carry_published_figures") {
  const MachineModel h100 = parse_machine_model("h100");
  CHECK(h100.flavor == Flavor::cuda);
  CHECK(h100.memory_bytes == std::size_t{81559} << 20);
  CHECK(h100.memory_bytes_per_second == doctest::Approx(3.35e12));
  CHECK(h100.peer_bytes_per_second == doctest::Approx(450e9));
  CHECK(h100.copy_engines == 3);
  CHECK(h100.compute_units == 132);
  const MachineModel h200 = parse_machine_model("h200,devices=8");
  CHECK(h200.devices == 8);
  CHECK(h200.memory_bytes == std::size_t{143771} << 20);
  CHECK(h200.memory_bytes_per_second == doctest::Approx(4.8e12));
  const MachineModel mi300x = parse_machine_model("mi300x");
  CHECK(mi300x.flavor == Flavor::hip);
  CHECK(mi300x.warp_width == 64);
  CHECK(mi300x.memory_bytes == std::size_t{192} << 30);
  CHECK(mi300x.peer_bytes_per_second == doctest::Approx(64e9));
  CHECK(mi300x.fp64_flops == doctest::Approx(81.7e12));
  // Overrides apply on top of the preset: a node without peer links.
  CHECK(parse_machine_model("h100,peer=0,flavor=hip").peer_bytes_per_second == 0.0);
  CHECK(parse_machine_model("h100,peer=0,flavor=hip").flavor == Flavor::hip);
}

namespace {

std::string refusal(const char* spec) {
  try {
    parse_machine_model(spec);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("Emulation.Model.bad_specs_name_the_part") {
  CHECK(refusal("pcie9").find("pcie9") != std::string::npos);
  CHECK(refusal("pcie5,speed=3").find("unknown key 'speed'") != std::string::npos);
  CHECK(refusal("h2d=fast").find("h2d=fast") != std::string::npos);
  CHECK(refusal("").find("empty") != std::string::npos);
  CHECK(refusal("devices=2,pcie5").find("first only") != std::string::npos);
  CHECK(refusal("flavor=opencl").find("cuda or hip") != std::string::npos);
  CHECK(refusal("data=2").find("1 or 0") != std::string::npos);
}

// Each bad number is refused with its field and the limit it broke: none
// is truncated, wrapped or ignored.
TEST_CASE("Emulation.Model.every_number_is_checked") {
  struct Case {
    const char* spec;
    const char* names;  // the refused part, as given
    const char* limit;  // what the message offers instead
  };
  const Case cases[] = {
      {"pcie5,h2d=nan", "'h2d=nan'", "GB/s in (0, 100000]"},
      {"pcie5,bandwidth=inf", "'bandwidth=inf'", "GB/s in (0, 100000]"},
      {"pcie5,d2h=0", "'d2h=0'", "out of range; give GB/s in (0, 100000]"},
      {"pcie5,memory=99999999999G", "'memory=99999999999G'", "out of range; give a whole number of bytes from 1M to 16T"},
      {"pcie5,memory=1K", "'memory=1K'", "out of range; give a whole number of bytes from 1M to 16T"},
      {"pcie5,memory=1048576.5", "'memory=1048576.5'", "not a whole number of bytes"},
      {"pcie5,memory=lots", "'memory=lots'", "not a size"},
      {"pcie5,latency=1e308", "'latency=1e308'", "microseconds in [0, 1e+06]"},
      {"pcie5,launch=1e12", "'launch=1e12'", "microseconds in [0, 1e+06]"},
      {"pcie5,jitter=-1", "'jitter=-1'", "microseconds in [0, 1e+06]"},
      {"pcie5,devices=2.5", "'devices=2.5'", "not a whole number of devices"},
      {"pcie5,devices=65", "'devices=65'", "devices in [1, 64]"},
      {"pcie5,devices=0", "'devices=0'", "devices in [1, 64]"},
      {"pcie5,copy_engines=4", "'copy_engines=4'", "copy engines in [1, 3]"},
      {"pcie5,compute_units=1.5", "'compute_units=1.5'", "not a whole number of compute units"},
      {"pcie5,pageable=2", "'pageable=2'", "a fraction of the bandwidth in (0, 1]"},
      {"pcie5,item=1e300", "'item=1e300'", "nanoseconds per work-item in [0, 1e+06]"},
      {"pcie5,fp32=-3", "'fp32=-3'", "TFLOP/s in [0, 1e+06]"},
      {"pcie5,peer=1e9", "'peer=1e9'", "GB/s (0: through the host) in [0, 100000]"},
      {"pcie5,memory_bandwidth=", "'memory_bandwidth='", "GB/s in (0, 100000]"},
  };
  for (const Case& c : cases) {
    const std::string message = refusal(c.spec);
    CAPTURE(c.spec);
    CAPTURE(message);
    CHECK(message.find(c.names) != std::string::npos);
    CHECK(message.find(c.limit) != std::string::npos);
  }
  // The largest values allowed are taken as given.
  CHECK(parse_machine_model("pcie5,devices=64").devices == 64);
  CHECK(parse_machine_model("pcie5,memory=16T").memory_bytes == std::size_t{1} << 44);
  CHECK(parse_machine_model("pcie5,copy_engines=3").copy_engines == 3);
}

}  // namespace alloy::emulation
