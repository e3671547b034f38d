# One problem of a GEMM pipeline under compute-sanitizer TOOL, on a GPU (skipped, visibly, without one):
# any reported error fails, and so does a run that did not take the path PATH (default: the TMA
# pipeline, lowering/gpu/tma_gemm/; an sm_90a GPU is needed for that: other GPUs report it and skip).
include(${CMAKE_CURRENT_LIST_DIR}/gpu_checks.cmake)
if(NOT PATH)
  set(PATH "gemm path: tma_gemm")
endif()
tg_require_gpu("${PATH} ${TOOL}")
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${SANITIZER} --tool ${TOOL} --error-exitcode 3 ${BUILD}/examples/${OP} ${args} --backend gpu --explain
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(rc)
  message(FATAL_ERROR "${OP} under ${TOOL}: exit code ${rc}")
endif()
tg_require_path(out "${PATH}" "the path '${PATH}'")
