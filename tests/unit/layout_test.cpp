// Record and matrix layouts: placements that never overlap and stay aligned,
// and host → device → host copies that give back every byte, for random
// record types, sizes and layouts.
#include <cstdlib>
#include <cstring>
#include <random>

#include "alloy/layout.hpp"
#include "alloy/tunable_kernel.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

constexpr ScalarType all_types[] = {ScalarType::i8,  ScalarType::u8,  ScalarType::i16, ScalarType::u16,
                                    ScalarType::i32, ScalarType::u32, ScalarType::i64, ScalarType::u64,
                                    ScalarType::f32, ScalarType::f64};

// ALLOY_LAYOUT_SEED replays one run; otherwise a fresh seed, printed.
unsigned seed() {
  if (const char* text = std::getenv("ALLOY_LAYOUT_SEED")) return static_cast<unsigned>(std::strtoul(text, nullptr, 10));
  return std::random_device{}();
}

// A host struct of 1 to 7 random fields, each naturally aligned after
// random padding, plus bytes no field covers at the end.
HostRecord random_host_record(std::mt19937& random) {
  HostRecord record;
  record.name = "Random";
  const int fields = std::uniform_int_distribution<int>(1, 7)(random);
  std::size_t end = 0;
  for (int f = 0; f < fields; ++f) {
    const ScalarType type = all_types[std::uniform_int_distribution<std::size_t>(0, 9)(random)];
    const std::size_t bytes = size_of(type);
    const std::size_t gap = std::uniform_int_distribution<std::size_t>(0, 2)(random) * bytes;
    const std::size_t offset = (end + bytes - 1) / bytes * bytes + gap;
    record.fields.push_back({std::string("f").append(std::to_string(f)), type, offset});
    end = offset + bytes;
  }
  record.size = (end + 7) / 8 * 8 + std::uniform_int_distribution<std::size_t>(0, 1)(random) * 8;
  return record;
}

RecordLayout random_record_layout(std::mt19937& random) {
  switch (std::uniform_int_distribution<int>(0, 2)(random)) {
    case 0: return {RecordLayout::Kind::aos, 1};
    case 1: return {RecordLayout::Kind::soa, 1};
    default: return {RecordLayout::Kind::aosoa, std::uniform_int_distribution<std::size_t>(1, 9)(random)};
  }
}

std::vector<std::byte> random_bytes(std::mt19937& random, std::size_t count) {
  std::vector<std::byte> bytes(count);
  for (std::byte& b : bytes) b = static_cast<std::byte>(random());
  return bytes;
}

// The host bytes a round trip must give back: the fields', and zero elsewhere.
std::vector<std::byte> fields_only(const HostRecord& record, const std::vector<std::byte>& records, std::size_t count) {
  std::vector<std::byte> kept(records.size());
  for (std::size_t r = 0; r < count; ++r) {
    for (const HostField& field : record.fields) {
      const std::size_t at = r * record.size + field.offset;
      std::copy_n(records.begin() + static_cast<std::ptrdiff_t>(at), size_of(field.type),
                  kept.begin() + static_cast<std::ptrdiff_t>(at));
    }
  }
  return kept;
}

}  // namespace

TEST_CASE("Unit.Layout.records_round_trip_exactly") {
  const unsigned run_seed = seed();
  MESSAGE("ALLOY_LAYOUT_SEED=" << run_seed);
  std::mt19937 random(run_seed);
  for (int trial = 0; trial < 300; ++trial) {
    const HostRecord host = random_host_record(random);
    const RecordPlacement placement(host.format(), random_record_layout(random));
    // Often not a multiple of the aosoa width; sometimes none at all.
    const std::size_t count = std::uniform_int_distribution<std::size_t>(0, 40)(random);
    CAPTURE(trial);
    CAPTURE(placement.layout().to_string());
    CAPTURE(count);
    const std::vector<std::byte> records = random_bytes(random, count * host.size);
    std::vector<std::byte> device = random_bytes(random, placement.bytes(count));
    pack_records(host, records, count, placement, device);

    // Every element lies inside the device array, aligned, and no two share a byte.
    std::vector<int> owners(device.size(), 0);
    for (std::size_t r = 0; r < count; ++r) {
      for (std::size_t f = 0; f < placement.fields().size(); ++f) {
        const std::size_t at = placement.offset(r, f, count);
        const std::size_t bytes = size_of(placement.fields()[f].type);
        REQUIRE(at + bytes <= device.size());
        REQUIRE(at % bytes == 0);
        for (std::size_t b = at; b < at + bytes; ++b) REQUIRE(++owners[b] == 1);
      }
    }
    // Padding is written as zeros, not left as it was.
    for (std::size_t b = 0; b < device.size(); ++b) {
      if (owners[b] == 0) REQUIRE(device[b] == std::byte{0});
    }
    std::vector<std::byte> back(records.size());
    unpack_records(placement, device, count, host, back);
    REQUIRE(back == fields_only(host, records, count));
  }
}

