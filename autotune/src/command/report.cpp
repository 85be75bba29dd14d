// Formatting the result table and JSON.
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "alloy/autotune/host_load.hpp"
#include "progress_display.hpp"

namespace alloy::autotune::command {
namespace {

std::string failures(const TuningResult& result) {
  std::string text;
  for (const auto& [outcome, count] : result.outcomes) {
    if (outcome == Outcome::ok || count == 0) continue;
    if (!text.empty()) text += ", ";
    text += std::string(to_string(outcome)) + " " + std::to_string(count);
  }
  return text.empty() ? "none" : text;
}

std::string speedup(const TuningResult& result) {
  if (!result.best_seconds || !result.default_seconds) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", *result.default_seconds / *result.best_seconds);
  return text;
}

// Above this, a row is marked as measured on a busy device.
constexpr double noisy = 0.10;

std::string percent(double fraction) { return std::to_string(int(std::lround(fraction * 100))) + " %"; }

// "8 rounds, tied 2, noise 4 %": how sure the pick is.
std::string confirmed(const TuningResult& result) {
  if (result.confirmation_rounds == 0) return result.provisional ? "none, provisional" : "-";
  std::string text = std::to_string(result.confirmation_rounds) + " rounds";
  if (result.tied > 1) text += ", tied " + std::to_string(result.tied);
  if (result.noise) text += ", noise " + percent(*result.noise);
  if (result.provisional) text += ", provisional";
  return text;
}

// Lines saying why a task found no configuration that runs correctly: the
// first failure of each kind, as the results log has it.
std::string why_nothing_was_found(const TuningResult& result) {
  if (result.best) return {};
  std::string text;
  if (result.space_size == 0) {
    text += "    no configuration fits " + result.problem.to_string() + " on this device";
    text += result.first_failures.empty() ? "\n" : "; the default:\n";
  }
  for (const auto& [outcome, detail] : result.first_failures) {
    // A compile error's detail is the compiler's log: its first line here.
    const std::string first_line = detail.substr(0, detail.find('\n'));
    text += "    " + std::string(to_string(outcome)) + ": " +
            (first_line.empty() ? "(no detail)" : first_line) + '\n';
  }
  return text;
}

// "    layouts: converting costs 0.12 ms per run, priced; converted on the
// device" for a configuration with layouts to convert; else nothing.
std::string layouts(const TuningResult& result) {
  if (!result.best || result.best_conversion_seconds == 0) return "";
  std::string staged;
  for (const std::string& name : result.best_staged_on_host) staged += (staged.empty() ? "" : ", ") + name;
  return "    layouts: converting costs " + format_seconds(result.best_conversion_seconds) + " per run, " +
         (result.layouts_persist ? "not priced (--layouts-persist)" : "priced") + "; " +
         (staged.empty() ? "converted on the device" : "staged on the host: " + staged) + '\n';
}

}  // namespace

std::string format_table(const std::vector<ReportRow>& rows) {
  const std::vector<std::string> header = {"kernel", "problem", "device", "default", "tuned",
                                           "speed-up", "evaluated (resumed)", "failures", "confirmed",
                                           "stopped by"};
  std::vector<std::vector<std::string>> cells;
  for (const ReportRow& row : rows) {
    const TuningResult& r = row.result;
    cells.push_back({r.kernel, r.problem.to_string(), r.device,
                     r.default_seconds ? format_seconds(*r.default_seconds) : "-",
                     r.best_seconds ? format_seconds(*r.best_seconds) : "-", speedup(r),
                     std::to_string(r.evaluations) + " (" + std::to_string(r.resumed) + ")",
                     row.error.empty() ? failures(r) : "error", confirmed(r),
                     row.error.empty() ? r.stopped_by : "-"});
  }
  std::vector<std::size_t> widths(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    widths[c] = header[c].size();
    for (const auto& line : cells) widths[c] = std::max(widths[c], line[c].size());
  }
  auto format_line = [&](const std::vector<std::string>& line) {
    std::string text;
    for (std::size_t c = 0; c < line.size(); ++c) {
      text += line[c];
      if (c + 1 < line.size()) text += std::string(widths[c] - line[c].size() + 2, ' ');
    }
    return text + '\n';
  };
  std::string table = format_line(header);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    table += format_line(cells[i]);
    if (!rows[i].error.empty()) table += "    error: " + rows[i].error + '\n';
    else if (!rows[i].configuration.empty()) table += "    best: " + rows[i].configuration + '\n';
    else table += why_nothing_was_found(rows[i].result);
    table += layouts(rows[i].result);
    if (!rows[i].result.overrun.empty()) table += "    time: " + rows[i].result.overrun + '\n';
    if (rows[i].result.provisional && rows[i].result.best) {
      table += "    provisional: " + std::to_string(rows[i].result.runners_up.size()) +
               " other configurations could not be told apart from the best on the device as it was; the "
               "profile marks the entry provisional, so tune again when the device is idle\n";
    }
    if (rows[i].result.noise && *rows[i].result.noise > noisy) {
      table += "    noise: the default's time moved " + percent(*rows[i].result.noise) +
               " between rounds; the device was busy, so tune again when it is idle\n";
    }
    if (rows[i].result.host_others && *rows[i].result.host_others > busy_host_share) {
      table += "    busy: other processes used " + percent(*rows[i].result.host_others) +
               " of this machine's CPU time while this ran; tune again when the machine is idle\n";
    }
    if (rows[i].result.drift && *rows[i].result.drift > noisy) {
      table += "    drift: the default's time moved " + percent(*rows[i].result.drift) +
               " across the search; the device's load changed while it ran\n";
    }
  }
  return table;
}

