// Logical buffers: host memory plus device replicas, and the accesses tasks declare.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <variant>
#include <vector>

#include "alloy/backend/memory.hpp"
#include "alloy/interval_set.hpp"
#include "alloy/layout.hpp"

namespace alloy {

class Device;
class BufferStorage;

namespace detail {
struct BufferState;
BufferState& state_of(BufferStorage& storage);
const BufferState& state_of(const BufferStorage& storage);
}  // namespace detail

/// Memory the caller owns and lends to a buffer (see Buffer<T>::borrow).
struct BorrowedMemory {
  std::byte* data = nullptr;
  std::size_t bytes = 0;
  bool read_only = false;  ///< tasks may only read it
};

/// How the host holds a buffer's bytes, for kernels that want them in
/// another layout (TunableKernel::records and ::matrices).
using HostLayout = std::variant<HostRecord, HostMatrix>;

/// The untyped memory behind Buffer<T>: host bytes and an identity. Where the
/// bytes are valid (host, device replicas) is the executor's business, kept
/// in an opaque state; programs see buffers only through Buffer<T> and slices.
class BufferStorage {
 public:
  /// Zeroed host memory: page-locked through `pinned_by`'s backend when
  /// given (transfers then run asynchronously at full speed; the storage
  /// must then not outlive the Runtime), else ordinary memory.
  explicit BufferStorage(std::size_t bytes, Device* pinned_by = nullptr);
  /// The caller's memory, used in place: host-resident (see host_resident()).
  explicit BufferStorage(BorrowedMemory borrowed);
  ~BufferStorage();
  BufferStorage(const BufferStorage&) = delete;
  BufferStorage& operator=(const BufferStorage&) = delete;

  std::size_t size() const { return size_; }
  std::byte* host_data() { return data_; }
  bool pinned() const { return pinned_ != nullptr; }
  /// Borrowed memory never gets device replicas: its bytes stay where the
  /// caller put them, devices reach them only through copy tasks (which
  /// transfer straight between them and a device buffer), and host tasks
  /// use them in place. Kernels cannot take it as an argument.
  bool host_resident() const { return host_resident_; }
  bool read_only() const { return read_only_; }
  /// Unique per storage in this process; orders buffers deterministically.
  std::uint64_t id() const { return id_; }

  /// Says how the host holds these bytes: records of a host struct, or a
  /// matrix. A kernel task that wants the records (matrix) in another layout
  /// on its device then gets a converted copy there, and its writes come
  /// back in this layout. InvalidArgument when the description does not
  /// validate or does not fit the buffer (a record size that does not divide
  /// it, a matrix larger than it). Describe a buffer before tasks use it.
  void describe(HostLayout layout);
  /// The description; nullptr when there is none.
  const HostLayout* host_layout() const { return host_layout_.get(); }

 private:
  friend detail::BufferState& detail::state_of(BufferStorage&);
  friend const detail::BufferState& detail::state_of(const BufferStorage&);

