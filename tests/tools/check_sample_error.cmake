# Script mode: runs SAMPLE (with ARGS, a ;-list) where a setting is wrong
# and checks that it ends as a program should: exit status 1 and the error's
# reason on stderr matching EXPECT, not std::terminate's abort.
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${SAMPLE} ${ARGS} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(NOT result STREQUAL "1")
  message(FATAL_ERROR "${SAMPLE} ended with ${result}, not 1; it printed:\n${output}${errors}")
endif()
if(NOT errors MATCHES "${EXPECT}")
  message(FATAL_ERROR "${SAMPLE}'s errors do not match \"${EXPECT}\":\n${errors}")
endif()
