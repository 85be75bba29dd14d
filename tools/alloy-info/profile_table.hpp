// alloy-info --profiles: which tuning profiles answer for each device found,
// at which level of the fallback chain, and what their entries hold.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "alloy/profile.hpp"
#include "alloy/runtime.hpp"

namespace alloy::info {

std::string format_profiles(const std::vector<Device*>& devices, const ProfileStore& store);
nlohmann::json profiles_to_json(const std::vector<Device*>& devices, const ProfileStore& store);

}  // namespace alloy::info
