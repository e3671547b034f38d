# cmake -DEXE=<program> -DARGS=<space-separated arguments> -DEXPECT_RC=<code> [-DEXPECT_OUT=<regex>]
#       [-DGPU_RC=<code> -DGPU_OUT=<regex>] -P run_expect.cmake
# Runs EXE and checks its exit code and output. GPU_RC/GPU_OUT: what also passes when the machine
# has a GPU after all (an AMD example asked for --backend gpu on an Instinct machine runs there).
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND "${EXE}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("$ ${EXE} ${ARGS}\n${out}${err}exit code: ${rc}")
if(DEFINED GPU_RC AND "${rc}" STREQUAL "${GPU_RC}" AND "${out}${err}" MATCHES "${GPU_OUT}")
  message("a GPU is present: it ran there")
  return()
endif()
if(NOT "${rc}" STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_RC}")
endif()
if(DEFINED EXPECT_OUT AND NOT "${out}${err}" MATCHES "${EXPECT_OUT}")
  message(FATAL_ERROR "the output does not match: ${EXPECT_OUT}")
endif()
