// InputFile: host reads through FileReader, direct reads through each
// device's DirectFile, opened on first use and kept.
#include "alloy/input_file.hpp"

#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

#include "alloy/backend/device.hpp"
#include "alloy/error.hpp"
#include "support/environment_flag.hpp"
#include "file_io.hpp"
#include "input_file_access.hpp"

namespace alloy {

struct InputFile::Impl {
  Impl(const std::filesystem::path& file, std::string off) : path(file), reader(file), direct_off(std::move(off)) {}

  std::filesystem::path path;
  detail::FileReader reader;
  std::string direct_off;  ///< why direct reads are off; empty when they are allowed
  std::function<void(detail::InputFileAccess::Clock::time_point, detail::InputFileAccess::Clock::time_point)> observer;
  mutable std::mutex mutex;
  /// Per device; a node per entry, so references to openings stay valid.
  mutable std::map<const Device*, DirectFileOpening> openings;

  template <class Read>
  void observed(Read&& read) const {
    if (!observer) {
      read();
      return;
    }
    const auto started = detail::InputFileAccess::Clock::now();
    read();
    observer(started, detail::InputFileAccess::Clock::now());
  }
};

namespace {

/// Why direct reads are off for a file opened with `options`; empty if not.
std::string direct_reads_off(const InputFileOptions& options) {
  if (!options.direct) return "turned off for this file (InputFileOptions::direct)";
  constexpr const char* variable = "ALLOY_GPU_DIRECT_STORAGE";
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return "";
  const std::optional<bool> on = detail::parse_flag(text);
  if (!on) throw InvalidArgument(detail::not_a_flag(variable, text));
  return *on ? "" : std::string("turned off by ") + variable + "=" + text;
}

}  // namespace

InputFile::InputFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
InputFile::~InputFile() = default;

std::shared_ptr<InputFile> InputFile::open(const std::filesystem::path& path, InputFileOptions options) {
  // Opening a folder for reading succeeds on Linux, and would give its size.
  if (std::error_code ignored; std::filesystem::is_directory(path, ignored)) {
    throw InvalidArgument("input file " + path.string() + " is a directory; give a file to read");
  }
  return std::shared_ptr<InputFile>(new InputFile(std::make_unique<Impl>(path, direct_reads_off(options))));
}

const std::filesystem::path& InputFile::path() const { return impl_->path; }
std::size_t InputFile::size() const { return impl_->reader.size(); }
const std::string& InputFile::host_reads() const { return impl_->reader.how(); }

const DirectFileOpening& InputFile::direct(Device& device) const {
  std::lock_guard lock(impl_->mutex);
  auto found = impl_->openings.find(&device);
  if (found != impl_->openings.end()) return found->second;
  DirectFileOpening opening;
  if (!impl_->direct_off.empty()) {
    opening.reason = impl_->direct_off;
  } else {
    try {
      opening = device.open_direct_file(impl_->path);
    } catch (const std::exception& error) {
      // A backend should answer with a reason; one that throws still only
      // means no direct reads.
      opening = {nullptr, error.what()};
    }
    if (!opening.file && opening.reason.empty()) opening.reason = "the backend gave no reason";
  }
  if (!opening.file) opening.reason = device.label() + ": " + opening.reason;
  return impl_->openings.emplace(&device, std::move(opening)).first->second;
}

void InputFile::read(std::size_t offset, void* into, std::size_t bytes) const {
  impl_->observed([&] { impl_->reader.read(into, offset, bytes); });
}

void InputFile::read(std::size_t offset, DeviceBuffer& into, std::size_t into_offset, std::size_t bytes) const {
  const DirectFileOpening& opening = direct(into.device());
  if (!opening.file) {
    throw Error("direct read of " + impl_->path.string() + " into " + into.device().label() +
                ": the device does not read it directly (" + opening.reason +
                "); read it into host memory and copy it from there");
  }
  impl_->observed([&] { opening.file->read(offset, into, into_offset, bytes); });
}

void detail::InputFileAccess::observe_reads(InputFile& file,
                                            std::function<void(Clock::time_point, Clock::time_point)> observer) {
  file.impl_->observer = std::move(observer);
}

}  // namespace alloy
