// Task kinds' names and sizes.
#include "task.hpp"

#include "alloy/dialect.hpp"

namespace alloy::detail {

std::uint64_t tuned_kernel_key(const std::string& description, const Extent& problem) {
  return stable_hash(description + '\n' + problem.to_string() + '\n' + std::to_string(problem.dimensions));
}

std::size_t KernelWork::work_items() const {
  if (const auto* tuned = std::get_if<TunedKernelCall>(&program)) return tuned->problem.count();
  return std::get<FixedKernel>(program).range.global.count();
}

bool Task::moves_no_bytes() const {
  return (std::holds_alternative<CopyWork>(work) || std::holds_alternative<FillWork>(work)) &&
         accesses.front().slice.range.empty();
}

const char* Task::kind_name() const {
  static constexpr const char* kinds[] = {"kernel", "copy", "fill", "host", "async", "file read"};
  return kinds[work.index()];
}

std::string Task::label(TaskId id) const { return task_label(id.index, options.name, kind_name()); }

std::string task_label(std::uint64_t number, std::string_view name, const char* kind, std::uint32_t graph_run) {
  std::string text = "task " + std::to_string(number);
  if (!name.empty()) {
    text += " '";
    text += name;
    text += "'";
  }
  text += std::string(" (") + kind + ")";
  if (graph_run != 0) text += " of graph run " + std::to_string(graph_run);
  return text;
}

}  // namespace alloy::detail
