// Memory layouts: how arrays of records and 2D arrays lie on a device, how
// the host describes its own layout once, and the conversions between them.
//
// A kernel reads a record field as FIELD(p, i, x) and a matrix element as
// AT2(p, r, c); the defines made here turn those into the chosen layout's
// indexing (docs/kernels.md, "Layouts"). The host keeps its data as it is.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "alloy/kernel_args.hpp"

namespace alloy {

/// One field of a record, as a kernel sees it: a name and a scalar type.
struct FieldFormat {
  std::string name;
  ScalarType type = ScalarType::f32;
};

/// One field of the host's record type: where it lies in the host struct.
struct HostField {
  std::string name;
  ScalarType type = ScalarType::f32;
  std::size_t offset = 0;  ///< offsetof(Record, field)
};

/// The host's record type: its fields and sizeof the struct. Fields a kernel
/// does not name are never copied to a device.
///
///     struct Particle { float x, y, z, mass; int id; };
///     const alloy::HostRecord particle = alloy::host_record<Particle>(
///         "Particle", {ALLOY_HOST_FIELD(Particle, x), ALLOY_HOST_FIELD(Particle, y),
///                      ALLOY_HOST_FIELD(Particle, z), ALLOY_HOST_FIELD(Particle, mass),
///                      ALLOY_HOST_FIELD(Particle, id)});
struct HostRecord {
  std::string name;
  std::vector<HostField> fields;
  std::size_t size = 0;  ///< sizeof the host struct: the distance between records

