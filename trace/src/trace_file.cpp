// Traces as Chrome trace event JSON: written for Perfetto and chrome://tracing,
// read back by alloy-report.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>

#include "alloy/error.hpp"
#include "alloy/trace_file.hpp"

namespace alloy {
namespace {

using nlohmann::json;

constexpr int format_version = 1;
constexpr int host_process = 0;  // devices are processes 1, 2, ...

double microseconds(std::uint64_t ns) { return static_cast<double>(ns) / 1e3; }

/// Host lanes are numbered in order of first appearance; a device's follow
/// its declaration.
class Threads {
 public:
  explicit Threads(const Trace& trace) : trace_(trace) {
    for (const TraceSlice& slice : trace.slices) {
      if (!slice.device && !host_.contains(slice.lane)) host_.emplace(slice.lane, host_.size() + 1);
    }
  }
  int process(const TraceSlice& slice) const {
    return slice.device ? static_cast<int>(*slice.device) + 1 : host_process;
  }
  std::size_t thread(const TraceSlice& slice) const {
    if (!slice.device) return host_.at(slice.lane);
    const std::vector<std::string>& lanes = trace_.devices.at(*slice.device).lanes;
    return static_cast<std::size_t>(std::find(lanes.begin(), lanes.end(), slice.lane) - lanes.begin()) + 1;
  }
  const std::map<std::string, std::size_t>& host() const { return host_; }

