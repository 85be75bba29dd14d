// The capture file: a fixed header, a JSON description, the buffers' bytes
// and a checksum over all of it.
//
//   "ALLOYCAP"  8 bytes
//   version     u32, little-endian
//   json bytes  u64, little-endian
//   json        the description: kernel, problem, configuration, arguments,
//               and per buffer where its bytes lie in the data that follows
//   data        the buffers' input and output bytes, one after another
//   checksum    u64, little-endian: stable_hash of everything before it
#include "alloy/capture.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <system_error>
#include <type_traits>

#include <unistd.h>

#include "alloy/dialect.hpp"
#include "alloy/error.hpp"
#include "alloy/scalar_dispatch.hpp"
#include "tunable_kernel_json.hpp"

namespace alloy {
namespace {

using nlohmann::json;

static_assert(std::endian::native == std::endian::little, "capture files are written little-endian as they lie");

constexpr char magic[8] = {'A', 'L', 'L', 'O', 'Y', 'C', 'A', 'P'};
constexpr std::size_t prefix_bytes = sizeof magic + sizeof(std::uint32_t) + sizeof(std::uint64_t);
constexpr std::size_t checksum_bytes = sizeof(std::uint64_t);

json scalar_to_json(const KernelArg& scalar) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, scalar.value.data(), sizeof bits);
  return {{"type", to_string(scalar.scalar_type)}, {"bits", bits}};
}

json description(const Capture& capture) {
  json arguments = json::array();
  for (const CapturedArgument& argument : capture.arguments) {
    if (const auto* buffer = std::get_if<std::size_t>(&argument)) {
      arguments.push_back({{"buffer", *buffer}});
    } else {
      arguments.push_back({{"scalar", scalar_to_json(std::get<KernelArg>(argument))}});
    }
  }
  json buffers = json::array();
  std::size_t offset = 0;
  for (const CapturedBuffer& buffer : capture.buffers) {
    json entry = {{"parameter", buffer.parameter},
                  {"read", buffer.read},
                  {"written", buffer.written},
                  {"input", {{"offset", offset}, {"bytes", buffer.input.size()}}}};
    offset += buffer.input.size();
    if (buffer.written) {
      entry["output"] = {{"offset", offset}, {"bytes", buffer.output.size()}};
      offset += buffer.output.size();
    }
    if (buffer.host) entry["host_layout"] = detail::to_json(*buffer.host);
    buffers.push_back(std::move(entry));
  }
  const LaunchRange& range = capture.range;
  json local = range.local ? json(range.local->size) : json(nullptr);
  return {{"kernel", detail::to_json(capture.kernel)},
          {"problem", {{"size", capture.problem.size}, {"dimensions", capture.problem.dimensions}}},
          {"configuration", capture.configuration},
          {"device", capture.device},
          {"source_hash", capture.source_hash()},
          {"defines", capture.defines()},
          {"range", {{"global", range.global.size}, {"dimensions", range.global.dimensions}, {"local", local}}},
          {"arguments", std::move(arguments)},
          {"buffers", std::move(buffers)}};
}

