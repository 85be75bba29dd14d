# Script mode: alloy-info --profiles on a profile folder holding, for the
# first device alloy finds, its own profile and one made under an older
# driver. Both must be listed at their levels, the older one as stale with
# what to do; --json must say the same.
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${ALLOY_INFO} --json OUTPUT_VARIABLE document RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "alloy-info --json exited with ${result}")
endif()
string(JSON backend_count LENGTH "${document}" backends)
math(EXPR last "${backend_count} - 1")
set(found FALSE)
foreach(i RANGE ${last})
  string(JSON device_count LENGTH "${document}" backends ${i} devices)
  if(device_count GREATER 0 AND NOT found)
    set(found TRUE)
    string(JSON device GET "${document}" backends ${i} devices 0)
    string(JSON backend GET "${document}" backends ${i} backend)
  endif()
endforeach()
if(NOT found)
  message("skipped: alloy-info finds no device to list profiles for")
  return()
endif()

# A JSON string of `value`.
function(json_string out value)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  set(${out} "\"${value}\"" PARENT_SCOPE)
endfunction()

# Writes a profile of the device under `driver` and `fingerprint`, with one
# entry whose BLOCK is `block`.
function(write_profile file driver fingerprint block)
  set(profile [=[{"format": "alloy-profile", "version": 1, "device": {}, "entries": [
    {"kernel": "test.scale", "source_hash": "0", "problem": [4096], "configuration": {"BLOCK": 0},
     "seconds": 0.00125, "default_seconds": 0.002, "samples": 7, "provenance": "autotune",
     "budget": {"strategy": "exhaustive", "evaluations": 4, "space_size": 4, "seconds": 1.5}}]}]=])
  foreach(field backend name vendor architecture)
    json_string(value "${${field}}")
    string(JSON profile SET "${profile}" device ${field} "${value}")
  endforeach()
  json_string(value "${driver}")
  string(JSON profile SET "${profile}" device driver_version "${value}")
  json_string(value "${fingerprint}")
  string(JSON profile SET "${profile}" device fingerprint "${value}")
  string(JSON profile SET "${profile}" entries 0 configuration BLOCK ${block})
  file(WRITE "${file}" "${profile}")
endfunction()

foreach(field name vendor architecture driver_version fingerprint)
  string(JSON ${field} GET "${device}" ${field})
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
write_profile("${WORK_DIR}/current.json" "${driver_version}" "${fingerprint}" 64)
string(REPLACE "|${driver_version}|" "|0.0-older|" older_fingerprint "${fingerprint}")
write_profile("${WORK_DIR}/older.json" "0.0-older" "${older_fingerprint}" 16)

execute_process(COMMAND ${CMAKE_COMMAND} -E env ALLOY_PROFILE_DIR=${WORK_DIR} ${ALLOY_INFO} --profiles
                OUTPUT_VARIABLE text RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "alloy-info --profiles exited with ${result}")
endif()
foreach(expected "device  current.json" "other-driver  older.json"
                 "stale: tuned under driver 0.0-older; this device runs driver ${driver_version}"
                 "rerun `autotune` for this driver" "test.scale  4096  BLOCK=64  1.25 ms, 7 samples, autotune"
                 "BLOCK=16")
  string(FIND "${text}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "alloy-info --profiles does not print '${expected}':\n${text}")
  endif()
endforeach()
# The device's own profile comes before the stale one.
string(FIND "${text}" "current.json" current_at)
string(FIND "${text}" "older.json" older_at)
if(NOT current_at LESS older_at)
  message(FATAL_ERROR "the device's own profile is not listed first:\n${text}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env ALLOY_PROFILE_DIR=${WORK_DIR} ${ALLOY_INFO} --profiles --json
                OUTPUT_VARIABLE listed RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "alloy-info --profiles --json exited with ${result}")
endif()
string(JSON level GET "${listed}" profiles devices 0 profiles 1 level)
string(JSON stale GET "${listed}" profiles devices 0 profiles 1 stale)
string(JSON own_stale GET "${listed}" profiles devices 0 profiles 0 stale)
string(JSON samples GET "${listed}" profiles devices 0 profiles 0 entries 0 samples)
if(NOT level STREQUAL "other-driver" OR NOT stale OR own_stale OR NOT samples EQUAL 7)
  message(FATAL_ERROR "alloy-info --profiles --json does not mark the older profile stale:\n${listed}")
endif()