 private:
  const Trace& trace_;
  std::map<std::string, std::size_t> host_;
};

json metadata(const char* what, int process, std::optional<std::size_t> thread, const std::string& name) {
  json event = {{"ph", "M"}, {"name", what}, {"pid", process}, {"args", {{"name", name}}}};
  if (thread) event["tid"] = *thread;
  return event;
}

json arguments(const TraceSlice& slice, const Trace& trace) {
  json args = {{"alloy_id", slice.id},
               {"kind", to_string(slice.kind)},
               {"lane", slice.lane},
               {"enqueued_ns", slice.enqueued_ns},
               {"run_submitted_ns", slice.run_submitted_ns}};
  if (slice.task) args["task"] = *slice.task;
  if (slice.bytes != 0) args["bytes"] = slice.bytes;
  if (slice.flops != 0) args["flops"] = slice.flops;
  if (slice.kind == TraceKind::kernel) {
    args["kernel"] = slice.kernel;
    args["configuration"] = slice.configuration;
    args["profile_match"] = slice.profile_match;
    args["global_size"] = slice.global_size;
    args["local_size"] = slice.local_size;
    args["work_groups"] = slice.work_groups;
    if (slice.kernel_slices != 0) {
      args["kernel_slice"] = slice.kernel_slice;
      args["kernel_slices"] = slice.kernel_slices;
    }
    if (slice.device) args["compute_units"] = trace.devices.at(*slice.device).compute_units;
  }
  if (slice.others_in_flight != 0) args["others_in_flight"] = slice.others_in_flight;
  if (slice.kind == TraceKind::held_back) {
    args["bound_commands"] = slice.bound_commands;
    args["bound_ns"] = slice.bound_ns;
  }
  if (!slice.policy.empty()) args["policy"] = slice.policy;
  if (slice.predicted_ns) args["predicted_ns"] = *slice.predicted_ns;
  if (!slice.after.empty()) args["after"] = slice.after;
  return args;
}

/// An arrow from the last command of each task a slice depends on to it.
void add_flows(const Trace& trace, const Threads& threads, json& events) {
  std::map<std::uint64_t, const TraceSlice*> last_of_task;
  for (const TraceSlice& slice : trace.slices) {
    if (!slice.task) continue;
    const TraceSlice*& last = last_of_task[*slice.task];
    if (last == nullptr || slice.end_ns >= last->end_ns) last = &slice;
  }
  std::uint64_t flow = 0;
  for (const TraceSlice& slice : trace.slices) {
    for (std::uint64_t before : slice.after) {
      const auto from = last_of_task.find(before);
      if (from == last_of_task.end()) continue;  // it moved no bytes, or ran before the trace
      ++flow;
      const TraceSlice& source = *from->second;
      events.push_back({{"ph", "s"}, {"name", "dependency"}, {"cat", "dependency"}, {"id", flow},
                        {"pid", threads.process(source)}, {"tid", threads.thread(source)},
                        {"ts", microseconds(source.start_ns)}});
      events.push_back({{"ph", "f"}, {"bp", "e"}, {"name", "dependency"}, {"cat", "dependency"}, {"id", flow},
                        {"pid", threads.process(slice)}, {"tid", threads.thread(slice)},
                        {"ts", microseconds(slice.start_ns)}});
    }
  }
}

// Reading.

[[noreturn]] void refuse(const std::string& source, const std::string& what) {
  throw InvalidArgument("trace " + source + ": " + what +
                        "; it is not a complete alloy trace (write one with ALLOY_TRACE=FILE, docs/tracing.md)");
}

template <class T>
T field(const json& object, const char* name, const std::string& where, const std::string& source) {
  const auto found = object.find(name);
  if (found == object.end()) refuse(source, where + " has no \"" + name + "\"");
  try {
    return found->get<T>();
  } catch (const json::exception&) {
    refuse(source, where + ": \"" + name + "\" is " + std::string(found->type_name()) + ", not of the type expected");
  }
}

template <class T>
T optional_field(const json& object, const char* name, T otherwise, const std::string& where,
                 const std::string& source) {
  return object.contains(name) ? field<T>(object, name, where, source) : otherwise;
}

std::uint64_t nanoseconds(double us, const std::string& where, const std::string& source) {
  if (!std::isfinite(us) || us < 0 || us > 1e15) refuse(source, where + " has a time out of range");
  return static_cast<std::uint64_t>(std::llround(us * 1e3));
}

std::vector<TraceDevice> read_devices(const json& root, const std::string& source) {
  if (!root.contains("alloy") || !root["alloy"].is_object()) refuse(source, "no \"alloy\" section");
  const json& alloy = root["alloy"];
  const int version = field<int>(alloy, "version", "the alloy section", source);
  if (version != format_version) {
    refuse(source, "format version " + std::to_string(version) + ", this alloy reads version " +
                       std::to_string(format_version));
  }
  std::vector<TraceDevice> devices;
  for (const json& entry : field<json::array_t>(alloy, "devices", "the alloy section", source)) {
    const std::string where = "device " + std::to_string(devices.size());
    if (!entry.is_object()) refuse(source, where + " is not an object");
    devices.push_back({field<std::string>(entry, "label", where, source),
                       field<std::uint32_t>(entry, "compute_units", where, source),
                       field<std::uint32_t>(entry, "copy_engines", where, source),
                       field<std::vector<std::string>>(entry, "lanes", where, source),
                       optional_field<std::uint64_t>(entry, "memory_share", 0, where, source),
                       optional_field<std::uint64_t>(entry, "memory_peak", 0, where, source)});
  }
  return devices;
}

TraceSlice read_slice(const json& event, const std::vector<TraceDevice>& devices, const std::string& source) {
  const std::string where = "event \"" + optional_field<std::string>(event, "name", "", "an event", source) + "\"";
  const json& args = field<json>(event, "args", where, source);
  TraceSlice slice;
  slice.name = field<std::string>(event, "name", where, source);
  slice.id = field<std::uint64_t>(args, "alloy_id", where, source);
  const std::string kind = field<std::string>(args, "kind", where, source);
  const std::optional<TraceKind> parsed = trace_kind_named(kind);
  if (!parsed) refuse(source, where + " has kind \"" + kind + "\", which alloy does not write");
  slice.kind = *parsed;
  const int process = field<int>(event, "pid", where, source);
  slice.lane = field<std::string>(args, "lane", where, source);
  if (process != host_process) {
    if (process < 1 || static_cast<std::size_t>(process) > devices.size()) {
      refuse(source, where + " is on process " + std::to_string(process) + ", which is no declared device");
    }
    slice.device = static_cast<std::size_t>(process - 1);
    const std::vector<std::string>& lanes = devices[*slice.device].lanes;
    if (std::find(lanes.begin(), lanes.end(), slice.lane) == lanes.end()) {
      refuse(source, where + " is on lane \"" + slice.lane + "\", which " + devices[*slice.device].label +
                         " does not declare");
    }
  }
  slice.start_ns = nanoseconds(field<double>(event, "ts", where, source), where, source);
  slice.end_ns = slice.start_ns + nanoseconds(field<double>(event, "dur", where, source), where, source);
  if (args.contains("task")) slice.task = field<std::uint64_t>(args, "task", where, source);
  slice.enqueued_ns = field<std::uint64_t>(args, "enqueued_ns", where, source);
  slice.run_submitted_ns = field<std::uint64_t>(args, "run_submitted_ns", where, source);
  slice.bytes = optional_field<std::uint64_t>(args, "bytes", 0, where, source);
  slice.flops = optional_field<double>(args, "flops", 0.0, where, source);
  if (slice.kind == TraceKind::kernel) {
    slice.kernel = field<std::string>(args, "kernel", where, source);
    slice.configuration = field<std::string>(args, "configuration", where, source);
    slice.profile_match = field<std::string>(args, "profile_match", where, source);
    slice.global_size = field<std::string>(args, "global_size", where, source);
    slice.local_size = field<std::string>(args, "local_size", where, source);
    slice.work_groups = field<std::uint64_t>(args, "work_groups", where, source);
    slice.kernel_slices = optional_field<std::uint32_t>(args, "kernel_slices", 0, where, source);
    slice.kernel_slice = optional_field<std::uint32_t>(args, "kernel_slice", 0, where, source);
    if (slice.kernel_slice > slice.kernel_slices) {
      refuse(source, where + " is slice " + std::to_string(slice.kernel_slice) + " of " +
                         std::to_string(slice.kernel_slices));
    }
  }
  slice.others_in_flight = optional_field<std::uint32_t>(args, "others_in_flight", 0, where, source);
  if (slice.kind == TraceKind::held_back) {
    if (!slice.device) refuse(source, where + " holds a task back from no device");
    slice.bound_commands = field<std::uint32_t>(args, "bound_commands", where, source);
    slice.bound_ns = field<std::uint64_t>(args, "bound_ns", where, source);
  }
  slice.policy = optional_field<std::string>(args, "policy", "", where, source);
  if (args.contains("predicted_ns")) slice.predicted_ns = field<std::uint64_t>(args, "predicted_ns", where, source);
  slice.after = optional_field<std::vector<std::uint64_t>>(args, "after", {}, where, source);
  return slice;
}

}  // namespace

std::string to_chrome_trace(const Trace& trace) {
  const Threads threads(trace);
  json events = json::array();
  events.push_back(metadata("process_name", host_process, std::nullopt, "host"));
  for (const auto& [lane, thread] : threads.host()) events.push_back(metadata("thread_name", host_process, thread, lane));
  json devices = json::array();
  for (std::size_t d = 0; d < trace.devices.size(); ++d) {
    const TraceDevice& device = trace.devices[d];
    const int process = static_cast<int>(d) + 1;
    events.push_back(metadata("process_name", process, std::nullopt, device.label));
    for (std::size_t l = 0; l < device.lanes.size(); ++l) {
      events.push_back(metadata("thread_name", process, l + 1, device.lanes[l]));
    }
    devices.push_back({{"label", device.label}, {"compute_units", device.compute_units},
                       {"copy_engines", device.copy_engines}, {"lanes", device.lanes},
                       {"memory_share", device.memory_share}, {"memory_peak", device.memory_peak}});
  }
  for (const TraceSlice& slice : trace.slices) {
    events.push_back({{"ph", "X"}, {"name", slice.name}, {"cat", to_string(slice.kind)},
                      {"pid", threads.process(slice)}, {"tid", threads.thread(slice)},
                      {"ts", microseconds(slice.start_ns)}, {"dur", microseconds(slice.duration_ns())},
                      {"args", arguments(slice, trace)}});
  }
  add_flows(trace, threads, events);
  const json root = {{"displayTimeUnit", "ns"},
                     {"alloy", {{"version", format_version}, {"devices", devices}, {"origin_unix_ns", trace.origin_unix_ns}}},
                     {"traceEvents", events}};
  return root.dump(1);
}

void write_chrome_trace(const Trace& trace, const std::filesystem::path& file) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << to_chrome_trace(trace);
  out.close();
  if (!out) {
    throw Error("writing the trace " + file.string() + " failed; check that its folder exists and is writable");
  }
}