  std::size_t size_;
  std::unique_ptr<HostBuffer> pinned_;
  /// When neither pinned nor borrowed. From calloc: pages nobody touches
  /// (a device-only buffer's, such as a pipeline's slots) cost no memory.
  struct Free {
    void operator()(std::byte* bytes) const;
  };
  std::unique_ptr<std::byte, Free> ordinary_;
  std::byte* data_;
  bool host_resident_ = false;
  bool read_only_ = false;
  std::uint64_t id_;
  std::shared_ptr<const HostLayout> host_layout_;
  std::unique_ptr<detail::BufferState> state_;
};

/// A byte range of one buffer. Overlapping slices conflict, disjoint ones do not.
struct BufferSlice {
  std::shared_ptr<BufferStorage> storage;
  ByteRange range;
};

enum class AccessMode {
  read,        ///< the task reads the slice
  write,       ///< the task overwrites all of it: old contents are not copied in
  read_write,  ///< the task reads and changes it
};

bool reads(AccessMode mode);
bool writes(AccessMode mode);

/// What a task does to a slice; dependencies follow from these.
struct Access {
  BufferSlice slice;
  AccessMode mode = AccessMode::read;
};

/// A typed handle to a logical buffer; copies share the same storage.
///
///   alloy::Buffer<float> x(1024);           // zeroed host memory
///   graph.kernel(..., {alloy::read(x), alloy::write(y.slice(0, 512))});
template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T>, "buffers hold plain data");

 public:
  explicit Buffer(std::size_t count)
      : storage_(std::make_shared<BufferStorage>(count * sizeof(T))), count_(count) {}
  explicit Buffer(std::span<const T> values) : Buffer(values.size()) {
    std::memcpy(storage_->host_data(), values.data(), values.size_bytes());
  }
  /// Host memory page-locked through the device's backend (see BufferStorage).
  Buffer(Device& pinned_by, std::size_t count)
      : storage_(std::make_shared<BufferStorage>(count * sizeof(T), &pinned_by)), count_(count) {}
  Buffer(Device& pinned_by, std::span<const T> values) : Buffer(pinned_by, values.size()) {
    std::memcpy(storage_->host_data(), values.data(), values.size_bytes());
  }

  /// A buffer over the caller's memory, without copying it: host-resident
  /// (BufferStorage::host_resident), for streaming large host arrays through
  /// device buffers chunk by chunk. The memory must outlive every task using
  /// the buffer; the program must not touch it while such tasks run.
  ///
  ///   auto input = alloy::Buffer<float>::borrow_read_only(data);
  ///   graph.copy(input.slice(offset, n), device_chunk.slice(0, n));
  static Buffer borrow(std::span<T> memory) {
    return Buffer(std::make_shared<BufferStorage>(
                      BorrowedMemory{reinterpret_cast<std::byte*>(memory.data()), memory.size_bytes(), false}),
                  memory.size());
  }
  /// The same over memory tasks may only read: a task that would write it
  /// is refused (InvalidArgument).
  static Buffer borrow_read_only(std::span<const T> memory) {
    return Buffer(std::make_shared<BufferStorage>(BorrowedMemory{
                      reinterpret_cast<std::byte*>(const_cast<T*>(memory.data())), memory.size_bytes(), true}),
                  memory.size());
  }

  std::size_t size() const { return count_; }
  BufferSlice whole() const { return slice(0, count_); }
  /// Elements [offset, offset + count).
  BufferSlice slice(std::size_t offset, std::size_t count) const;

  /// The host copy. Current only after Executor::synchronize(*this) (or a
  /// wait() after which no device task wrote it).
  std::span<T> host() { return {reinterpret_cast<T*>(storage_->host_data()), count_}; }
  const std::shared_ptr<BufferStorage>& storage() const { return storage_; }

  /// How the host holds the elements (see BufferStorage::describe):
  ///
  ///   alloy::Buffer<Particle> particles(n);
  ///   particles.describe(particle_record);  // an alloy::HostRecord
  const Buffer& describe(HostLayout layout) const {
    storage_->describe(std::move(layout));
    return *this;
  }

 private:
  Buffer(std::shared_ptr<BufferStorage> storage, std::size_t count)
      : storage_(std::move(storage)), count_(count) {}

  std::shared_ptr<BufferStorage> storage_;
  std::size_t count_;
};

inline Access read(BufferSlice slice) { return {std::move(slice), AccessMode::read}; }
inline Access write(BufferSlice slice) { return {std::move(slice), AccessMode::write}; }
inline Access read_write(BufferSlice slice) { return {std::move(slice), AccessMode::read_write}; }
template <class T>
Access read(const Buffer<T>& buffer) { return read(buffer.whole()); }
template <class T>
Access write(const Buffer<T>& buffer) { return write(buffer.whole()); }
template <class T>
Access read_write(const Buffer<T>& buffer) { return read_write(buffer.whole()); }

/// Throws InvalidArgument unless [offset, offset + count) lies in the buffer.
void check_slice(std::size_t offset, std::size_t count, std::size_t size);

template <class T>
BufferSlice Buffer<T>::slice(std::size_t offset, std::size_t count) const {
  check_slice(offset, count, count_);
  return {storage_, {offset * sizeof(T), (offset + count) * sizeof(T)}};
}

}  // namespace alloy
