# Runs a GPU check when the machine has a GPU, else says so (ctest reports the test as skipped).
execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE no_gpu OUTPUT_QUIET ERROR_QUIET)
if(no_gpu)
  message("no GPU on this machine: ${OP} GPU check skipped")
  return()
endif()
if(TOOL)
  # One small problem of the op under compute-sanitizer; any reported error fails.
  execute_process(COMMAND ${SANITIZER} --tool ${TOOL} --error-exitcode 3 ${BUILD}/examples/${OP} 1 2 0 --backend gpu --dtype fp16
                  RESULT_VARIABLE rc)
else()
  execute_process(COMMAND ${PY} ${SCRIPT} ${BUILD} ${OP} 12 RESULT_VARIABLE rc)
endif()
if(rc)
  message(FATAL_ERROR "${OP}: exit code ${rc}")
endif()