template <class T>
void append(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

template <class T>
T load(const char* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

// Reads and checks one capture file; errors name it.
struct Reader {
  std::filesystem::path path;

  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidArgument("capture file " + path.string() + ": " + what +
                          "; capture the launch again (ALLOY_CAPTURE, docs/capture.md)");
  }

  std::string contents(std::size_t size_limit) const {
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    if (error) fail("cannot be read (" + error.message() + ")");
    if (size > size_limit) {
      fail("is " + std::to_string(size) + " bytes, more than the " + std::to_string(size_limit) + " allowed");
    }
    std::ifstream in(path, std::ios::binary);
    std::string bytes(std::size_t(size), '\0');
    if (!in.read(bytes.data(), std::streamsize(size))) fail("cannot be read");
    return bytes;
  }

  void check_frame(const std::string& bytes) const {
    if (bytes.size() < prefix_bytes || std::memcmp(bytes.data(), magic, sizeof magic) != 0) {
      fail("is not an alloy capture file (it does not start with ALLOYCAP)");
    }
    const auto version = load<std::uint32_t>(bytes.data() + sizeof magic);
    if (version != capture_format_version) {
      fail("has format version " + std::to_string(version) + "; this build reads version " +
           std::to_string(capture_format_version));
    }
    if (bytes.size() < prefix_bytes + checksum_bytes) fail("is truncated");
    const std::size_t body = bytes.size() - checksum_bytes;
    const auto stored = load<std::uint64_t>(bytes.data() + body);
    if (stable_hash(std::string_view(bytes.data(), body)) != stored) {
      fail("does not match its checksum: it is truncated or corrupt");
    }
  }

  // A [offset, offset + bytes) piece of the data, checked to lie in it.
  std::vector<std::byte> piece(const json& where_json, const std::string& where, std::string_view data) const {
    const std::uint64_t offset = detail::unsigned_member(where_json, "offset", where);
    const std::uint64_t bytes = detail::unsigned_member(where_json, "bytes", where);
    if (offset > data.size() || bytes > data.size() - offset) fail(where + " reaches outside the file's data");
    const auto* begin = reinterpret_cast<const std::byte*>(data.data() + offset);
    return {begin, begin + bytes};
  }

  Extent extent(const json& value, const char* key, const std::string& where) const {
    const json& size = detail::member(value, key, where);
    const std::uint64_t dimensions = detail::unsigned_member(value, "dimensions", where);
    if (!size.is_array() || size.size() != 3 || dimensions < 1 || dimensions > 3) {
      fail(where + " is not a size of 1 to 3 dimensions");
    }
    Extent extent;
    for (unsigned d = 0; d < 3; ++d) {
      if (!size[d].is_number_unsigned() || size[d].get<std::uint64_t>() == 0 ||
          size[d].get<std::uint64_t>() > (std::uint64_t(1) << 40)) {
        fail(where + " has a size that is not between 1 and 2^40");
      }
      extent.size[d] = size[d].get<std::size_t>();
    }
    extent.dimensions = unsigned(dimensions);
    return extent;
  }

  KernelArg scalar(const json& value, const std::string& where) const {
    KernelArg argument;
    argument.kind = KernelArg::Kind::scalar;
    argument.scalar_type = detail::scalar_type_member(value, "type", where);
    const std::uint64_t bits = detail::unsigned_member(value, "bits", where);
    std::memcpy(argument.value.data(), &bits, sizeof bits);
    return argument;
  }

  Capture parse(const json& document, std::string_view data) const {
    Capture capture;
    capture.kernel = detail::tunable_kernel_from_json(detail::member(document, "kernel", "the description"), "kernel");
    const json& problem = detail::member(document, "problem", "the description");
    capture.problem = extent(problem, "size", "problem");
    const json& configuration = detail::member(document, "configuration", "the description");
    if (!configuration.is_array() || configuration.size() != capture.kernel.parameters.size()) {
      fail("the configuration does not give one value per tuning parameter of the kernel");
    }
    for (const json& value : configuration) {
      if (!value.is_number_integer()) fail("the configuration holds a value that is not an integer");
      capture.configuration.push_back(value.get<std::int64_t>());
    }
    capture.device = detail::string_member(document, "device", "the description");
    const json& range = detail::member(document, "range", "the description");
    capture.range.global = extent(range, "global", "range");
    const json& local = detail::member(range, "local", "range");
    if (!local.is_null()) {
      json local_extent = {{"size", local}, {"dimensions", capture.range.global.dimensions}};
      capture.range.local = extent(local_extent, "size", "range local");
    }
    const json& buffers = detail::member(document, "buffers", "the description");
    if (!buffers.is_array()) fail("\"buffers\" is not an array");
    for (std::size_t b = 0; b < buffers.size(); ++b) {
      const std::string where = "buffer " + std::to_string(b);
      const json& entry = buffers[b];
      CapturedBuffer buffer;
      buffer.parameter = detail::string_member(entry, "parameter", where);
      const json& written = detail::member(entry, "written", where);
      if (!written.is_boolean()) fail(where + ": \"written\" is not true or false");
      buffer.written = written.get<bool>();
      const json& read = detail::member(entry, "read", where);
      if (!read.is_boolean()) fail(where + ": \"read\" is not true or false");
      buffer.read = read.get<bool>();
      if (!buffer.read && !buffer.written) fail(where + ": it is neither read nor written");
      buffer.input = piece(detail::member(entry, "input", where), where + " input", data);
      if (buffer.written) {
        buffer.output = piece(detail::member(entry, "output", where), where + " output", data);
        if (buffer.output.size() != buffer.input.size()) fail(where + ": its output and input differ in size");
      }
      if (entry.contains("host_layout")) {
        buffer.host = detail::host_layout_from_json(entry["host_layout"], where + " host layout");
      }
      capture.buffers.push_back(std::move(buffer));
    }
    const json& arguments = detail::member(document, "arguments", "the description");
    if (!arguments.is_array()) fail("\"arguments\" is not an array");
    for (std::size_t a = 0; a < arguments.size(); ++a) {
      const std::string where = "argument " + std::to_string(a);
      const json& entry = arguments[a];
      if (entry.is_object() && entry.contains("buffer")) {
        const std::uint64_t index = detail::unsigned_member(entry, "buffer", where);
        if (index >= capture.buffers.size()) fail(where + " names a buffer the file does not hold");
        capture.arguments.emplace_back(std::size_t(index));
      } else {
        capture.arguments.emplace_back(scalar(detail::member(entry, "scalar", where), where));
      }
    }
    return capture;
  }
};

// Each buffer's parameter is a pointer parameter of the kernel that its
// argument passes it as, and each host layout covers the bytes held.
KernelSignature check_against_kernel(const Capture& capture, const Reader& reader) {
  const std::optional<KernelSignature> signature =
      find_kernel_signature(capture.kernel.source.source, capture.kernel.kernel_name);
  if (!signature) reader.fail("its source does not declare kernel '" + capture.kernel.kernel_name + "' once");
  if (signature->parameters.size() != capture.arguments.size()) {
    reader.fail("it holds " + std::to_string(capture.arguments.size()) + " arguments for a kernel of " +
                std::to_string(signature->parameters.size()) + " parameters");
  }
  for (std::size_t a = 0; a < capture.arguments.size(); ++a) {
    const KernelParameter& parameter = signature->parameters[a];
    const bool pointer = parameter.kind == KernelParameter::Kind::global_pointer ||
                         parameter.kind == KernelParameter::Kind::constant_pointer;
    const auto* buffer = std::get_if<std::size_t>(&capture.arguments[a]);
    if (pointer != (buffer != nullptr)) {
      reader.fail("argument " + std::to_string(a) + " ('" + parameter.name + "') is " +
                  (buffer ? "a buffer where the kernel takes a scalar" : "a scalar where the kernel takes a buffer"));
    }
    if (buffer && capture.buffers[*buffer].parameter != parameter.name) {
      reader.fail("buffer " + std::to_string(*buffer) + " is for '" + capture.buffers[*buffer].parameter +
                  "' but passed as '" + parameter.name + "'");
    }
  }
  for (const CapturedBuffer& buffer : capture.buffers) {
    if (!buffer.host) continue;
    if (const auto* record = std::get_if<HostRecord>(&*buffer.host)) {
      if (record->size == 0 || buffer.input.size() % record->size != 0) {
        reader.fail("buffer '" + buffer.parameter + "' is not a whole number of " + record->name + " records");
      }
    } else {
      const HostMatrix& matrix = std::get<HostMatrix>(*buffer.host);
      constexpr std::size_t most = std::size_t(1) << 31;
      if (matrix.rows > most || matrix.columns > most || matrix.pitch > most ||
          static_cast<long double>(matrix.elements()) * size_of(matrix.element) >
              static_cast<long double>(buffer.input.size())) {
        reader.fail("buffer '" + buffer.parameter + "' is smaller than the matrix its host layout describes");
      }
    }
  }
  return *signature;
}

// The launch the file describes, checked before anything runs it: a
// description whose parts each look right can still send a kernel far past
// its buffers (a problem, a launch or a record count larger than the data
// held), which a device reports by crashing, not with an error.
class BoundsCheck {
 public:
  BoundsCheck(const Capture& capture, const KernelSignature& signature, const Reader& reader)
      : capture_(capture), signature_(signature), reader_(reader) {}

  void check() const {
    check_configuration_and_launch();
    for (const RecordArgument& records : capture_.kernel.records) check_records(records);
    for (const MatrixArgument& matrix : capture_.kernel.matrices) check_matrix(matrix);
    check_problem_fits_the_data();
  }

 private:
  // The configuration is one the kernel allows, and the launch that ran is
  // the one it gives for the problem.
  void check_configuration_and_launch() const {
    DeviceLimits unlimited;  // the device's own limits are the tuner's to check
    unlimited.max_work_group_size = SIZE_MAX;
    unlimited.max_work_item_sizes = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    unlimited.local_memory_bytes = SIZE_MAX;
    if (auto why = check_configuration(capture_.kernel, capture_.configuration, capture_.problem, unlimited)) {
      reader_.fail("its configuration " + describe(capture_.kernel, capture_.configuration) +
                   " is not one the kernel allows at problem " + capture_.problem.to_string() + ": " + *why);
    }
    const LaunchRange expected = configured_launch(capture_.kernel, capture_.configuration, capture_.problem);
    const auto same = [](const Extent& a, const Extent& b) { return a.dimensions == b.dimensions && a.size == b.size; };
    const bool same_local = expected.local.has_value() == capture_.range.local.has_value() &&
                            (!expected.local || same(*expected.local, *capture_.range.local));
    if (!same(expected.global, capture_.range.global) || !same_local) {
      reader_.fail("its launch (" + launch_text(capture_.range) + ") is not the one its configuration gives problem " +
                   capture_.problem.to_string() + " (" + launch_text(expected) + ")");
    }
  }

  static std::string launch_text(const LaunchRange& range) {
    return "global " + range.global.to_string() + ", local " + (range.local ? range.local->to_string() : "the driver's");
  }

  // A record argument's count may not reach past the records its buffer holds.
  void check_records(const RecordArgument& records) const {
    const CapturedBuffer* buffer = buffer_for(records.parameter);
    if (!buffer) return;
    std::size_t record_bytes = 0;
    if (buffer->host) {
      if (const auto* record = std::get_if<HostRecord>(&*buffer->host)) record_bytes = record->size;
    }
    if (record_bytes == 0) {
      for (const FieldFormat& field : records.fields) record_bytes += size_of(field.type);
    }
    const std::uint64_t count = bound(records.count, "the record count of '" + records.parameter + "'");
    const std::uint64_t held = buffer->input.size() / std::max<std::size_t>(record_bytes, 1);
    if (count > held) {
      reader_.fail("'" + records.count + "' = " + std::to_string(count) + " records of '" + records.parameter +
                   "', whose buffer holds " + std::to_string(held));
    }
  }

  // A matrix argument's rows and columns may not reach past its buffer.
  void check_matrix(const MatrixArgument& matrix) const {
    const CapturedBuffer* buffer = buffer_for(matrix.parameter);
    if (!buffer) return;
    const std::uint64_t rows = bound(matrix.rows, "the rows of '" + matrix.parameter + "'");
    const std::uint64_t columns = bound(matrix.columns, "the columns of '" + matrix.parameter + "'");
    const long double needed = static_cast<long double>(rows) * static_cast<long double>(columns) *
                               static_cast<long double>(size_of(matrix.element));
    if (needed > static_cast<long double>(buffer->input.size())) {
      reader_.fail("'" + matrix.rows + "' x '" + matrix.columns + "' = " + std::to_string(rows) + " x " +
                   std::to_string(columns) + " elements of '" + matrix.parameter + "', whose buffer holds " +
                   std::to_string(buffer->input.size()) + " bytes");
    }
  }

  // A problem counts the work the launch covers: the data has to hold that
  // many elements somewhere (records, matrix elements or the buffer's
  // element type; bytes where no type is known).
  void check_problem_fits_the_data() const {
    if (capture_.buffers.empty()) return;
    std::uint64_t most = 0;
    for (const CapturedBuffer& buffer : capture_.buffers) most = std::max<std::uint64_t>(most, elements_in(buffer));
    const std::uint64_t problem = capture_.problem.count();
    if (problem > most) {
      reader_.fail("its problem " + capture_.problem.to_string() + " counts " + std::to_string(problem) +
                   " elements, more than any of its buffers holds (at most " + std::to_string(most) + ")");
    }
  }

  std::uint64_t elements_in(const CapturedBuffer& buffer) const {
    const std::size_t bytes = buffer.input.size();
    if (buffer.host) {
      if (const auto* record = std::get_if<HostRecord>(&*buffer.host)) return bytes / std::max<std::size_t>(record->size, 1);
      const auto& matrix = std::get<HostMatrix>(*buffer.host);
      return std::uint64_t(matrix.rows) * matrix.columns;
    }
    for (const KernelParameter& parameter : signature_.parameters) {
      if (parameter.name != buffer.parameter) continue;
      if (const std::optional<ScalarType> type = pointee_scalar_type(parameter.declared_type)) {
        return bytes / size_of(*type);
      }
    }
    return bytes;
  }

  const CapturedBuffer* buffer_for(const std::string& parameter) const {
    for (const CapturedBuffer& buffer : capture_.buffers) {
      if (buffer.parameter == parameter) return &buffer;
    }
    return nullptr;
  }

  // The integer scalar passed as kernel parameter `name`, which bounds what
  // the kernel touches: a negative or non-integer value is refused.
  std::uint64_t bound(const std::string& name, const std::string& what) const {
    for (std::size_t a = 0; a < signature_.parameters.size(); ++a) {
      if (signature_.parameters[a].name != name) continue;
      const auto* scalar = std::get_if<KernelArg>(&capture_.arguments[a]);
      if (!scalar) break;
      const std::optional<std::int64_t> value = integer_value(*scalar);
      if (!value || *value < 0) {
        reader_.fail("'" + name + "', " + what + ", is not a count of 0 or more");
      }
      return std::uint64_t(*value);
    }
    reader_.fail("it passes no scalar '" + name + "' for " + what);
  }

  static std::optional<std::int64_t> integer_value(const KernelArg& scalar) {
    return with_scalar_type(scalar.scalar_type, [&](auto zero) -> std::optional<std::int64_t> {
      using T = decltype(zero);
      if constexpr (std::is_floating_point_v<T>) {
        return std::nullopt;
      } else {
        T value;
        std::memcpy(&value, scalar.value.data(), sizeof value);
        if constexpr (std::is_same_v<T, std::uint64_t>) {
          if (value > std::uint64_t(INT64_MAX)) return std::nullopt;
        }
        return static_cast<std::int64_t>(value);
      }
    });
  }

  const Capture& capture_;
  const KernelSignature& signature_;
  const Reader& reader_;
};

}  // namespace

