# Run after a test executable is built (see alloy_discover_test_groups in
# tests/CMakeLists.txt): lists its doctest cases and writes one ctest test per
# group of cases, the cases whose names share all but the last part
# ("Executor.Dependencies.a" and "Executor.Dependencies.b" form
# "Executor.Dependencies"). A group runs in one process, which starts the
# runtime and its devices once for all its cases.
#
# A group named in TEST_RUN_ALONE compares measured times: it gets the
# property RUN_SERIAL, so a parallel ctest never runs it beside another test,
# and the label load-sensitive.
#
# In: TEST_EXECUTABLE, TEST_PREFIX, TEST_EXTRA_ARGS, TEST_PROPERTIES,
# TEST_LABELS, TEST_RUN_ALONE, TEST_WORKING_DIR, CTEST_FILE.

cmake_minimum_required(VERSION 3.25)  # script mode: the policies of the project's version

if(NOT EXISTS "${TEST_EXECUTABLE}")
  message(FATAL_ERROR "test executable ${TEST_EXECUTABLE} does not exist")
endif()
execute_process(COMMAND "${TEST_EXECUTABLE}" --list-test-cases
                OUTPUT_VARIABLE listing RESULT_VARIABLE result
                WORKING_DIRECTORY "${TEST_WORKING_DIR}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "listing the cases of ${TEST_EXECUTABLE} failed (${result}):\n${listing}")
endif()

# Writes one command of the ctest file, each argument quoted as a bracket
# argument where it holds more than a plain word.
set(script "")
function(add_command name)
  set(arguments "")
  foreach(argument IN LISTS ARGN)
    if(argument MATCHES "[^-./:a-zA-Z0-9_]")
      string(APPEND arguments " [==[${argument}]==]")
    else()
      string(APPEND arguments " ${argument}")
    endif()
  endforeach()
  set(script "${script}${name}(${arguments})\n" PARENT_SCOPE)
endfunction()

string(REPLACE "\n" ";" lines "${listing}")
set(groups "")
foreach(line IN LISTS lines)
  if(line STREQUAL "" OR line MATCHES "^===+$" OR line MATCHES "^\\[doctest\\] ")
    continue()
  endif()
  string(REGEX REPLACE "\\.[^.]*$" "" group "${line}")
  string(MAKE_C_IDENTIFIER "${group}" key)
  if(NOT DEFINED cases_${key})
    list(APPEND groups "${group}")
  endif()
  # doctest splits --test-case at commas: a comma in a name is escaped.
  string(REPLACE "," "\\," escaped "${line}")
  if(DEFINED cases_${key})
    string(APPEND cases_${key} ",${escaped}")
  else()
    set(cases_${key} "${escaped}")
  endif()
endforeach()

foreach(group IN LISTS groups)
  string(MAKE_C_IDENTIFIER "${group}" key)
  set(properties ${TEST_PROPERTIES})
  set(labels ${TEST_LABELS})
  if(group IN_LIST TEST_RUN_ALONE)
    list(APPEND properties RUN_SERIAL TRUE)
    list(APPEND labels load-sensitive)
  endif()
  add_command(add_test "${TEST_PREFIX}${group}" "${TEST_EXECUTABLE}" "--test-case=${cases_${key}}"
              ${TEST_EXTRA_ARGS})
  add_command(set_tests_properties "${TEST_PREFIX}${group}" PROPERTIES
              WORKING_DIRECTORY "${TEST_WORKING_DIR}" ${properties})
  # The labels are one list-valued property, written as one quoted argument.
  string(APPEND script "set_tests_properties([==[${TEST_PREFIX}${group}]==] PROPERTIES LABELS \"${labels}\")\n")
endforeach()
foreach(group IN LISTS TEST_RUN_ALONE)
  if(NOT group IN_LIST groups)
    message(FATAL_ERROR "${TEST_EXECUTABLE} has no group ${group} to run alone")
  endif()
endforeach()
file(WRITE "${CTEST_FILE}" "${script}")
