// A plugin built for another ABI version: the loader must refuse it.
extern "C" __attribute__((visibility("default"))) unsigned alloy_plugin_abi_version() {
  return 999;
}
extern "C" __attribute__((visibility("default"))) void* alloy_plugin_create() { return nullptr; }
