// Arrays of records on a device: aos, soa and aosoa placements, their kernel
// defines, and the copies between them and the host's struct.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>

#include "alloy/dialect.hpp"
#include "alloy/error.hpp"
#include "alloy/layout.hpp"
#include "layout_arithmetic.hpp"

namespace alloy {
namespace {

using layout_detail::positive_after;
using layout_detail::round_up;

void check_names(std::string_view what, const std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (!is_identifier(name)) {
      throw InvalidArgument(std::string(what) + ": field name '" + name + "' is not an identifier");
    }
    if (!seen.insert(name).second) {
      throw InvalidArgument(std::string(what) + ": field '" + name + "' appears twice");
    }
  }
}

void check_spans(const HostRecord& host, std::size_t count, std::size_t host_bytes, const RecordPlacement& placement,
                 std::size_t device_bytes) {
  host.validate();
  if (host.size != 0 && count > host_bytes / host.size) {  // count * size could wrap
    throw InvalidArgument("record " + host.name + ": " + std::to_string(count) + " records of " +
                          std::to_string(host.size) + " bytes need more host bytes than the span's " +
                          std::to_string(host_bytes));
  }
  if (device_bytes < placement.bytes(count)) {
    throw InvalidArgument("record " + host.name + ": " + std::to_string(count) + " records in " +
                          placement.layout().to_string() + " need " + std::to_string(placement.bytes(count)) +
                          " device bytes, the span has " + std::to_string(device_bytes));
  }
}

// Copies every field of every record, host to device or back: `copy` gets
// (host element, device element, bytes). Field by field, so that each inner
// loop walks one field's elements (contiguous in soa).
template <class Copy>
void for_each_element(const HostRecord& host, std::size_t count, const RecordPlacement& placement, Copy copy) {
  for (std::size_t f = 0; f < placement.fields().size(); ++f) {
    const FieldFormat& field = placement.fields()[f];
    const std::size_t host_offset = host.field_for(field).offset;
    const std::size_t bytes = size_of(field.type);
    for (std::size_t r = 0; r < count; ++r) {
      copy(r * host.size + host_offset, placement.offset(r, f, count), bytes);
    }
  }
}

}  // namespace

std::vector<FieldFormat> HostRecord::format() const {
  std::vector<FieldFormat> formats;
  for (const HostField& field : fields) formats.push_back({field.name, field.type});
  return formats;
}

const HostField& HostRecord::field_for(const FieldFormat& wanted) const {
  const auto found =
      std::find_if(fields.begin(), fields.end(), [&](const HostField& f) { return f.name == wanted.name; });
  if (found == fields.end()) {
    throw InvalidArgument("record " + name + " has no field '" + wanted.name + "' for the device layout");
  }
  if (found->type != wanted.type) {
    throw InvalidArgument("record " + name + ": field '" + wanted.name + "' is " + std::string(to_string(found->type)) +
                          " on the host but " + std::string(to_string(wanted.type)) + " on the device");
  }
  return *found;
}

void HostRecord::validate() const {
  std::vector<std::string> names;
  for (const HostField& field : fields) names.push_back(field.name);
  check_names("record " + name, names);
  for (const HostField& field : fields) {
    const std::size_t bytes = size_of(field.type);
    // Compared without adding, which an offset near 2^64 (from a damaged
    // capture, say) would wrap past the end into the record.
    if (bytes > size || field.offset > size - bytes || field.offset % bytes != 0) {
      throw InvalidArgument("record " + name + ": field '" + field.name + "' at offset " +
                            std::to_string(field.offset) + " does not lie aligned inside a " +
                            std::to_string(size) + "-byte record");
    }
    // Every record's copy of the field must be aligned too: devices load
    // fields as their type.
    if (size % bytes != 0) {
      throw InvalidArgument("record " + name + ": a " + std::to_string(size) + "-byte record leaves field '" +
                            field.name + "' of " + std::to_string(bytes) + " bytes misaligned in every other record");
    }
  }
}

std::optional<RecordLayout> RecordLayout::parse(std::string_view text) {
  if (text == "aos") return RecordLayout{Kind::aos, 1};
  if (text == "soa") return RecordLayout{Kind::soa, 1};
  if (const auto width = positive_after(text, "aosoa:")) return RecordLayout{Kind::aosoa, *width};
  return std::nullopt;
}

std::string RecordLayout::to_string() const {
  switch (kind) {
    case Kind::aos: return "aos";
    case Kind::soa: return "soa";
    case Kind::aosoa: return "aosoa:" + std::to_string(width);
  }
  return "aos";
}

