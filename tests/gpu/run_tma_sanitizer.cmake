# One problem of the TMA GEMM pipeline (lowering/gpu/tma_gemm/) under compute-sanitizer TOOL, on a GPU
# (skipped, visibly, without one): any reported error fails, and so does a run that did not take the
# TMA pipeline (an sm_90a GPU is needed for that: other GPUs report it and skip).
execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE no_gpu OUTPUT_QUIET ERROR_QUIET)
if(no_gpu)
  message("no GPU on this machine: TMA ${TOOL} check skipped")
  return()
endif()
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${SANITIZER} --tool ${TOOL} --error-exitcode 3 ${BUILD}/examples/${OP} ${args} --backend gpu --explain
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(rc)
  message(FATAL_ERROR "${OP} under ${TOOL}: exit code ${rc}")
endif()
if(NOT out MATCHES "gemm path: tma_gemm")
  execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader OUTPUT_VARIABLE cap)
  if(NOT cap MATCHES "^9\\.0")
    message("no GPU on this machine takes the TMA pipeline (compute capability ${cap}): check skipped")
    return()
  endif()
  message(FATAL_ERROR "${OP}: the problem did not take the TMA pipeline")
endif()