  /// The fields as a kernel would see them, in the host's order.
  std::vector<FieldFormat> format() const;
  /// The host's field for a device field; InvalidArgument naming both when
  /// the host has no field of that name, or holds it as another type.
  const HostField& field_for(const FieldFormat& wanted) const;
  /// Throws InvalidArgument naming the record when a field name is not an
  /// identifier or repeats, or a field lies outside the struct or misaligned.
  void validate() const;
};

template <class Record>
HostRecord host_record(std::string name, std::vector<HostField> fields) {
  return {std::move(name), std::move(fields), sizeof(Record)};
}

template <class Field>
HostField host_field(std::string name, std::size_t offset) {
  return {std::move(name), scalar_type_of<Field>(), offset};
}

/// A HostField for `Record::member`, named as the member.
#define ALLOY_HOST_FIELD(Record, member) \
  ::alloy::host_field<decltype(Record::member)>(#member, offsetof(Record, member))

/// How an array of records lies on a device.
struct RecordLayout {
  enum class Kind {
    aos,    ///< array of structures: each record's fields together
    soa,    ///< structure of arrays: one array per field
    aosoa,  ///< blocks of `width` records, each block a structure of arrays
  };
  Kind kind = Kind::aos;
  std::size_t width = 1;  ///< aosoa: records per block

  /// "aos", "soa", "aosoa:8"; nothing for other text.
  static std::optional<RecordLayout> parse(std::string_view text);
  std::string to_string() const;
  bool operator==(const RecordLayout&) const = default;
};

/// Where every field of every record lies when `fields` are laid out as
/// `layout`.
///
/// Device records are packed: aos puts the fields in the given order, each at
/// its natural alignment (as a C struct would), so a host struct with exactly
/// these fields has the same bytes; soa and aosoa order the field arrays by
/// decreasing size, which keeps every element aligned. An aosoa array holds
/// whole blocks: its last block is padded.
class RecordPlacement {
 public:
  /// Throws InvalidArgument for no fields, a repeated field name, a name that
  /// is not an identifier, or an aosoa width of 0.
  RecordPlacement(std::vector<FieldFormat> fields, RecordLayout layout);

  const std::vector<FieldFormat>& fields() const { return fields_; }
  RecordLayout layout() const { return layout_; }
  /// Device bytes of `count` records.
  std::size_t bytes(std::size_t count) const;
  /// Byte offset of `field` (an index into fields()) of `record`, of `count`.
  std::size_t offset(std::size_t record, std::size_t field, std::size_t count) const;

  /// The -D options that make FIELD(parameter, i, name) read this layout in
  /// a kernel, where `count` is the kernel expression holding the record
  /// count (a scalar parameter's name; only soa reads it).
  std::string defines(std::string_view parameter, std::string_view count) const;

 private:
  std::vector<FieldFormat> fields_;
  RecordLayout layout_;
  // Per field: aos, its byte offset in a record; soa and aosoa, the bytes of
  // the field arrays before its own in one record's worth of them.
  std::vector<std::size_t> field_offsets_;
  std::size_t record_bytes_ = 0;  // aos: the padded record; soa, aosoa: the fields' sizes summed
  std::size_t block_bytes_ = 0;   // aosoa: one block, padded to the widest field
};

/// Copies `count` host records into `device` (placement.bytes(count) bytes)
/// and back. Throws InvalidArgument when the host record lacks one of the
/// placement's fields or holds it with another type, or a span is too short.
/// Padding the layout adds is written as zero bytes.
void pack_records(const HostRecord& host, std::span<const std::byte> records, std::size_t count,
                  const RecordPlacement& placement, std::span<std::byte> device);
void unpack_records(const RecordPlacement& placement, std::span<const std::byte> device, std::size_t count,
                    const HostRecord& host, std::span<std::byte> records);

/// How a 2D array of one scalar type lies in memory.
struct MatrixLayout {
  enum class Kind {
    row_major,     ///< rows one after another, each `pad`-aligned in length
    column_major,  ///< columns one after another, each `pad`-aligned in length
    tiles,         ///< square tiles of tile × tile, row-major inside and across
  };
  Kind kind = Kind::row_major;
  std::size_t pad = 1;   ///< row_major, column_major: the pitch is a multiple of it
  std::size_t tile = 1;  ///< tiles: the tile's edge
  /// row_major, column_major: the pitch is an odd multiple of `pad`. A pitch
  /// of a power-of-two bytes puts an element and its neighbours across
  /// lines in the same cache set; an odd number of pads (of whole cache
  /// lines) starts each line in another set.
  bool odd = false;

  /// "row_major", "column_major", "padded:16" (row-major, rows padded to
  /// multiples of 16 elements), "column_padded:16", "odd_padded:16" (to an
  /// odd multiple of 16: a 1024-wide row takes 1040), "column_odd_padded:16",
  /// "tiles:8"; nothing for other text.
  static std::optional<MatrixLayout> parse(std::string_view text);
  std::string to_string() const;
  /// row_major, column_major: the distance between lines of `length` elements.
  std::size_t pitch(std::size_t length) const;
  bool operator==(const MatrixLayout&) const = default;
};

/// A matrix as the host holds it. The pitch is the distance in elements
/// between rows (row-major) or columns (column-major); 0 means packed.
struct HostMatrix {
  std::size_t rows = 0;
  std::size_t columns = 0;
  bool column_major = false;
  std::size_t pitch = 0;
  ScalarType element = ScalarType::f32;

  /// Elements in a row (row-major) or a column (column-major).
  std::size_t line_length() const { return column_major ? rows : columns; }
  /// The distance between lines, the packed one for a pitch of 0.
  std::size_t line_pitch() const { return pitch != 0 ? pitch : line_length(); }
  /// Elements the host's array must hold.
  std::size_t elements() const;
  /// Throws InvalidArgument when the pitch is shorter than a row (column).
  void validate() const;
};

/// Where every element of a rows × columns matrix lies in `layout`.
class MatrixPlacement {
 public:
  /// Throws InvalidArgument for a pad or tile of 0.
  MatrixPlacement(ScalarType element, MatrixLayout layout);

  ScalarType element() const { return element_; }
  MatrixLayout layout() const { return layout_; }
  /// Elements the device array holds, padding included.
  std::size_t elements(std::size_t rows, std::size_t columns) const;
  std::size_t index(std::size_t row, std::size_t column, std::size_t rows, std::size_t columns) const;
  /// Rows and columns the device array spans, padding included: the pitch
  /// pads rows (columns), tiles pad both.
  std::pair<std::size_t, std::size_t> padded_extent(std::size_t rows, std::size_t columns) const;

  /// The -D options that make AT2(parameter, r, c) index this layout, with
  /// `rows` and `columns` the kernel expressions holding the matrix's size.
  std::string defines(std::string_view parameter, std::string_view rows, std::string_view columns) const;

 private:
  ScalarType element_;
  MatrixLayout layout_;
};

/// Copies the host matrix into `device` (placement.elements(rows, columns)
/// elements, padding zeroed) and back. Throws InvalidArgument when the
/// element types differ or a span is too short.
void pack_matrix(const HostMatrix& host, std::span<const std::byte> matrix, const MatrixPlacement& placement,
                 std::span<std::byte> device);
void unpack_matrix(const MatrixPlacement& placement, std::span<const std::byte> device, const HostMatrix& host,
                   std::span<std::byte> matrix);

}  // namespace alloy
