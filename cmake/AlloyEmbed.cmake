# alloy_embed_text(<target> FILES <file>...): each text file (a kernel source,
# the prelude) becomes a generated header "embedded/<stem>_source.hpp" holding
# `alloy_kernels::<stem>_source` as a std::string_view, so programs carry their
# kernels and need no files at run time. Every embedded file is also recorded
# in the global property ALLOY_KERNEL_FILES, for checks over all kernels.
set(ALLOY_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_text.cmake)

function(alloy_embed_text target)
  cmake_parse_arguments(ARG "" "" "FILES" ${ARGN})
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/embedded_${target})
  foreach(file IN LISTS ARG_FILES)
    get_filename_component(input ${file} ABSOLUTE)
    get_filename_component(stem ${file} NAME_WE)
    string(MAKE_C_IDENTIFIER "${stem}_source" symbol)
    # The header names its input relative to the project root: the same
    # header in every clone, so the compiler cache shares what includes it.
    file(RELATIVE_PATH origin ${PROJECT_SOURCE_DIR} ${input})
    set(header ${out_dir}/embedded/${symbol}.hpp)
    add_custom_command(
      OUTPUT ${header}
      COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DORIGIN=${origin} -DOUTPUT=${header} -DSYMBOL=${symbol}
              -P ${ALLOY_EMBED_SCRIPT}
      DEPENDS ${input} ${ALLOY_EMBED_SCRIPT}
      COMMENT "Embedding ${file}")
    target_sources(${target} PRIVATE ${header})
    set_property(GLOBAL APPEND PROPERTY ALLOY_KERNEL_FILES ${input})
  endforeach()
  target_include_directories(${target} PRIVATE ${out_dir})
endfunction()
