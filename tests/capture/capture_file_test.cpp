// Capture files: what is written is read back whole, and a file that is
// corrupt, truncated, hostile or of another version is refused with an
// error naming it, never read as something else.
#include <cstring>
#include <fstream>
#include <random>

#include "alloy/capture.hpp"
#include "alloy/dialect.hpp"
#include "support/capture_bytes.hpp"
#include "support/layout_kernels.hpp"
#include "support/temporary_folder.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

// A launch of record_advance over `n` particles, as a capture holds it.
Capture sample_capture(int n) {
  Capture capture;
  capture.kernel = record_advance_kernel();
  capture.problem = Extent(std::size_t(n));
  capture.configuration = {2};
  capture.device = "a device";
  capture.range = LaunchRange(Extent(std::size_t((n + 15) / 16 * 16)), Extent(16));
  capture.arguments = {KernelArg::from(n), std::size_t(0)};
  CapturedBuffer particles;
  particles.parameter = "particles";
  particles.host = particle_record();
  particles.written = true;
  std::mt19937 random(7);
  for (int i = 0; i < n * int(sizeof(Particle)); ++i) particles.input.push_back(std::byte(random()));
  particles.output = particles.input;
  particles.output[3] = std::byte(0x5a);
  capture.buffers = {particles};
  return capture;
}

