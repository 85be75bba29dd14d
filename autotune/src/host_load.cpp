// Reading the machine's and this process's CPU time from /proc.
#include "alloy/autotune/host_load.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace alloy::autotune {
namespace {

std::string file_text(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The whitespace-separated numbers of `text`, up to the first word that is
/// not one.
std::vector<std::uint64_t> numbers(std::string_view text) {
  std::istringstream words{std::string(text)};
  std::vector<std::uint64_t> values;
  std::uint64_t value = 0;
  while (words >> value) values.push_back(value);
  return values;
}

}  // namespace

std::optional<CpuTimes> parse_cpu_times(std::string_view proc_stat, std::string_view self_stat) {
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice":
  // guest time is already counted in user, so the first eight make the total.
  if (proc_stat.substr(0, 4) != "cpu ") return std::nullopt;
  const std::vector<std::uint64_t> machine = numbers(proc_stat.substr(4, proc_stat.find('\n') - 4));
  if (machine.size() < 5) return std::nullopt;
  CpuTimes times;
  for (std::size_t i = 0; i < machine.size() && i < 8; ++i) times.total += machine[i];
  times.idle = machine[3] + machine[4];
  // "pid (name) state ppid ...": the name may hold spaces and parentheses,
  // so fields count from the last ')'; utime and stime are fields 14 and 15.
  const std::size_t name_end = self_stat.rfind(')');
  if (name_end == std::string_view::npos) return std::nullopt;
  std::istringstream fields{std::string(self_stat.substr(name_end + 1))};
  std::vector<std::string> words;
  for (std::string word; fields >> word && words.size() < 13;) words.push_back(word);
  if (words.size() < 13) return std::nullopt;
  try {
    times.own = std::stoull(words[11]) + std::stoull(words[12]);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return times;
}

std::optional<CpuTimes> read_cpu_times() {
  return parse_cpu_times(file_text("/proc/stat"), file_text("/proc/self/stat"));
}

double others_share(const CpuTimes& before, const CpuTimes& after) {
  if (after.total <= before.total) return 0.0;
  const double total = static_cast<double>(after.total - before.total);
  const double idle = after.idle >= before.idle ? static_cast<double>(after.idle - before.idle) : 0.0;
  const double own = after.own >= before.own ? static_cast<double>(after.own - before.own) : 0.0;
  const double others = total - idle - own;
  return others <= 0 ? 0.0 : std::min(1.0, others / total);
}

}  // namespace alloy::autotune