Trace parse_chrome_trace(std::string_view text, const std::string& source) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& error) {
    refuse(source, std::string("not valid JSON (") + error.what() + ")");
  }
  if (!root.is_object()) refuse(source, "not a JSON object");
  Trace trace;
  trace.devices = read_devices(root, source);
  trace.origin_unix_ns = optional_field<std::uint64_t>(root["alloy"], "origin_unix_ns", 0, "the alloy section", source);
  std::set<std::uint64_t> ids;
  for (const json& event : field<json::array_t>(root, "traceEvents", "the file", source)) {
    if (!event.is_object()) refuse(source, "an event is not an object");
    if (field<std::string>(event, "ph", "an event", source) != "X") continue;  // names and flows
    trace.slices.push_back(read_slice(event, trace.devices, source));
    if (!ids.insert(trace.slices.back().id).second) {
      refuse(source, "two events have alloy_id " + std::to_string(trace.slices.back().id));
    }
  }
  std::stable_sort(trace.slices.begin(), trace.slices.end(),
                   [](const TraceSlice& a, const TraceSlice& b) { return a.start_ns < b.start_ns; });
  return trace;
}

Trace read_chrome_trace(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InvalidArgument("trace " + file.string() + " cannot be opened; check the path");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_chrome_trace(text.str(), file.string());
}

}  // namespace alloy
