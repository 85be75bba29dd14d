# Extracts the fenced code blocks of a Markdown file at configure time, so
# that every example in README.md and docs/ is compiled (and the complete
# ones run) by the tests: an example that drifts from the API breaks the
# build instead of the reader.
#
# A ```cpp block that defines `int main(` is a complete program. Any other
# ```cpp block is a fragment: it is compiled as the body of a function, after
# its `#include` lines are moved above it. A fragment that uses names from the
# surrounding text declares them in an HTML comment right above the block,
# which Markdown does not render:
#
#   <!-- snippet context:
#   alloy::Runtime runtime;
#   -->
#
# A program that must not run in the tests (one that runs for minutes, say)
# has `<!-- snippet: compile only (why) -->` right above it.
#
# A ```c block is a kernel in alloy's dialect; the tests compile it on every
# device. A ```json block must parse, and one with "kernels" must load as a
# tuning manifest, unless it is marked `<!-- snippet: fragment -->`. A block
# marked `<!-- snippet: file NAME -->` is also written as NAME beside the
# page's JSON blocks, for a manifest to name.
#
# Only string operations are used on the text: CMake lists would split C++ at
# its semicolons.

# Writes `content` to `path` only when it differs, so that reconfiguring does
# not rebuild unchanged snippets.
function(_alloy_write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${content}")
endfunction()

# The lines of a `<!-- snippet context: ... -->` comment that ends right
# before `fence` (a position in `text`), or "" when there is none.
function(_alloy_snippet_context text fence out)
  set(${out} "" PARENT_SCOPE)
  string(SUBSTRING "${text}" 0 ${fence} before)
  set(opening "<!-- snippet context:\n")
  string(FIND "${before}" "${opening}" start REVERSE)
  if(start EQUAL -1 OR NOT before MATCHES "\n-->\n$")
    return()
  endif()
  string(LENGTH "${opening}" opening_length)
  string(LENGTH "${before}" before_length)
  math(EXPR lines_start "${start} + ${opening_length}")
  math(EXPR lines_length "${before_length} - 4 - ${lines_start}")
  string(SUBSTRING "${before}" ${lines_start} ${lines_length} lines)
  if(lines MATCHES "-->")
    return()  # the comment just above is another one
  endif()
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

# The words of a one-line `<!-- snippet: ... -->` comment that ends right
# before `fence`, or "".
function(_alloy_snippet_marker text fence out)
  set(${out} "" PARENT_SCOPE)
  string(SUBSTRING "${text}" 0 ${fence} before)
  if(before MATCHES "<!-- snippet: ([^\n]*) -->\n$")
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  endif()
endfunction()

# alloy_extract_snippets(<markdown> <folder> <prefix>): writes each block of
# <markdown> under <folder> as <prefix>_<n>.{cpp,cl,json} and sets, in the
# caller's scope, <prefix>_PROGRAMS (to run), <prefix>_COMPILE_ONLY (programs
# not to run), <prefix>_FRAGMENTS, <prefix>_KERNELS and <prefix>_JSON to the
# files written.
function(alloy_extract_snippets markdown folder prefix)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${markdown}")
  file(READ "${markdown}" text)
  # Named relative to the project root, so every clone writes the same
  # sources and the compiler cache shares their objects.
  file(RELATIVE_PATH page_path "${PROJECT_SOURCE_DIR}" "${markdown}")
  file(MAKE_DIRECTORY "${folder}")
  set(programs "")
  set(compile_only "")
  set(fragments "")
  set(kernels "")
  set(json "")
  set(files_folder "${folder}/${prefix}_files")
  file(MAKE_DIRECTORY "${files_folder}")
  set(index 0)
  set(offset 0)
  while(TRUE)
    string(SUBSTRING "${text}" ${offset} -1 rest)
    string(REGEX MATCH "(^|\n) *```(cpp|c|json)\n" opening "${rest}")
    if(NOT opening)
      break()
    endif()
    set(language "${CMAKE_MATCH_2}")
    string(FIND "${rest}" "${opening}" start)
    string(LENGTH "${opening}" opening_length)
    string(FIND "${opening}" "```" tick)
    math(EXPR fence "${offset} + ${start} + ${tick}")
    math(EXPR body_start "${offset} + ${start} + ${opening_length}")
    string(SUBSTRING "${text}" ${body_start} -1 from_body)
    string(REGEX MATCH "\n *```" closing "${from_body}")
    if(NOT closing)
      message(FATAL_ERROR "${markdown}: a ```${language} block is not closed")
    endif()
    string(FIND "${from_body}" "${closing}" body_length)
    string(LENGTH "${closing}" closing_length)
    math(EXPR body_length "${body_length} + 1")
    string(SUBSTRING "${from_body}" 0 ${body_length} body)
    math(EXPR offset "${body_start} + ${body_length} + ${closing_length} - 1")
    math(EXPR index "${index} + 1")

    set(origin "// Extracted from ${page_path}, block ${index}, by tests/docs/doc_snippets.cmake.\n")
    _alloy_snippet_marker("${text}" ${fence} marker)
    if(marker AND NOT marker MATCHES "^(file .+|fragment|compile only.*)$")
      message(FATAL_ERROR "${markdown}: block ${index}: unknown marker `snippet: ${marker}`")
    endif()
    if(marker MATCHES "^file (.+)$")
      _alloy_write_if_changed("${files_folder}/${CMAKE_MATCH_1}" "${body}")
    endif()
    if(language STREQUAL "json")
      if(NOT marker STREQUAL "fragment")
        set(path "${files_folder}/${prefix}_${index}.json")
        _alloy_write_if_changed("${path}" "${body}")
        list(APPEND json "${path}")
      endif()
      continue()
    endif()
    if(language STREQUAL "c")
      set(path "${folder}/${prefix}_${index}.cl")
      _alloy_write_if_changed("${path}" "${body}")
      list(APPEND kernels "${path}")
      continue()
    endif()
    set(path "${folder}/${prefix}_${index}.cpp")
    _alloy_snippet_context("${text}" ${fence} context)
    if(body MATCHES "(^|\n)int main\\(")
      _alloy_write_if_changed("${path}" "${origin}${context}${body}")
      if(marker MATCHES "^compile only")
        list(APPEND compile_only "${path}")
      else()
        list(APPEND programs "${path}")
      endif()
    else()
      string(REGEX MATCHALL "#include [^\n]*\n" includes "${context}${body}")
      string(REGEX REPLACE "#include [^\n]*\n" "" statements "${context}${body}")
      string(REPLACE ";" "" includes "${includes}")  # the list's separators
      _alloy_write_if_changed("${path}" "${origin}#include <alloy/alloy.hpp>\n${includes}\n\
[[maybe_unused]] static void ${prefix}_${index}() {\n${statements}}\n")
      list(APPEND fragments "${path}")
    endif()
  endwhile()
  set(${prefix}_PROGRAMS "${programs}" PARENT_SCOPE)
  set(${prefix}_COMPILE_ONLY "${compile_only}" PARENT_SCOPE)
  set(${prefix}_FRAGMENTS "${fragments}" PARENT_SCOPE)
  set(${prefix}_KERNELS "${kernels}" PARENT_SCOPE)
  set(${prefix}_JSON "${json}" PARENT_SCOPE)
endfunction()