std::string Capture::defines() const { return configured_source(kernel, configuration).options; }

std::size_t Capture::file_bytes() const {
  std::size_t bytes = prefix_bytes + description(*this).dump().size() + checksum_bytes;
  for (const CapturedBuffer& buffer : buffers) bytes += buffer.input.size() + buffer.output.size();
  return bytes;
}

void write_capture(const std::filesystem::path& path, const Capture& capture) {
  const std::string text = description(capture).dump();
  std::string bytes(magic, sizeof magic);
  append(bytes, capture_format_version);
  append(bytes, std::uint64_t(text.size()));
  bytes += text;
  for (const CapturedBuffer& buffer : capture.buffers) {
    bytes.append(reinterpret_cast<const char*>(buffer.input.data()), buffer.input.size());
    if (buffer.written) bytes.append(reinterpret_cast<const char*>(buffer.output.data()), buffer.output.size());
  }
  append(bytes, stable_hash(bytes));
  // A reader never sees half a file: written beside it, then renamed over it.
  std::filesystem::path partial = path;
  partial += ".partial." + std::to_string(::getpid());
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out.flush()) {
      std::error_code ignored;
      std::filesystem::remove(partial, ignored);
      throw Error("capture file " + path.string() + ": cannot be written; check that its directory exists and has room");
    }
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) {
    std::filesystem::remove(partial, error);
    throw Error("capture file " + path.string() + ": cannot be replaced (" + error.message() + ")");
  }
}

