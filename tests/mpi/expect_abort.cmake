# Runs COMMAND (a ;-list) and passes only if it exits non-zero, within
# TIMEOUT seconds, with every regular expression of EXPECT (a ;-list) in its
# output: a failing rank ends the whole job, and no rank hangs.
separate_arguments(command UNIX_COMMAND "${COMMAND}")
string(TIMESTAMP started "%s")
execute_process(COMMAND ${command} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT ${TIMEOUT})
string(TIMESTAMP ended "%s")
math(EXPR took "${ended} - ${started}")
set(output "${out}${err}")
message("${output}")
if(result MATCHES "timeout" OR took GREATER_EQUAL TIMEOUT)
  message(FATAL_ERROR "the job did not end within ${TIMEOUT} s: a rank hangs")
endif()
if(result EQUAL 0)
  message(FATAL_ERROR "the job exited 0; a failed task must end it with a non-zero code")
endif()
foreach(expected IN LISTS EXPECT)
  if(NOT output MATCHES "${expected}")
    message(FATAL_ERROR "the output does not say '${expected}'")
  endif()
endforeach()
message("exited ${result} in ${took} s, naming the rank and the task")
