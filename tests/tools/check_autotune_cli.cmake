# Script mode: the `autotune` command's listing and exit statuses for mistakes
# on its command line (a real tuning run is in test_tuning).
cmake_minimum_required(VERSION 3.25)

function(expect_status status)
  execute_process(COMMAND ${AUTOTUNE} ${ARGN} --profile-dir ${WORK_DIR}/profiles
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE result)
  if(NOT result EQUAL status)
    message(FATAL_ERROR "autotune ${ARGN} exited with ${result}, expected ${status}\n${out}\n${err}")
  endif()
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()

expect_status(0 --list)
foreach(kernel alloy.gemm alloy.transpose alloy.reduce alloy.triad)
  if(NOT last_output MATCHES "${kernel}")
    message(FATAL_ERROR "autotune --list does not list ${kernel}:\n${last_output}")
  endif()
endforeach()
expect_status(2 --kernel no.such.kernel)
if(NOT last_output MATCHES "no kernel called no.such.kernel")
  message(FATAL_ERROR "unknown kernel not named:\n${last_output}")
endif()
expect_status(2 --strategy guessing)
expect_status(2 --size 12x-4 --kernel alloy.triad)
expect_status(2 --device 999 --kernel alloy.triad)
if(NOT last_output MATCHES "matches no device")
  message(FATAL_ERROR "unknown device not explained:\n${last_output}")
endif()
expect_status(2 --budget-fraction 1.5)
expect_status(3 --kernel alloy.gemm --size 4096)
if(NOT last_output MATCHES "nothing to tune")
  message(FATAL_ERROR "an empty selection is not explained:\n${last_output}")
endif()

# Numeric options: a negative value for an unsigned option, a fraction for a
# whole number, or a value out of range is refused, naming the option and
# the limit in a few digits (not DBL_MAX's 309).
foreach(case "--budget-evaluations;-1;a whole number of at least 0"
             "--budget-stall;-1;a whole number of at least 0"
             "--seed;-1;a whole number of at least 0"
             "--seed;18446744073709551616;a whole number of at least 0"
             "--budget-evaluations;1.5;a whole number of at least 0"
             "--max-repetitions;2;a whole number from 3 to 1000"
             "--timeout;-1;more than 0"
             "--timeout;0;more than 0"
             "--budget-seconds;-1;at least 0"
             "--budget-fraction;1.5;a number from 0 to 1")
  list(GET case 0 option)
  list(GET case 1 value)
  list(GET case 2 limit)
  expect_status(2 --kernel alloy.triad ${option} ${value})
  if(NOT last_output MATCHES "${option}: must be ${limit}, not ${value}")
    message(FATAL_ERROR "autotune ${option} ${value}: the refusal does not name the option and "
                        "its limit:\n${last_output}")
  endif()
  if(last_output MATCHES "[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]")
    message(FATAL_ERROR "autotune ${option} ${value}: a limit printed in full:\n${last_output}")
  endif()
endforeach()
