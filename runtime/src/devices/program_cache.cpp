// The two-level compile cache: programs in memory, binaries on disk.
#include "alloy/program_cache.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <iterator>
#include <random>
#include <sstream>

#include "alloy/dialect.hpp"
#include "alloy/error.hpp"
#include "alloy/log.hpp"

namespace alloy {
namespace {

// Bump when the file layout changes; old files then fail the magic check.
constexpr std::string_view file_magic = "ALLOYPC1";
// Far above any real program binary; keeps a damaged or hostile file from
// being read into memory whole.
constexpr std::uintmax_t max_file_bytes = std::uintmax_t{256} << 20;

std::string cache_key(const Device& device, const ProgramSource& source) {
  const ComposedSource composed = compose_kernel_source(source);
  return device.info().fingerprint() + "\n" + composed.compiler_options + "\n" + composed.text;
}

void append_u64(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

/// Reads a little-endian u64 at `pos`; false past the end.
bool read_u64(const std::string& in, std::size_t& pos, std::uint64_t& value) {
  if (in.size() < pos + 8) return false;
  value = 0;
  for (int i = 0; i < 8; ++i) {
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[pos + i])) << (8 * i);
  }
  pos += 8;
  return true;
}

/// The stored binary, or why the file is unusable.
struct ParsedEntry {
  std::string binary;
  std::string problem;
};

ParsedEntry parse_entry(const std::string& content, const std::string& key) {
  std::size_t pos = file_magic.size();
  std::uint64_t key_size = 0;
  std::uint64_t binary_size = 0;
  std::uint64_t checksum = 0;
  if (content.compare(0, file_magic.size(), file_magic) != 0) return {{}, "unknown format"};
  if (!read_u64(content, pos, key_size) || key_size > content.size() - pos) {
    return {{}, "truncated key"};
  }
  const std::string stored_key = content.substr(pos, key_size);
  pos += key_size;
  if (!read_u64(content, pos, binary_size) || binary_size > content.size() - pos) {
    return {{}, "truncated binary"};
  }
  std::string binary = content.substr(pos, binary_size);
  pos += binary_size;
  if (!read_u64(content, pos, checksum) || pos != content.size()) return {{}, "bad length"};
  if (checksum != stable_hash(stored_key + binary)) return {{}, "checksum mismatch"};
  if (stored_key != key) return {{}, "holds another program (hash collision)"};
  return {std::move(binary), {}};
}

/// Reads `file` into `content`; the system's reason when it cannot
/// ("Permission denied"), so that a warning names the real cause rather than
/// calling an unreadable file damaged.
std::optional<std::string> read_whole_file(const std::filesystem::path& file, std::string& content) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  char buffer[1 << 16];
  for (;;) {
    const ssize_t count = ::read(fd, buffer, sizeof buffer);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      const std::string error = std::strerror(errno);
      ::close(fd);
      return error;
    }
    if (count == 0) break;
    content.append(buffer, static_cast<std::size_t>(count));
    if (content.size() > max_file_bytes) break;  // grew while being read: parse_entry refuses it
  }
  ::close(fd);
  return std::nullopt;
}

std::filesystem::path from_environment(const char* variable, const char* suffix) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') return {};
  return std::filesystem::path(value) / suffix;
}

}  // namespace

ProgramCache::ProgramCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

std::filesystem::path ProgramCache::default_dir() {
  if (const char* dir = std::getenv("ALLOY_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (auto xdg = from_environment("XDG_CACHE_HOME", "alloy/programs"); !xdg.empty()) return xdg;
  return from_environment("HOME", ".cache/alloy/programs");
}

std::filesystem::path ProgramCache::file_for(const Device& device,
                                             const ProgramSource& source) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.bin",
                static_cast<unsigned long long>(stable_hash(cache_key(device, source))));
  return dir_ / name;
}

