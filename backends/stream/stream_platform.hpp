// The platform of a stream-model backend: every device the API reports.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "alloy/backend/device.hpp"
#include "stream_api.hpp"

namespace alloy::stream {

class StreamDevice;

/// Never throws: a missing driver or a failing device becomes the reason.
/// `load_problem` is why the API's library could not be used (empty if it can).
Platform* create_platform(const StreamApi& api, const std::string& load_problem) noexcept;

}  // namespace alloy::stream
