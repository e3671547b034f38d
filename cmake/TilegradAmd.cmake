# AMD: Debian's ROCm 5.2 (clang 15). CMake's HIP language cannot find Debian's layout, so AMD code
# objects are made by custom commands that call clang++-15 -x hip directly (see docs/amd.md).
#
# What this builds when the HIP toolchain is found (all part of `all`):
#   build/amd/ops_<dtype>.o            the op programs x {fp32, fp16, bf16} on tg::gpu_backend, as HIP
#                                      objects with code for every target of TG_AMD_TARGETS
#   build/isa/amd/<target>/ops_<dtype>.s   the device assembly of those objects (the very code they
#                                      contain: -save-temps keeps what clang assembles, no second compile)
#   build/examples/amd/<op>            the examples, host code by clang++-15, linked with the objects
#                                      and libamdhip64 (they run without an AMD GPU on the host backend)
# and the ISA tests of tests/isa (label isa), which also check the NVIDIA archive when there is one.
set(TG_HAVE_AMD OFF)
set(TG_AMD_TARGETS gfx908 gfx90a gfx940 CACHE STRING "AMD targets")
if(TG_ENABLE_AMD)
  find_program(TG_HIP_CLANG NAMES clang++-15)
  find_path(TG_HIP_INCLUDE hip/hip_runtime.h PATHS /usr/include)
  find_path(TG_ROCM_BITCODE ockl.bc PATHS /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /opt/rocm/amdgcn/bitcode)
  find_library(TG_AMDHIP64 amdhip64 PATHS /usr/lib/x86_64-linux-gnu /opt/rocm/lib)
  if(TG_HIP_CLANG AND TG_HIP_INCLUDE AND TG_ROCM_BITCODE AND TG_AMDHIP64)
    set(TG_HAVE_AMD ON)
    message(STATUS "tilegrad: AMD targets ON (${TG_HIP_CLANG}, ${TG_AMD_TARGETS})")
  else()
    message(STATUS "tilegrad: HIP toolchain not found (clang++-15, hip/hip_runtime.h, ROCm bitcode, libamdhip64), AMD targets OFF")
  endif()
endif()