RecordPlacement::RecordPlacement(std::vector<FieldFormat> fields, RecordLayout layout)
    : fields_(std::move(fields)), layout_(layout), field_offsets_(fields_.size()) {
  if (fields_.empty()) throw InvalidArgument("a record layout needs at least one field");
  std::vector<std::string> names;
  for (const FieldFormat& field : fields_) names.push_back(field.name);
  check_names("record layout", names);
  if (layout_.kind == RecordLayout::Kind::aosoa && layout_.width == 0) {
    throw InvalidArgument("an aosoa layout needs a width of at least 1");
  }
  std::size_t widest = 1;
  for (const FieldFormat& field : fields_) widest = std::max(widest, size_of(field.type));
  if (layout_.kind == RecordLayout::Kind::aos) {
    std::size_t end = 0;
    for (std::size_t f = 0; f < fields_.size(); ++f) {
      const std::size_t bytes = size_of(fields_[f].type);
      field_offsets_[f] = round_up(end, bytes);
      end = field_offsets_[f] + bytes;
    }
    record_bytes_ = round_up(end, widest);
    return;
  }
  // Wider field arrays first: sizes are powers of two, so every array then
  // starts at a multiple of its element size.
  std::vector<std::size_t> order(fields_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return size_of(fields_[a].type) > size_of(fields_[b].type); });
  std::size_t before = 0;
  for (std::size_t f : order) {
    field_offsets_[f] = before;
    before += size_of(fields_[f].type);
  }
  record_bytes_ = before;
  // Blocks start at multiples of the widest field.
  block_bytes_ = round_up(before * layout_.width, widest);
}

std::size_t RecordPlacement::bytes(std::size_t count) const {
  switch (layout_.kind) {
    case RecordLayout::Kind::aos: return count * record_bytes_;
    case RecordLayout::Kind::soa: return count * record_bytes_;
    case RecordLayout::Kind::aosoa: {
      const std::size_t blocks = (count + layout_.width - 1) / layout_.width;
      return blocks * block_bytes_;
    }
  }
  return 0;
}

std::size_t RecordPlacement::offset(std::size_t record, std::size_t field, std::size_t count) const {
  const std::size_t bytes = size_of(fields_[field].type);
  switch (layout_.kind) {
    case RecordLayout::Kind::aos: return record * record_bytes_ + field_offsets_[field];
    case RecordLayout::Kind::soa: return field_offsets_[field] * count + record * bytes;
    case RecordLayout::Kind::aosoa:
      return record / layout_.width * block_bytes_ + field_offsets_[field] * layout_.width +
             record % layout_.width * bytes;
  }
  return 0;
}

std::string RecordPlacement::defines(std::string_view parameter, std::string_view count) const {
  if (!is_identifier(parameter)) {
    throw InvalidArgument("record layout: kernel parameter '" + std::string(parameter) + "' is not an identifier");
  }
  if (!is_identifier(count)) {
    throw InvalidArgument("record layout of " + std::string(parameter) + ": the record count '" +
                          std::string(count) + "' must name a kernel parameter");
  }
  const std::string prefix = " -DALLOY_" + std::string(parameter) + "_";
  std::string options = prefix + "KIND=" + std::to_string(static_cast<int>(layout_.kind)) + prefix +
                        "WIDTH=" + std::to_string(layout_.width) + prefix + "BLOCK=" + std::to_string(block_bytes_) +
                        prefix + "RECORD=" + std::to_string(record_bytes_) + prefix + "COUNT=" + std::string(count);
  for (std::size_t f = 0; f < fields_.size(); ++f) {
    const std::string field = prefix + fields_[f].name + "_";
    options += field + "TYPE=" + std::string(to_string(fields_[f].type)) + field + "OFFSET=" +
               std::to_string(field_offsets_[f]) + field + "SIZE=" + std::to_string(size_of(fields_[f].type));
  }
  return options.substr(1);
}

void pack_records(const HostRecord& host, std::span<const std::byte> records, std::size_t count,
                  const RecordPlacement& placement, std::span<std::byte> device) {
  check_spans(host, count, records.size(), placement, device.size());
  std::fill_n(device.begin(), placement.bytes(count), std::byte{0});
  for_each_element(host, count, placement, [&](std::size_t host_at, std::size_t device_at, std::size_t bytes) {
    std::memcpy(device.data() + device_at, records.data() + host_at, bytes);
  });
}

void unpack_records(const RecordPlacement& placement, std::span<const std::byte> device, std::size_t count,
                    const HostRecord& host, std::span<std::byte> records) {
  check_spans(host, count, records.size(), placement, device.size());
  for_each_element(host, count, placement, [&](std::size_t host_at, std::size_t device_at, std::size_t bytes) {
    std::memcpy(records.data() + host_at, device.data() + device_at, bytes);
  });
}

}  // namespace alloy
