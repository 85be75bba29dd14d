// The compile cache: a second run loads from disk, damaged files are rebuilt with a warning.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "embedded/saxpy_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

namespace fs = std::filesystem;

/// A fresh, empty folder, removed at the end of the scope.
class TemporaryDir {
 public:
  explicit TemporaryDir(const std::string& name)
      : path_(fs::temp_directory_path() / ("alloy-" + name + "-" + std::to_string(getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TemporaryDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

/// Collects warnings for one scope.
class CapturedWarnings {
 public:
  CapturedWarnings()
      : previous_(set_log_sink([this](LogLevel level, std::string_view message) {
          if (level == LogLevel::warning) messages_.emplace_back(message);
        })) {}
  ~CapturedWarnings() { set_log_sink(previous_); }
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  std::vector<std::string> messages_;
  LogSink previous_;
};

const ProgramSource saxpy{"saxpy.cl", std::string(alloy_kernels::saxpy_source), ""};

/// Runs saxpy through a program that came out of `cache`.
void check_program_runs(Device& device, ProgramCache& cache) {
  auto kernel = cache.get(device, saxpy)->kernel("saxpy");
  auto queue = device.create_queue();
  auto x = upload(device, *queue, std::vector<float>(64, 1.0f));
  auto y = upload(device, *queue, std::vector<float>(64, 1.0f));
  queue->launch(*kernel, {Extent(64), Extent(64)}, 64, 2.0f, *x, *y);
  for (float value : download<float>(*queue, *y, 64)) REQUIRE(value == 3.0f);
}

void overwrite(const fs::path& file, const std::string& content) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
}

std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("ProgramCache.Disk.second_run_does_not_compile") {
  for_each_device([](Device& device) {
    const TemporaryDir dir("cache-second-run");
    {
      ProgramCache first_run(dir.path());
      check_program_runs(device, first_run);
      CHECK(first_run.stats().compiles == 1);
      CHECK(fs::exists(first_run.file_for(device, saxpy)));
      first_run.get(device, saxpy);
      CHECK(first_run.stats().memory_hits == 1);
    }
    // A new cache over the same folder is what the next process sees.
    ProgramCache second_run(dir.path());
    check_program_runs(device, second_run);
    CHECK(second_run.stats().compiles == 0);
    CHECK(second_run.stats().disk_hits == 1);
  });
}

TEST_CASE("ProgramCache.Disk.damaged_file_rebuilt_with_warning") {
  for_each_device([](Device& device) {
    const TemporaryDir dir("cache-damaged");
    fs::path file;
    std::string intact;
    {
      ProgramCache cache(dir.path());
      cache.get(device, saxpy);
      file = cache.file_for(device, saxpy);
      intact = read_all(file);
    }
    REQUIRE(intact.size() > 64);
    std::string flipped = intact;
    flipped[flipped.size() / 2] ^= 0x5a;
    const std::vector<std::pair<std::string, std::string>> damages{
        {"garbage", "not a cache file at all"},
        {"empty", ""},
        {"truncated", intact.substr(0, intact.size() / 2)},
        {"flipped byte", flipped},
        {"huge size field", "ALLOYPC1" + std::string(8, '\xff') + intact.substr(16)},
    };
    for (const auto& [kind, content] : damages) {
      CAPTURE(kind);
      overwrite(file, content);
      const CapturedWarnings warnings;
      ProgramCache cache(dir.path());
      check_program_runs(device, cache);
      CHECK(cache.stats().rejected_files == 1);
      CHECK(cache.stats().compiles == 1);
      REQUIRE(warnings.messages().size() == 1);
      CHECK(warnings.messages()[0].find(file.string()) != std::string::npos);
      // The rebuilt program replaced the damaged file.
      CHECK(read_all(file) == intact);
    }
  });
}

TEST_CASE("ProgramCache.Disk.unreadable_file_warns_with_the_reason") {
  for_each_device([](Device& device) {
    const TemporaryDir dir("cache-unreadable");
    fs::path file;
    {
      ProgramCache cache(dir.path());
      cache.get(device, saxpy);
      file = cache.file_for(device, saxpy);
    }
    // Reading /proc/self/mem at offset 0 fails with EIO, even for root, for
    // whom no permission bit stops a read.
    std::vector<std::pair<std::string, std::string>> cases = {{"symlink to /proc/self/mem", "Input/output error"}};
    if (::geteuid() != 0) cases.emplace_back("mode 000", "Permission denied");
    for (const auto& [kind, reason] : cases) {
      CAPTURE(kind);
      fs::remove(file);
      if (kind == "mode 000") {
        overwrite(file, "ALLOYPC1 unreadable");
        fs::permissions(file, fs::perms::none);
      } else {
        fs::create_symlink("/proc/self/mem", file);
      }
      const CapturedWarnings warnings;
      ProgramCache cache(dir.path());
      check_program_runs(device, cache);
      CHECK(cache.stats().rejected_files == 1);
      REQUIRE(warnings.messages().size() == 1);
      CHECK(warnings.messages()[0].find(file.string() + " for saxpy.cl (cannot be read: " + reason + ")") !=
            std::string::npos);
    }
    if (::geteuid() == 0) MESSAGE("running as root: the mode-000 case needs another user");
  });
}

TEST_CASE("ProgramCache.Disk.entry_of_another_program_is_rejected") {
  for_each_device([](Device& device) {
    const TemporaryDir dir("cache-collision");
    ProgramSource other = saxpy;
    other.options = "-DUNUSED_TUNABLE=1";
    ProgramCache writer(dir.path());
    writer.get(device, other);
    // An intact file of another program where this one's should be: what a
    // hash collision of file names would look like.
    fs::copy_file(writer.file_for(device, other), writer.file_for(device, saxpy));
    const CapturedWarnings warnings;
    ProgramCache reader(dir.path());
    check_program_runs(device, reader);
    CHECK(reader.stats().disk_hits == 0);
    CHECK(reader.stats().rejected_files == 1);
    REQUIRE(warnings.messages().size() == 1);
    CHECK(warnings.messages()[0].find("holds another program") != std::string::npos);
  });
}

TEST_CASE("ProgramCache.Key.options_and_source_select_the_entry") {
  for_each_device([](Device& device) {
    const TemporaryDir dir("cache-keys");
    ProgramCache cache(dir.path());
    ProgramSource with_define = saxpy;
    with_define.options = "-DUNUSED_TUNABLE=3";
    ProgramSource edited = saxpy;
    edited.source += "\n// an edit\n";
    CHECK(cache.file_for(device, saxpy) != cache.file_for(device, with_define));
    CHECK(cache.file_for(device, saxpy) != cache.file_for(device, edited));
    cache.get(device, saxpy);
    cache.get(device, with_define);
    cache.get(device, edited);
    CHECK(cache.stats().compiles == 3);
    CHECK(cache.get(device, with_define) == cache.get(device, with_define));
  });
}

TEST_CASE("ProgramCache.Memory.programs_are_per_device") {
  const std::vector<Device*> devices = selected_devices();
  if (devices.size() < 2) {
    skip("needs two devices; run with POCL_DEVICES=\"pthread pthread\"");
    return;
  }
  ProgramCache cache("");
  auto first = cache.get(*devices[0], saxpy);
  auto second = cache.get(*devices[1], saxpy);
  CHECK(first != second);
  CHECK(&first->device() == devices[0]);
  CHECK(&second->device() == devices[1]);
}

TEST_CASE("ProgramCache.Disk.unwritable_folder_warns_and_works") {
  for_each_device([](Device& device) {
    const TemporaryDir dir("cache-unwritable");
    const fs::path not_a_folder = dir.path() / "file";
    overwrite(not_a_folder, "a file where the cache folder should be");
    const CapturedWarnings warnings;
    ProgramCache cache(not_a_folder / "programs");
    check_program_runs(device, cache);
    CHECK(cache.stats().compiles == 1);
    CHECK_FALSE(warnings.messages().empty());
  });
}

}  // namespace alloy::test