TEST_CASE("Unit.Layout.aos_of_a_plain_struct_is_its_host_bytes") {
  struct Particle {
    float x, y, z;
    double mass;
    int id;
  };
  const HostRecord host = host_record<Particle>(
      "Particle", {ALLOY_HOST_FIELD(Particle, x), ALLOY_HOST_FIELD(Particle, y), ALLOY_HOST_FIELD(Particle, z),
                   ALLOY_HOST_FIELD(Particle, mass), ALLOY_HOST_FIELD(Particle, id)});
  host.validate();
  const RecordPlacement aos(host.format(), {RecordLayout::Kind::aos, 1});
  CHECK(aos.bytes(10) == 10 * sizeof(Particle));
  for (std::size_t f = 0; f < host.fields.size(); ++f) CHECK(aos.offset(3, f, 10) == 3 * sizeof(Particle) + host.fields[f].offset);
  // soa: the doubles first, then the floats and the int, each n long.
  const RecordPlacement soa(host.format(), {RecordLayout::Kind::soa, 1});
  CHECK(soa.offset(0, 3, 10) == 0);
  CHECK(soa.offset(2, 0, 10) == 80 + 2 * 4);
  CHECK(soa.offset(9, 4, 10) == 80 + 3 * 40 + 9 * 4);
}

TEST_CASE("Unit.Layout.matrices_round_trip_exactly") {
  const unsigned run_seed = seed();
  MESSAGE("ALLOY_LAYOUT_SEED=" << run_seed);
  std::mt19937 random(run_seed);
  const std::vector<const char*> layouts = {"row_major", "column_major", "padded:1",          "padded:16",
                                           "column_padded:5", "odd_padded:4", "column_odd_padded:3", "tiles:1",
                                           "tiles:4", "tiles:7"};
  for (int trial = 0; trial < 200; ++trial) {
    HostMatrix host;
    host.rows = std::uniform_int_distribution<std::size_t>(1, 23)(random);
    host.columns = std::uniform_int_distribution<std::size_t>(1, 23)(random);
    host.column_major = random() % 2 == 0;
    host.pitch = random() % 2 == 0 ? 0 : (host.column_major ? host.rows : host.columns) + random() % 4;
    host.element = all_types[std::uniform_int_distribution<std::size_t>(0, 9)(random)];
    const std::optional<MatrixLayout> layout = MatrixLayout::parse(layouts[random() % layouts.size()]);
    REQUIRE(layout);
    CAPTURE(trial);
    CAPTURE(layout->to_string());
    CAPTURE(host.rows);
    CAPTURE(host.columns);
    const MatrixPlacement placement(host.element, *layout);
    const std::size_t element = size_of(host.element);
    const std::vector<std::byte> matrix = random_bytes(random, host.elements() * element);
    std::vector<std::byte> device(placement.elements(host.rows, host.columns) * element);
    pack_matrix(host, matrix, placement, device);
    std::vector<int> owners(placement.elements(host.rows, host.columns), 0);
    for (std::size_t r = 0; r < host.rows; ++r) {
      for (std::size_t c = 0; c < host.columns; ++c) {
        const std::size_t at = placement.index(r, c, host.rows, host.columns);
        REQUIRE(at < owners.size());
        REQUIRE(++owners[at] == 1);
      }
    }
    std::vector<std::byte> back(matrix.size());
    unpack_matrix(placement, device, host, back);
    // The host's pitch gaps are not matrix elements: compare elements only.
    for (std::size_t r = 0; r < host.rows; ++r) {
      for (std::size_t c = 0; c < host.columns; ++c) {
        const std::size_t pitch = host.line_pitch();
        const std::size_t at = (host.column_major ? c * pitch + r : r * pitch + c) * element;
        REQUIRE(std::equal(back.begin() + at, back.begin() + at + element, matrix.begin() + at));
      }
    }
  }
}