Capture read_capture(const std::filesystem::path& path, std::size_t size_limit) {
  const Reader reader{path};
  const std::string bytes = reader.contents(size_limit);
  reader.check_frame(bytes);
  const auto text_bytes = load<std::uint64_t>(bytes.data() + sizeof magic + sizeof(std::uint32_t));
  const std::size_t body = bytes.size() - checksum_bytes;
  if (text_bytes > body - prefix_bytes) reader.fail("says its description is longer than the file");
  const std::string_view text(bytes.data() + prefix_bytes, std::size_t(text_bytes));
  const std::string_view data(bytes.data() + prefix_bytes + text_bytes, body - prefix_bytes - std::size_t(text_bytes));
  const json document = json::parse(text, nullptr, false);
  if (document.is_discarded()) reader.fail("its description is not valid JSON");
  try {
    Capture capture = reader.parse(document, data);
    const KernelSignature signature = check_against_kernel(capture, reader);
    BoundsCheck(capture, signature, reader).check();
    return capture;
  } catch (const InvalidArgument& error) {
    const std::string message = error.what();
    if (message.rfind("capture file ", 0) == 0) throw;
    reader.fail(message);
  } catch (const json::exception& error) {
    reader.fail(std::string("its description holds a value of the wrong kind (") + error.what() + ")");
  }
}

