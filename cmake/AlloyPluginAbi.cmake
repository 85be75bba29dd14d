# The plugin ABI number, generated from the backend interface: the headers a
# plugin is compiled against (alloy/plugin.hpp and what it includes, followed
# transitively through "alloy/..." includes), alloy/error.hpp, whose
# exceptions backends throw across the boundary, and alloy/emulated_kernels.hpp,
# the registry the emulated backend reads from the runtime. Any change to one of them gives
# another number, so the runtime refuses a plugin built before the change.

# Sets `out_var` to the interface headers under `include_dir`, relative to it.
function(alloy_plugin_interface_headers include_dir out_var)
  set(pending "alloy/plugin.hpp" "alloy/error.hpp" "alloy/emulated_kernels.hpp")
  set(found "")
  while(pending)
    list(POP_FRONT pending header)
    if(header IN_LIST found OR header STREQUAL "alloy/plugin_abi.hpp")
      continue()
    endif()
    list(APPEND found ${header})
    file(STRINGS "${include_dir}/${header}" includes REGEX "^#include \"alloy/")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^#include \"(alloy/[^\"]+)\".*" "\\1" included "${line}")
      list(APPEND pending ${included})
    endforeach()
  endwhile()
  list(SORT found)
  set(${out_var} ${found} PARENT_SCOPE)
endfunction()

# Writes `output_dir`/alloy/plugin_abi.hpp with the ABI number of the
# interface under `include_dir`; reconfigures when one of its headers changes.
function(alloy_generate_plugin_abi include_dir output_dir)
  alloy_plugin_interface_headers(${include_dir} headers)
  set(text "")
  foreach(header IN LISTS headers)
    file(READ "${include_dir}/${header}" contents)
    string(APPEND text "${header}\n${contents}\n")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${include_dir}/${header}")
  endforeach()
  string(SHA256 digest "${text}")
  string(SUBSTRING ${digest} 0 8 abi)
  list(JOIN headers "\n//   " header_list)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/plugin_abi.hpp.in ${output_dir}/alloy/plugin_abi.hpp @ONLY)
endfunction()