std::string format_json(const std::vector<ReportRow>& rows) {
  nlohmann::json results = nlohmann::json::array();
  for (const ReportRow& row : rows) {
    const TuningResult& r = row.result;
    nlohmann::json failures_by_kind = nlohmann::json::object();
    for (const auto& [outcome, count] : r.outcomes) {
      if (outcome != Outcome::ok) failures_by_kind[std::string(to_string(outcome))] = count;
    }
    nlohmann::json first_failures = nlohmann::json::object();
    for (const auto& [outcome, detail] : r.first_failures) {
      first_failures[std::string(to_string(outcome))] = detail;
    }
    nlohmann::json problem = nlohmann::json::array();
    for (unsigned d = 0; d < r.problem.dimensions; ++d) problem.push_back(r.problem[d]);
    nlohmann::json runners_up = nlohmann::json::array();
    for (const auto& [configuration, seconds] : r.runners_up) {
      runners_up.push_back({{"configuration", configuration}, {"seconds", seconds}});
    }
    results.push_back({{"kernel", r.kernel},
                       {"problem", problem},
                       {"device", r.device},
                       {"space_size", r.space_size},
                       {"default_seconds", r.default_seconds ? nlohmann::json(*r.default_seconds) : nullptr},
                       {"tuned_seconds", r.best_seconds ? nlohmann::json(*r.best_seconds) : nullptr},
                       {"speedup", r.best_seconds && r.default_seconds
                                       ? nlohmann::json(*r.default_seconds / *r.best_seconds)
                                       : nullptr},
                       {"configuration", row.configuration},
                       {"conversion_seconds", r.best_conversion_seconds},
                       {"layouts_persist", r.layouts_persist},
                       {"staged_on_host", r.best_staged_on_host},
                       {"evaluations", r.evaluations},
                       {"resumed", r.resumed},
                       {"failures", failures_by_kind},
                       {"first_failures", first_failures},
                       {"stopped_by", r.stopped_by},
                       {"wall_seconds", r.wall_seconds},
                       {"overrun", r.overrun},
                       {"confirmation_rounds", r.confirmation_rounds},
                       {"tied", r.tied},
                       {"noise", r.noise ? nlohmann::json(*r.noise) : nullptr},
                       {"drift", r.drift ? nlohmann::json(*r.drift) : nullptr},
                       {"host_others_share", r.host_others ? nlohmann::json(*r.host_others) : nullptr},
                       {"provisional", r.provisional},
                       {"runners_up", runners_up},
                       {"profile", row.profile_file},
                       {"error", row.error}});
  }
  return nlohmann::json{{"results", results}}.dump(2, ' ', false,
                                                  nlohmann::json::error_handler_t::replace) + '\n';
}

}  // namespace alloy::autotune::command
