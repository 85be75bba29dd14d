// The names of a trace's kinds of slice, as its file and its labels give them.
#include <optional>
#include <string_view>

#include "alloy/trace.hpp"

namespace alloy {
namespace {

constexpr TraceKind all_kinds[] = {TraceKind::kernel, TraceKind::copy_in, TraceKind::copy_out,
                                   TraceKind::copy,   TraceKind::fill,    TraceKind::host,
                                   TraceKind::async,  TraceKind::compile, TraceKind::held_back};

}  // namespace

std::string_view to_string(TraceKind kind) {
  switch (kind) {
    case TraceKind::kernel: return "kernel";
    case TraceKind::copy_in: return "copy-in";
    case TraceKind::copy_out: return "copy-out";
    case TraceKind::copy: return "copy";
    case TraceKind::fill: return "fill";
    case TraceKind::host: return "host";
    case TraceKind::async: return "async";
    case TraceKind::compile: return "compile";
    case TraceKind::held_back: return "held-back";
  }
  return "?";
}

std::optional<TraceKind> trace_kind_named(std::string_view name) {
  for (TraceKind kind : all_kinds) {
    if (to_string(kind) == name) return kind;
  }
  return std::nullopt;
}

}  // namespace alloy
