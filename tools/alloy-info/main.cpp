// alloy-info: lists every backend and device alloy finds, or why it finds none;
// with --profiles, the tuning profiles that answer for each device.
#include <iostream>

#include <CLI/CLI.hpp>

#include "alloy/error.hpp"
#include "device_table.hpp"
#include "profile_table.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Lists every backend and device alloy finds, and why a backend has none."};
  bool as_json = false;
  app.add_flag("--json", as_json, "print JSON instead of a table");
  bool profiles = false;
  app.add_flag("--profiles", profiles,
               "list the tuning profiles that answer for each device, with their entries; stale ones say so");
  app.set_version_flag("--version", "alloy-info " ALLOY_VERSION);
  CLI11_PARSE(app, argc, argv);

  try {
    alloy::Runtime runtime;
    if (profiles && as_json) {
      const nlohmann::json document{{"alloy_version", ALLOY_VERSION},
                                    {"profiles", alloy::info::profiles_to_json(runtime.devices(), runtime.profiles())}};
      std::cout << document.dump(2) << '\n';
    } else if (profiles) {
      std::cout << alloy::info::format_profiles(runtime.devices(), runtime.profiles());
    } else if (as_json) {
      const nlohmann::json document{{"alloy_version", ALLOY_VERSION},
                                    {"backends", alloy::info::to_json(runtime.backends())}};
      std::cout << document.dump(2) << '\n';
    } else {
      std::cout << alloy::info::format_table(runtime.backends());
    }
  } catch (const alloy::Error& error) {
    std::cerr << "alloy-info: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
