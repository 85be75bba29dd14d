// A plugin compiled against a changed copy of the backend interface (see
// tests/CMakeLists.txt): its ABI number differs, and the loader must refuse
// it without calling into it.
#include "alloy/plugin.hpp"

namespace {

alloy::Platform* create_platform() noexcept { return nullptr; }

}  // namespace

ALLOY_DEFINE_PLUGIN(create_platform)
