# Helpers of the GPU checks' scripts (cmake -P): each is a macro, so that its return() ends the
# calling script, and a skip says "check skipped" (the tests' SKIP_REGULAR_EXPRESSION).

# tg_require_gpu(WHAT): skip the check WHAT where this machine has no GPU.
macro(tg_require_gpu what)
  execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE _tg_no_gpu OUTPUT_QUIET ERROR_QUIET)
  if(_tg_no_gpu)
    message("no GPU on this machine: ${what} check skipped")
    return()
  endif()
endmacro()

# tg_require_path(VAR PATTERN WHAT): a GPU check's run (its --explain output in variable VAR) must
# have taken the path PATTERN. Where it did not because this machine's GPU cannot take that path (the
# TMA pipeline needs compute capability 9.0), the check is skipped, visibly ("check skipped"); else it
# fails.
macro(tg_require_path var pattern what)
  if(NOT "${${var}}" MATCHES "${pattern}")
    execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader OUTPUT_VARIABLE _tg_cap)
    if(NOT _tg_cap MATCHES "^9\\.0")
      message("no GPU on this machine takes ${what} (compute capability ${_tg_cap}): check skipped")
      return()
    endif()
    message(FATAL_ERROR "${OP}: the problem did not take ${what}")
  endif()
endmacro()
