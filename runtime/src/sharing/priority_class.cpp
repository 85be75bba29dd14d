// Priority classes: names, the environment's setting, queue priorities.
#include "priority_class.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

#include "alloy/error.hpp"

namespace alloy {

const char* to_string(PriorityClass priority_class) {
  switch (priority_class) {
    case PriorityClass::critical: return "critical";
    case PriorityClass::normal: return "normal";
    case PriorityClass::background: return "background";
  }
  return "unknown";
}

std::optional<PriorityClass> parse_priority_class(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (PriorityClass candidate : {PriorityClass::critical, PriorityClass::normal, PriorityClass::background}) {
    if (lower == to_string(candidate)) return candidate;
  }
  return std::nullopt;
}

namespace detail {

PriorityClass priority_class_or_environment(std::optional<PriorityClass> chosen) {
  if (chosen) return *chosen;
  const char* text = std::getenv("ALLOY_PRIORITY_CLASS");
  if (text == nullptr || *text == '\0') return PriorityClass::normal;
  if (const std::optional<PriorityClass> parsed = parse_priority_class(text)) return *parsed;
  throw InvalidArgument(std::string("ALLOY_PRIORITY_CLASS=\"") + text +
                        "\" is no priority class; use critical, normal or background, or unset it "
                        "(normal)");
}

QueuePriority queue_priority_of(PriorityClass priority_class) {
  switch (priority_class) {
    case PriorityClass::critical: return QueuePriority::high;
    case PriorityClass::background: return QueuePriority::low;
    case PriorityClass::normal: break;
  }
  return QueuePriority::normal;
}

}  // namespace detail
}  // namespace alloy
