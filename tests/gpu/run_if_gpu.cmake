# Runs a GPU check when the machine has a GPU, else says so (ctest reports the test as skipped).
include(${CMAKE_CURRENT_LIST_DIR}/gpu_checks.cmake)
tg_require_gpu("${OP} GPU")
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