if(TG_HAVE_AMD)
  # The ROCm root: /usr for Debian's packages (hip/hip_runtime.h in /usr/include), else one level up.
  get_filename_component(TG_ROCM_PATH ${TG_HIP_INCLUDE} DIRECTORY)
  get_filename_component(_tg_hiplib_dir ${TG_AMDHIP64} DIRECTORY)
  set(_tg_amd_dir ${CMAKE_BINARY_DIR}/amd)
  set(_tg_isa_dir ${CMAKE_BINARY_DIR}/isa/amd)
  set(_tg_hip_flags -x hip --rocm-path=${TG_ROCM_PATH} --rocm-device-lib-path=${TG_ROCM_BITCODE} -std=c++20 -O3
                    -I${CMAKE_SOURCE_DIR})
  if(TG_DEPS_DIR)
    list(APPEND _tg_hip_flags -isystem ${TG_DEPS_DIR}/include)
  endif()
  set(_tg_arch_flags)
  foreach(t ${TG_AMD_TARGETS})
    list(APPEND _tg_arch_flags --offload-arch=${t})
    file(MAKE_DIRECTORY ${_tg_isa_dir}/${t})
  endforeach()
  file(MAKE_DIRECTORY ${_tg_amd_dir} ${CMAKE_BINARY_DIR}/examples/amd)
  # Inline every device function into its kernel (what hipcc used to pass by default). Without it
  # clang 15 keeps col2im_batch::views() as a real call in the convnd_bwd_data kernels (it is shared by
  # three kernels and large), and its returned views live on the stack: 1-6 KB of scratch per thread.
  set(TG_AMD_DEVICE_FLAGS -mllvm -amdgpu-early-inline-all=true -mllvm -amdgpu-function-calls=false)

  # 1. The op instances: one clang call per dtype compiles host + every target. -save-temps=obj keeps
  #    each target's assembly (what the device objects are assembled from); it is copied to
  #    build/isa/amd/<target>/ and the other temporaries are removed.
  file(GLOB TG_AMD_INSTANCE_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/instances/*.cpp)
  set(TG_AMD_OBJECTS)
  set(TG_AMD_ISA_FILES)
  foreach(src ${TG_AMD_INSTANCE_SOURCES})
    get_filename_component(stem ${src} NAME_WE)  # ops_fp16
    set(obj ${_tg_amd_dir}/${stem}.o)
    set(isa_outputs)
    set(copy_cmds)
    set(temps ${_tg_amd_dir}/${stem}-host-x86_64-pc-linux-gnu.bc ${_tg_amd_dir}/${stem}-host-x86_64-pc-linux-gnu.cui
              ${_tg_amd_dir}/${stem}-host-x86_64-pc-linux-gnu.s ${_tg_amd_dir}/${stem}.cpp-hip-amdgcn-amd-amdhsa.hipfb)
    foreach(t ${TG_AMD_TARGETS})
      set(dev ${_tg_amd_dir}/${stem}-hip-amdgcn-amd-amdhsa-${t})
      list(APPEND isa_outputs ${_tg_isa_dir}/${t}/${stem}.s)
      list(APPEND copy_cmds COMMAND ${CMAKE_COMMAND} -E copy ${dev}.s ${_tg_isa_dir}/${t}/${stem}.s)
      list(APPEND temps ${dev}.s ${dev}.bc ${dev}.cui ${dev}.o ${dev}.out ${dev}.out.resolution.txt)
    endforeach()
    add_custom_command(
      OUTPUT ${obj} ${isa_outputs}
      COMMAND ${TG_HIP_CLANG} ${_tg_hip_flags} ${_tg_arch_flags} ${TG_AMD_DEVICE_FLAGS} -save-temps=obj -MD -MT ${obj} -MF ${obj}.d -c ${src} -o ${obj}
      ${copy_cmds}
      COMMAND ${CMAKE_COMMAND} -E rm -f ${temps}
      DEPENDS ${src}
      DEPFILE ${obj}.d
      WORKING_DIRECTORY ${_tg_amd_dir}
      COMMENT "HIP ${stem} for ${TG_AMD_TARGETS} (object + ISA)"
      VERBATIM)
    list(APPEND TG_AMD_OBJECTS ${obj})
    list(APPEND TG_AMD_ISA_FILES ${isa_outputs})
  endforeach()
  add_custom_target(tilegrad_amd ALL DEPENDS ${TG_AMD_OBJECTS} ${TG_AMD_ISA_FILES})

  # 2. The examples: host code only (--cuda-host-only: the kernels are in the instance objects, which
  #    instances/gpu_ops.hpp declares extern), linked by clang's HIP driver with libamdhip64.
  set(TG_AMD_EXAMPLES)
  if(TG_BUILD_EXAMPLES)
    set(_tg_tool_flags -DFMT_HEADER_ONLY=1)  # fmt's compiled library is built by g++; header-only is simplest
    foreach(ex maxpool2d_bwd avgpool3d_bwd convnd_bwd_data groupnorm_bwd grouped_conv_bwd_weight conv_fwd)
      set(src ${CMAKE_SOURCE_DIR}/examples/${ex}.cpp)
      if(NOT EXISTS ${src})
        continue()
      endif()
      set(obj ${_tg_amd_dir}/example_${ex}.o)
      set(exe ${CMAKE_BINARY_DIR}/examples/amd/${ex})
      add_custom_command(
        OUTPUT ${obj}
        COMMAND ${TG_HIP_CLANG} ${_tg_hip_flags} --cuda-host-only ${_tg_tool_flags} -DTG_WITH_GPU=1 -I${CMAKE_SOURCE_DIR}/examples
                -MD -MT ${obj} -MF ${obj}.d -c ${src} -o ${obj}
        DEPENDS ${src}
        DEPFILE ${obj}.d
        COMMENT "HIP host ${ex}"
        VERBATIM)
      add_custom_command(
        OUTPUT ${exe}
        COMMAND ${TG_HIP_CLANG} --hip-link --rocm-path=${TG_ROCM_PATH} -o ${exe} ${obj} ${TG_AMD_OBJECTS}
                -L${_tg_hiplib_dir} -Wl,-rpath,${_tg_hiplib_dir} -lamdhip64
        DEPENDS ${obj} ${TG_AMD_OBJECTS}
        COMMENT "HIP link examples/amd/${ex}"
        VERBATIM)
      list(APPEND TG_AMD_EXAMPLES ${exe})
    endforeach()
    add_custom_target(tilegrad_amd_examples ALL DEPENDS ${TG_AMD_EXAMPLES})
  endif()
endif()

# The ISA tests (tests/isa, label isa): the AMD outputs above and, when built, tilegrad_nvidia
# (TilegradNvidia.cmake runs before this file). tests/isa calls enable_testing() itself, since the
# root calls it only after this file.
if(TG_BUILD_TESTS AND (TG_HAVE_AMD OR TG_HAVE_NVIDIA))
  add_subdirectory(${CMAKE_SOURCE_DIR}/tests/isa ${CMAKE_BINARY_DIR}/tests/isa)
endif()
