// Task kinds' names and sizes.
#include "task.hpp"

namespace alloy::detail {

std::size_t KernelWork::work_items() const {
  if (const auto* tuned = std::get_if<TunedKernelCall>(&program)) return tuned->problem.count();
  return std::get<FixedKernel>(program).range.global.count();
}

bool Task::moves_no_bytes() const {
  return (std::holds_alternative<CopyWork>(work) || std::holds_alternative<FillWork>(work)) &&
         accesses.front().slice.range.empty();
}

const char* Task::kind_name() const {
  static constexpr const char* kinds[] = {"kernel", "copy", "fill", "host"};
  return kinds[work.index()];
}

std::string Task::label(TaskId id) const {
  std::string text = "task " + std::to_string(id.index);
  if (!options.name.empty()) text += " '" + options.name + "'";
  return text + " (" + kind_name() + ")";
}

}  // namespace alloy::detail