// An odd pitch moves each line to another cache set: a power-of-two length
// goes up by one pad, a length already an odd number of pads stays.
TEST_CASE("Unit.Layout.odd_pitches_are_odd_multiples_of_the_pad") {
  const MatrixLayout odd = *MatrixLayout::parse("odd_padded:16");
  CHECK(odd.pitch(1024) == 1040);
  CHECK(odd.pitch(2048) == 2064);
  CHECK(odd.pitch(1000) == 1008);
  CHECK(odd.pitch(1008) == 1008);
  CHECK(odd.pitch(1) == 16);
  CHECK(MatrixLayout::parse("padded:16")->pitch(1024) == 1024);
  const MatrixPlacement placement(ScalarType::f32, odd);
  CHECK(placement.elements(3, 1024) == 3 * 1040);
  CHECK(placement.index(2, 5, 3, 1024) == 2 * 1040 + 5);
  CHECK(MatrixPlacement(ScalarType::f32, *MatrixLayout::parse("column_odd_padded:8")).index(5, 2, 32, 4) == 2 * 40 + 5);
}

TEST_CASE("Unit.Layout.text_forms") {
  for (const char* text : {"aos", "soa", "aosoa:8"}) CHECK(RecordLayout::parse(text)->to_string() == text);
  for (const char* text : {"row_major", "column_major", "padded:16", "column_padded:4", "odd_padded:16",
                           "column_odd_padded:1", "tiles:8"}) {
    CHECK(MatrixLayout::parse(text)->to_string() == text);
  }
  for (const char* bad : {"", "AOS", "aosoa", "aosoa:0", "aosoa:-1", "aosoa:4x", "tiles:", "padded:0", "odd_padded:0"}) {
    CAPTURE(bad);
    CHECK_FALSE(RecordLayout::parse(bad));
    CHECK_FALSE(MatrixLayout::parse(bad));
  }
}

TEST_CASE("Unit.Layout.bad_descriptions_are_refused") {
  struct Pair {
    float a;
    int b;
  };
  HostRecord host = host_record<Pair>("Pair", {ALLOY_HOST_FIELD(Pair, a), ALLOY_HOST_FIELD(Pair, b)});
  CHECK_THROWS_WITH_AS(RecordPlacement({}, {}), doctest::Contains("at least one field"), InvalidArgument);
  CHECK_THROWS_WITH_AS(RecordPlacement({{"a", ScalarType::f32}, {"a", ScalarType::i32}}, {}),
                       doctest::Contains("'a' appears twice"), InvalidArgument);
  CHECK_THROWS_WITH_AS(RecordPlacement({{"a-b", ScalarType::f32}}, {}), doctest::Contains("not an identifier"),
                       InvalidArgument);
  const RecordPlacement wants_c({{"a", ScalarType::f32}, {"c", ScalarType::f32}}, {});
  std::vector<std::byte> records(4 * sizeof(Pair)), device(wants_c.bytes(4));
  CHECK_THROWS_WITH_AS(pack_records(host, records, 4, wants_c, device), doctest::Contains("record Pair has no field 'c'"),
                       InvalidArgument);
  const RecordPlacement b_as_float({{"b", ScalarType::f32}}, {});
  CHECK_THROWS_WITH_AS(pack_records(host, records, 4, b_as_float, device),
                       doctest::Contains("'b' is int on the host but float on the device"), InvalidArgument);
  const RecordPlacement fine(host.format(), {RecordLayout::Kind::soa, 1});
  CHECK_THROWS_WITH_AS(pack_records(host, records, 5, fine, device),
                       doctest::Contains("5 records of 8 bytes need more host bytes than the span's 32"),
                       InvalidArgument);
  // Counts and offsets near 2^64 do not wrap past the checks.
  CHECK_THROWS_AS(pack_records(host, records, std::size_t{1} << 61, fine, device), InvalidArgument);
  HostRecord wrapping = host;
  wrapping.fields.push_back({"flag", ScalarType::u8, ~std::size_t{0}});
  CHECK_THROWS_WITH_AS(wrapping.validate(), doctest::Contains("field 'flag' at offset 18446744073709551615"),
                       InvalidArgument);
  host.fields[1].offset = 6;
  CHECK_THROWS_WITH_AS(host.validate(), doctest::Contains("field 'b' at offset 6 does not lie aligned"),
                       InvalidArgument);
  HostMatrix short_pitch{4, 8, false, 6, ScalarType::f32};
  CHECK_THROWS_WITH_AS(short_pitch.validate(), doctest::Contains("pitch of 6 elements is shorter than a row of 8"),
                       InvalidArgument);
}