std::string capture_file_name(std::string_view kernel, const Extent& problem) {
  std::string name;
  for (const char c : kernel) {
    const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '-' || c == '_';
    name.push_back(kept ? c : '_');
  }
  return name + "." + problem.to_string() + ".alloycap";
}

bool capture_pattern_matches(std::string_view pattern, std::string_view name) {
  // One glob: '*' backtracks to the last star seen.
  auto glob = [](std::string_view p, std::string_view n) {
    std::size_t pi = 0, ni = 0, star = std::string_view::npos, resume = 0;
    while (ni < n.size()) {
      if (pi < p.size() && (p[pi] == '?' || p[pi] == n[ni])) {
        ++pi;
        ++ni;
      } else if (pi < p.size() && p[pi] == '*') {
        star = pi++;
        resume = ni;
      } else if (star != std::string_view::npos) {
        pi = star + 1;
        ni = ++resume;
      } else {
        return false;
      }
    }
    while (pi < p.size() && p[pi] == '*') ++pi;
    return pi == p.size();
  };
  std::size_t begin = 0;
  while (begin <= pattern.size()) {
    const std::size_t comma = std::min(pattern.find(',', begin), pattern.size());
    const std::string_view one = pattern.substr(begin, comma - begin);
    if (!one.empty() && glob(one, name)) return true;
    begin = comma + 1;
  }
  return false;
}

}  // namespace alloy