ProgramCacheStats ProgramCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::shared_ptr<Program> ProgramCache::get(Device& device, const ProgramSource& source) {
  const std::string key = cache_key(device, source);
  {
    std::lock_guard lock(mutex_);
    auto found = programs_.find({&device, key});
    if (found != programs_.end()) {
      ++stats_.memory_hits;
      return found->second;
    }
    // Never freed before the cache is, so threads may throw it at once.
    if (auto failed = failures_.find({&device, key}); failed != failures_.end()) std::rethrow_exception(failed->second);
  }
  // Compiling can take seconds: done outside the lock, so two threads may
  // build the same program once each; the first to finish is kept.
  std::shared_ptr<Program> program;
  const std::filesystem::path file = dir_.empty() ? dir_ : file_for(device, source);
  if (!file.empty()) program = load_from_disk(device, source, key, file);
  if (!program) {
    try {
      program = device.build_program(source);
    } catch (const CompileError&) {
      std::lock_guard lock(mutex_);
      ++stats_.failed_compiles;
      failures_.try_emplace({&device, key}, std::current_exception());
      throw;
    }
    {
      std::lock_guard lock(mutex_);
      ++stats_.compiles;
    }
    if (!file.empty()) store_on_disk(*program, key, file);
  }
  std::lock_guard lock(mutex_);
  return programs_.try_emplace({&device, key}, program).first->second;
}

std::shared_ptr<Program> ProgramCache::load_from_disk(Device& device, const ProgramSource& source,
                                                      const std::string& key,
                                                      const std::filesystem::path& file) {
  std::error_code status;
  if (!std::filesystem::exists(file, status)) return nullptr;
  ParsedEntry entry;
  if (!std::filesystem::is_regular_file(file, status)) {
    entry.problem = "not a regular file";
  } else if (std::filesystem::file_size(file, status) > max_file_bytes) {
    entry.problem = "larger than " + std::to_string(max_file_bytes >> 20) + " MiB";
  } else {
    std::string content;
    if (const std::optional<std::string> error = read_whole_file(file, content)) {
      entry.problem = "cannot be read: " + *error;
    } else {
      entry = parse_entry(content, key);
    }
  }
  if (entry.problem.empty()) {
    const detail::HandledErrorScope handled;
    try {
      const auto* bytes = reinterpret_cast<const std::byte*>(entry.binary.data());
      std::shared_ptr<Program> program =
          device.load_program(source, std::span<const std::byte>(bytes, entry.binary.size()));
      std::lock_guard lock(mutex_);
      ++stats_.disk_hits;
      return program;
    } catch (const Error& error) {
      entry.problem = std::string("the driver rejected the binary: ") + error.what();
    }
  }
  log_warning("ignoring compile-cache file " + file.string() + " for " + source.name + " (" +
              entry.problem + "); compiling again and replacing it");
  std::lock_guard lock(mutex_);
  ++stats_.rejected_files;
  return nullptr;
}

void ProgramCache::store_on_disk(const Program& program, const std::string& key,
                                 const std::filesystem::path& file) {
  std::vector<std::byte> binary;
  const detail::HandledErrorScope handled;
  try {
    binary = program.binary();
  } catch (const Error& error) {
    log_warning(std::string("not caching ") + program.source().name + ": " + error.what());
    return;
  }
  std::string content(file_magic);
  append_u64(content, key.size());
  content += key;
  append_u64(content, binary.size());
  const std::string binary_text(reinterpret_cast<const char*>(binary.data()), binary.size());
  content += binary_text;
  append_u64(content, stable_hash(key + binary_text));

  std::error_code error;
  std::filesystem::create_directories(file.parent_path(), error);
  std::filesystem::path temporary = file;
  temporary += ".tmp" + std::to_string(std::random_device{}());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) {
      log_warning("cannot write the compile cache in " + file.parent_path().string() +
                  "; programs will be compiled again next run. Set ALLOY_CACHE_DIR to a "
                  "writable folder");
      std::filesystem::remove(temporary, error);
      return;
    }
  }
  std::filesystem::rename(temporary, file, error);
  if (error) {
    log_warning("cannot store " + file.string() + ": " + error.message());
    std::filesystem::remove(temporary, error);
  }
}

}  // namespace alloy