void refused(const std::filesystem::path& file, const std::string& why) {
  CAPTURE(why);
  try {
    read_capture(file);
    FAIL("read a file that should have been refused: " << why);
  } catch (const InvalidArgument& error) {
    const std::string message = error.what();
    CHECK(message.find(file.string()) != std::string::npos);
    CHECK(message.find(why) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("Capture.File.round_trips_every_part") {
  TemporaryFolder folder("capture");
  const Capture written = sample_capture(37);
  const std::filesystem::path file = folder.path / capture_file_name(written.kernel.name, written.problem);
  write_capture(file, written);
  CHECK(std::filesystem::file_size(file) == written.file_bytes());
  const Capture read = read_capture(file);
  CHECK(read.kernel.description_hash() == written.kernel.description_hash());
  CHECK(read.kernel.source.source == written.kernel.source.source);
  CHECK(read.problem.size == written.problem.size);
  CHECK(read.problem.dimensions == written.problem.dimensions);
  CHECK(read.configuration == written.configuration);
  CHECK(read.device == written.device);
  CHECK(read.range.global.size == written.range.global.size);
  REQUIRE(read.range.local);
  CHECK(read.range.local->size == written.range.local->size);
  CHECK(read.defines() == written.defines());
  CHECK(read.defines().find("ALLOY_particles_") != std::string::npos);
  REQUIRE(read.arguments.size() == 2);
  const KernelArg& n = std::get<KernelArg>(read.arguments[0]);
  int value = 0;
  std::memcpy(&value, n.value.data(), sizeof value);
  CHECK(n.scalar_type == ScalarType::i32);
  CHECK(value == 37);
  CHECK(std::get<std::size_t>(read.arguments[1]) == 0);
  REQUIRE(read.buffers.size() == 1);
  CHECK(read.buffers[0].parameter == "particles");
  CHECK(read.buffers[0].written);
  CHECK(read.buffers[0].input == written.buffers[0].input);
  CHECK(read.buffers[0].output == written.buffers[0].output);
  REQUIRE(read.buffers[0].host);
  const HostRecord& record = std::get<HostRecord>(*read.buffers[0].host);
  CHECK(record.size == sizeof(Particle));
  CHECK(record.fields.size() == particle_record().fields.size());
  CHECK(record.fields[3].offset == particle_record().fields[3].offset);
}

TEST_CASE("Capture.File.refuses_corrupt_truncated_hostile_and_foreign_files") {
  TemporaryFolder folder("capture");
  const std::filesystem::path good = folder.path / "good.alloycap";
  write_capture(good, sample_capture(64));
  const std::string bytes = bytes_of(good);
  const std::filesystem::path bad = folder.path / "bad.alloycap";

  SUBCASE("one byte flipped anywhere") {
    std::mt19937 random(11);
    for (int trial = 0; trial < 20; ++trial) {
      std::string corrupt = bytes;
      const std::size_t at = 20 + random() % (corrupt.size() - 20);
      corrupt[at] = char(corrupt[at] ^ (1 << (random() % 8)));
      put(bad, corrupt);
      refused(bad, "checksum");
    }
  }
  SUBCASE("truncated at every length class") {
    for (const std::size_t length : {std::size_t(0), std::size_t(5), std::size_t(19), std::size_t(27), bytes.size() / 2,
                                     bytes.size() - 1}) {
      put(bad, bytes.substr(0, length));
      CAPTURE(length);
      refused(bad, length < 20 ? "not an alloy capture file" : length < 28 ? "truncated" : "checksum");
    }
  }
  SUBCASE("another format") {
    put(bad, "{\"kernels\": []}" + std::string(40, ' '));
    refused(bad, "not an alloy capture file");
  }
  SUBCASE("another version") {
    std::string other = bytes;
    const std::uint32_t version = capture_format_version + 1;
    std::memcpy(other.data() + 8, &version, 4);
    put(bad, other);
    refused(bad, "format version " + std::to_string(version));
  }
  SUBCASE("larger than allowed") {
    CHECK_THROWS_WITH_AS(read_capture(good, 100), doctest::Contains("more than the 100 allowed"), InvalidArgument);
  }
  SUBCASE("a description longer than the file") {
    std::string lying = bytes;
    const std::uint64_t length = std::uint64_t(1) << 40;
    std::memcpy(lying.data() + 12, &length, 8);
    lying.resize(lying.size() - 8);
    const std::uint64_t checksum = stable_hash(lying);
    lying.append(reinterpret_cast<const char*>(&checksum), 8);
    put(bad, lying);
    refused(bad, "longer than the file");
  }
  // Hostile descriptions with a valid checksum.
  const std::string description = description_of(bytes);
  auto hostile = [&](const std::string& from, const std::string& to, const std::string& why) {
    const std::size_t at = description.find(from);
    REQUIRE(at != std::string::npos);
    std::string changed = description;
    changed.replace(at, from.size(), to);
    put(bad, with_description(bytes, changed));
    refused(bad, why);
  };
  SUBCASE("buffer bytes outside the data") {
    hostile("\"offset\":0}", "\"offset\":18446744073709551000}", "reaches outside");
  }
  SUBCASE("not JSON") { hostile("{\"arguments\"", "{{\"arguments\"", "not valid JSON"); }
  SUBCASE("an argument naming no buffer") { hostile("{\"buffer\":0}", "{\"buffer\":7}", "names a buffer"); }
  SUBCASE("a scalar where the kernel takes a buffer") {
    hostile("{\"buffer\":0}", "{\"scalar\":{\"bits\":0,\"type\":\"int\"}}", "a scalar where the kernel takes a buffer");
  }
  SUBCASE("a configuration of the wrong length") { hostile("\"configuration\":[2]", "\"configuration\":[2,1]", "one value per"); }
  SUBCASE("a zero problem size") { hostile("\"size\":[64,1,1]", "\"size\":[0,1,1]", "between 1 and 2^40"); }
  SUBCASE("an unknown scalar type") { hostile("\"type\":\"int\"", "\"type\":\"quad\"", "no scalar type"); }
  SUBCASE("records that do not fill the buffer") { hostile("\"size\":32", "\"size\":40", "whole number"); }
  SUBCASE("a kernel the source does not declare") {
    hostile("\"kernel\":\"record_advance\"", "\"kernel\":\"missing\"", "does not declare kernel");
  }
  SUBCASE("a tuning space that does not validate") { hostile("\"default\":0", "\"default\":9", "not among its values"); }
  // Each part well formed, the whole reaching past the data: refused before
  // anything launches it.
  SUBCASE("a problem its launch does not follow") {
    hostile("\"problem\":{\"dimensions\":1,\"size\":[64,1,1]}",
            "\"problem\":{\"dimensions\":1,\"size\":[1099511627776,1,1]}", "is not the one its configuration gives");
  }
  SUBCASE("a problem and launch 64 times larger than the data") {
    std::string changed = description;
    for (const std::string& from : {std::string("\"size\":[64,1,1]"), std::string("\"global\":[64,1,1]")}) {
      const std::size_t at = changed.find(from);
      REQUIRE(at != std::string::npos);
      changed.replace(at, from.size(), from.substr(0, from.find('[')) + "[4096,1,1]");
    }
    put(bad, with_description(bytes, changed));
    refused(bad, "more than any of its buffers holds (at most 64)");
  }
  SUBCASE("a record count past the records held") {
    hostile("{\"scalar\":{\"bits\":64,", "{\"scalar\":{\"bits\":2147483647,", "'n' = 2147483647 records of 'particles'");
  }
  SUBCASE("a negative record count") {
    hostile("{\"scalar\":{\"bits\":64,", "{\"scalar\":{\"bits\":4294967295,", "is not a count of 0 or more");
  }
}

TEST_CASE("Capture.File.names_and_patterns") {
  CHECK(capture_file_name("user.n body/1", Extent(64, 2)) == "user.n_body_1.64x2.alloycap");
  CHECK(capture_pattern_matches("user.*", "user.nbody"));
  CHECK(capture_pattern_matches("*body", "user.nbody"));
  CHECK(capture_pattern_matches("a,user.nb?dy", "user.nbody"));
  CHECK(capture_pattern_matches("*", "x"));
  CHECK_FALSE(capture_pattern_matches("user.*", "alloy.gemm"));
  CHECK_FALSE(capture_pattern_matches("user.nbody", "user.nbody2"));
  CHECK_FALSE(capture_pattern_matches("", "user.nbody"));
  CHECK_FALSE(capture_pattern_matches(",", "user.nbody"));
}

}  // namespace alloy::test
