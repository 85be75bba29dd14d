// Buffer storage and access modes.
#include "alloy/buffer.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "alloy/backend/device.hpp"
#include "alloy/error.hpp"
#include "buffer_state.hpp"

namespace alloy {
namespace {

std::atomic<std::uint64_t> next_storage_id{1};

}  // namespace

BufferStorage::BufferStorage(std::size_t bytes, Device* pinned_by)
    // A new buffer's contents live on the host: zeroes.
    : size_(bytes), id_(next_storage_id++), state_(std::make_unique<detail::BufferState>(bytes)) {
  if (pinned_by != nullptr) {
    pinned_ = pinned_by->allocate_host(bytes);
    data_ = static_cast<std::byte*>(pinned_->data());
    if (bytes != 0) std::memset(data_, 0, bytes);
  } else {
    ordinary_.reset(static_cast<std::byte*>(std::calloc(std::max<std::size_t>(bytes, 1), 1)));
    if (!ordinary_) throw std::bad_alloc();
    data_ = ordinary_.get();
  }
}

BufferStorage::BufferStorage(BorrowedMemory borrowed)
    : size_(borrowed.bytes),
      data_(borrowed.data),
      host_resident_(true),
      read_only_(borrowed.read_only),
      id_(next_storage_id++),
      state_(std::make_unique<detail::BufferState>(borrowed.bytes)) {}

BufferStorage::~BufferStorage() = default;

void BufferStorage::describe(HostLayout layout) {
  if (const auto* record = std::get_if<HostRecord>(&layout)) {
    record->validate();
    if (record->size == 0 || size_ % record->size != 0) {
      throw InvalidArgument("record " + record->name + " of " + std::to_string(record->size) +
                            " bytes does not divide a buffer of " + std::to_string(size_) + " bytes");
    }
  } else {
    const auto& matrix = std::get<HostMatrix>(layout);
    matrix.validate();
    if (matrix.elements() * size_of(matrix.element) > size_) {
      throw InvalidArgument(std::to_string(matrix.rows) + " x " + std::to_string(matrix.columns) + " " +
                            std::string(to_string(matrix.element)) + " matrix does not fit a buffer of " +
                            std::to_string(size_) + " bytes");
    }
  }
  host_layout_ = std::make_shared<const HostLayout>(std::move(layout));
}

void BufferStorage::Free::operator()(std::byte* bytes) const { std::free(bytes); }

namespace detail {
BufferState& state_of(BufferStorage& storage) { return *storage.state_; }
const BufferState& state_of(const BufferStorage& storage) { return *storage.state_; }
}  // namespace detail

bool reads(AccessMode mode) { return mode != AccessMode::write; }
bool writes(AccessMode mode) { return mode != AccessMode::read; }

void check_slice(std::size_t offset, std::size_t count, std::size_t size) {
  if (offset > size || count > size - offset) {
    throw InvalidArgument("slice [" + std::to_string(offset) + ", " +
                          std::to_string(offset + count) + ") lies outside a buffer of " +
                          std::to_string(size) + " elements");
  }
}

}  // namespace alloy
