// Reading and appending the tuner's JSON-lines results log.
#include "alloy/autotune/results_log.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "alloy/error.hpp"
#include "alloy/log.hpp"

namespace alloy::autotune {
namespace {

using nlohmann::json;

json problem_json(const Extent& problem) {
  json sizes = json::array();
  for (unsigned d = 0; d < problem.dimensions; ++d) sizes.push_back(problem[d]);
  return sizes;
}

std::optional<Extent> problem_from(const json& value) {
  if (!value.is_array() || value.empty() || value.size() > 3) return std::nullopt;
  std::array<std::size_t, 3> size{1, 1, 1};
  for (std::size_t d = 0; d < value.size(); ++d) {
    if (!value[d].is_number_unsigned() || value[d].get<std::uint64_t>() == 0) return std::nullopt;
    size[d] = value[d].get<std::size_t>();
  }
  Extent extent(size[0], size[1], size[2]);
  extent.dimensions = static_cast<unsigned>(value.size());
  return extent;
}

}  // namespace

std::string LogKey::text() const {
  return kernel + '\n' + source_hash + '\n' + device + '\n' + problem.to_string() + '\n' +
         std::to_string(problem.dimensions);
}

ResultsLog::ResultsLog(std::filesystem::path file, Writes writes) : file_(std::move(file)) {
  if (file_.empty()) return;
  {
    std::ifstream in(file_);
    std::string text;
    std::size_t line_number = 0;
    while (std::getline(in, text)) {
      ++line_number;
      if (text.empty()) continue;
      const json line = json::parse(text, nullptr, false);
      try {
        if (line.is_discarded() || !line.is_object()) throw std::invalid_argument("not JSON");
        const std::optional<Extent> problem = problem_from(line.at("problem"));
        const std::optional<Outcome> outcome = outcome_from_string(line.at("outcome").get<std::string>());
        if (!problem || !outcome) throw std::invalid_argument("bad problem or outcome");
        const LogKey key{line.at("kernel").get<std::string>(), line.at("source_hash").get<std::string>(),
                         line.at("device").get<std::string>(), *problem};
        Line parsed;
        parsed.configuration = line.at("configuration").get<std::map<std::string, std::int64_t>>();
        parsed.measurement.outcome = *outcome;
        parsed.measurement.seconds = line.at("seconds").get<double>();
        parsed.measurement.low = line.value("low", parsed.measurement.seconds);
        parsed.measurement.high = line.value("high", parsed.measurement.seconds);
        parsed.measurement.spread = line.value("spread", 0.0);
        parsed.measurement.round = line.value("round", 0u);
        parsed.measurement.repetitions = line.value("repetitions", std::size_t{0});
        parsed.measurement.detail = line.value("detail", std::string());
        parsed.measurement.conversion_seconds = line.value("conversion_seconds", 0.0);
        parsed.measurement.resumed = true;
        if (!std::isfinite(parsed.measurement.seconds) || parsed.measurement.seconds < 0) {
          throw std::invalid_argument("bad time");
        }
        lines_[key.text()].push_back(std::move(parsed));
      } catch (const std::exception&) {
        // A torn line from an interrupted write, or a hand-edited one.
        ++skipped_lines_;
      }
    }
  }
  if (skipped_lines_ > 0) {
    log_warning("results log " + file_.string() + ": skipped " + std::to_string(skipped_lines_) +
                " unreadable line(s); those configurations are measured again");
  }
  if (writes == Writes::none) return;
  if (file_.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(file_.parent_path(), error);
  }
  out_.open(file_, std::ios::app | std::ios::binary);
  if (!out_) {
    throw Error("results log: cannot open " + file_.string() +
                " for appending; choose a writable path with --log");
  }
  // A torn last line has no newline: start on a fresh line so the next
  // record is not glued to it.
  std::ifstream tail(file_, std::ios::binary | std::ios::ate);
  if (tail && tail.tellg() > 0) {
    tail.seekg(-1, std::ios::end);
    if (tail.get() != '\n') out_ << '\n' << std::flush;
  }
}

std::vector<Measurement> ResultsLog::measurements(const LogKey& key, const TunableKernel& kernel) const {
  std::lock_guard lock(mutex_);
  std::vector<Measurement> result;
  const auto found = lines_.find(key.text());
  if (found == lines_.end()) return result;
  for (const Line& line : found->second) {
    if (line.measurement.round != 0) continue;  // a confirmation round, not the search's
    Measurement measurement = line.measurement;
    measurement.configuration.clear();
    for (const TuningParameter& parameter : kernel.parameters) {
      const auto value = line.configuration.find(parameter.name);
      if (value == line.configuration.end()) break;
      measurement.configuration.push_back(value->second);
    }
    if (measurement.configuration.size() != kernel.parameters.size() ||
        line.configuration.size() != kernel.parameters.size()) {
      continue;
    }
    result.push_back(std::move(measurement));
  }
  return result;
}

void ResultsLog::append(const LogKey& key, const TunableKernel& kernel, const Measurement& measurement) {
  Line line;
  for (std::size_t p = 0; p < kernel.parameters.size() && p < measurement.configuration.size(); ++p) {
    line.configuration[kernel.parameters[p].name] = measurement.configuration[p];
  }
  line.measurement = measurement;
  line.measurement.resumed = true;
  json record = {{"kernel", key.kernel},
                       {"source_hash", key.source_hash},
                       {"device", key.device},
                       {"problem", problem_json(key.problem)},
                       {"configuration", line.configuration},
                       {"outcome", to_string(measurement.outcome)},
                       {"seconds", measurement.seconds},
                       {"low", measurement.low},
                       {"high", measurement.high},
                       {"spread", measurement.spread},
                       {"repetitions", measurement.repetitions},
                       {"detail", measurement.detail}};
  if (measurement.conversion_seconds != 0) record["conversion_seconds"] = measurement.conversion_seconds;
  if (measurement.round != 0) record["round"] = measurement.round;
  const std::string text = record.dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
  std::lock_guard lock(mutex_);
  if (out_.is_open()) {
    out_.write(text.data(), static_cast<std::streamsize>(text.size()));
    out_.flush();
    if (!out_) {
      throw Error("results log: cannot append to " + file_.string() +
                  "; check free space and permissions");
    }
  }
  lines_[key.text()].push_back(std::move(line));
}

}  // namespace alloy::autotune
