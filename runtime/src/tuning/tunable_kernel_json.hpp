// Tunable kernel descriptions and host layouts as JSON, for capture files
// (internal to the runtime).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "alloy/buffer.hpp"
#include "alloy/tunable_kernel.hpp"

namespace alloy::detail {

/// Every part of the description, the source text included; from_json gives
/// back an equal one (the same description_hash).
nlohmann::json to_json(const TunableKernel& kernel);
nlohmann::json to_json(const HostLayout& layout);

/// The readers throw InvalidArgument("<where>: ...") for a missing key or a
/// value of the wrong type or range; the kernel is validate()d.
TunableKernel tunable_kernel_from_json(const nlohmann::json& value, const std::string& where);
HostLayout host_layout_from_json(const nlohmann::json& value, const std::string& where);

/// A JSON object's member of the wanted kind, or InvalidArgument naming
/// `where` and the key: what capture file readers check values with.
const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& where);
std::string string_member(const nlohmann::json& object, const char* key, const std::string& where);
std::int64_t integer_member(const nlohmann::json& object, const char* key, const std::string& where);
std::uint64_t unsigned_member(const nlohmann::json& object, const char* key, const std::string& where);
ScalarType scalar_type_member(const nlohmann::json& object, const char* key, const std::string& where);

}  // namespace alloy::detail
