# Script mode: installs the build tree into a fresh prefix, then configures,
# builds and runs a consumer project that uses find_package(alloy) against it.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}")
  endif()
endfunction()

run_step(${CMAKE_COMMAND} --install ${ALLOY_BUILD_DIR} --prefix ${prefix})
run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/consumer -G ${GENERATOR}
         -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run_step(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run_step(${WORK_DIR}/consumer/alloy_consumer)

# The consumer's own autotune tunes its kernel; the consumer then runs it
# with the configuration of the profile that was written.
set(profiles ${WORK_DIR}/profiles)
run_step(${WORK_DIR}/consumer/consumer_autotune -k consumer.add_one --budget-evaluations 4
         --profile-dir ${profiles} --log ${WORK_DIR}/tuning-log.jsonl)
file(GLOB profile_files ${profiles}/*.json)
if(NOT profile_files)
  message(FATAL_ERROR "consumer_autotune wrote no profile in ${profiles}")
endif()
run_step(${CMAKE_COMMAND} -E env ALLOY_PROFILE_DIR=${profiles} ${WORK_DIR}/consumer/alloy_consumer --tuned)

# A program linked with the runtime alone writes its trace file through the
# installed trace library, which the runtime opens; alloy::trace reads it.
run_step(${WORK_DIR}/consumer/consumer_traced ${WORK_DIR}/consumer-trace.json)
run_step(${WORK_DIR}/consumer/consumer_trace_reader ${WORK_DIR}/consumer-trace.json)

# alloy::mpi's consumer, where alloy was built with MPI: one rank, started
# without mpiexec (Open MPI's singleton), which must not mind root either.
if(EXISTS ${WORK_DIR}/consumer/consumer_mpi)
  run_step(${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
           ${WORK_DIR}/consumer/consumer_mpi)
endif()
