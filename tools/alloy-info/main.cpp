// alloy-info: lists every backend and device alloy finds, or why it finds none.
#include <iostream>

#include <CLI/CLI.hpp>

#include "alloy/error.hpp"
#include "device_table.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Lists every backend and device alloy finds, and why a backend has none."};
  bool as_json = false;
  app.add_flag("--json", as_json, "print JSON instead of a table");
  app.set_version_flag("--version", "alloy-info " ALLOY_VERSION);
  CLI11_PARSE(app, argc, argv);

  try {
    const alloy::Runtime runtime;
    if (as_json) {
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