// What a queue launch uploads for a matrix argument: the host's matrix in
// the configuration's layout, padding zero.
TEST_CASE("Unit.Layout.matrix_argument_bytes_follow_the_configuration") {
  TunableKernel kernel;
  kernel.name = "test.padded";
  kernel.parameters = {{"ML", {0, 1}, 0, {"row_major", "odd_padded:4"}}};
  kernel.matrices = {{"m", ScalarType::i32, "rows", "columns", "ML"}};
  const HostMatrix host{2, 4, false, 0, ScalarType::i32};
  const std::vector<std::int32_t> values = {1, 2, 3, 4, 5, 6, 7, 8};
  const auto bytes = std::as_bytes(std::span(values));
  auto as_ints = [](const std::vector<std::byte>& device) {
    std::vector<std::int32_t> ints(device.size() / sizeof(std::int32_t));
    std::memcpy(ints.data(), device.data(), device.size());
    return ints;
  };
  CHECK(as_ints(matrix_argument_bytes(kernel, {0}, "m", host, bytes)) == values);
  // A row of 4 is one pad, already odd: odd_padded:4 keeps it; 8 columns become 12.
  CHECK(as_ints(matrix_argument_bytes(kernel, {1}, "m", host, bytes)) == values);
  const HostMatrix wide{1, 8, false, 0, ScalarType::i32};
  CHECK(as_ints(matrix_argument_bytes(kernel, {1}, "m", wide, bytes)) ==
        std::vector<std::int32_t>{1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0});
  CHECK_THROWS_WITH_AS(matrix_argument_bytes(kernel, {0}, "n", host, bytes),
                       doctest::Contains("no matrix argument 'n'"), InvalidArgument);
}

TEST_CASE("Unit.Layout.tunable_kernel_layout_arguments") {
  TunableKernel kernel;
  kernel.name = "test.layouts";
  kernel.source = {"k.cl", "", ""};
  kernel.kernel_name = "k";
  kernel.parameters = {{"RL", {0, 1, 2}, 0, {"aos", "soa", "aosoa:4"}}, {"ML", {0, 1}, 0, {"row_major", "tiles:8"}}};
  kernel.launch = {{0, {}, {}, {1, {}, {}}}};
  kernel.records = {{"points", {{"x", ScalarType::f32}, {"id", ScalarType::i32}}, "n", "RL"}};
  kernel.matrices = {{"grid", ScalarType::f64, "rows", "columns", "ML"}};
  kernel.validate();
  const ProgramSource source = configured_source(kernel, {2, 1});
  CHECK(source.options.find("-DRL=2 -DML=1 -DALLOY_points_KIND=2 -DALLOY_points_WIDTH=4") == 0);
  CHECK(source.options.find("-DALLOY_points_COUNT=n") != std::string::npos);
  CHECK(source.options.find("-DALLOY_points_id_TYPE=int") != std::string::npos);
  CHECK(source.options.find("-DALLOY_grid_ORDER=2 -DALLOY_grid_PAD=1 -DALLOY_grid_TILE=8") != std::string::npos);
  CHECK(record_layout(kernel, kernel.records[0], {1, 0}) == RecordLayout{RecordLayout::Kind::soa, 1});
  CHECK(matrix_layout(kernel, kernel.matrices[0], {1, 1}) == MatrixLayout{MatrixLayout::Kind::tiles, 1, 8});

  TunableKernel unnamed = kernel;
  unnamed.parameters[0].value_names.clear();
  CHECK_THROWS_WITH_AS(unnamed.validate(), doctest::Contains("'RL' must name its values as layouts"), InvalidArgument);
  TunableKernel not_a_layout = kernel;
  not_a_layout.parameters[1].value_names[1] = "diagonal";
  CHECK_THROWS_WITH_AS(not_a_layout.validate(), doctest::Contains("names 'diagonal', which is not a layout"),
                       InvalidArgument);
  TunableKernel bad_count = kernel;
  bad_count.records[0].count = "n + 1";
  CHECK_THROWS_WITH_AS(bad_count.validate(), doctest::Contains("must name a kernel parameter"), InvalidArgument);
  CHECK(kernel.description_hash() != bad_count.description_hash());
}

}  // namespace alloy::test
