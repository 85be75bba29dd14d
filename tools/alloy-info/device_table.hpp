// alloy-info's two outputs: a text table and a JSON document of all backends.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "alloy/runtime.hpp"

namespace alloy::info {

std::string format_table(const std::vector<BackendStatus>& backends);
nlohmann::json to_json(const std::vector<BackendStatus>& backends);

}  // namespace alloy::info
