# Header-only dependencies (Boost.Hana, range-v3, CLI11, fmt) and GoogleTest: from the Debian
# packages (tools/install-deps.sh), or from TG_DEPS_DIR on machines without them (tools/gather-deps.sh).
# tg_dsl_deps: what dsl/, lowering/ and ops/ need (Boost.Hana); tg_tool_deps: what examples and
# tests add (range-v3, CLI11, fmt). Kept apart so that nvcc-compiled code sees no C++ feature
# requirements of host-only libraries.
add_library(tg_dsl_deps INTERFACE)
add_library(tg_tool_deps INTERFACE)
if(TG_DEPS_DIR)
  target_include_directories(tg_dsl_deps SYSTEM INTERFACE ${TG_DEPS_DIR}/include)
  target_compile_definitions(tg_tool_deps INTERFACE FMT_HEADER_ONLY=1)
  if(TG_BUILD_TESTS)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    add_subdirectory(${TG_DEPS_DIR}/googletest ${CMAKE_BINARY_DIR}/_deps/googletest EXCLUDE_FROM_ALL)
    if(NOT TARGET GTest::gtest_main)  # googletest >= 1.11 defines these itself
      add_library(GTest::gtest_main ALIAS gtest_main)
      add_library(GTest::gmock ALIAS gmock)
    endif()
  endif()
else()
  find_package(Boost 1.71 REQUIRED)
  find_package(range-v3 REQUIRED)
  find_package(CLI11 REQUIRED)
  find_package(fmt REQUIRED)
  target_link_libraries(tg_dsl_deps INTERFACE Boost::headers)
  target_link_libraries(tg_tool_deps INTERFACE range-v3::range-v3 CLI11::CLI11 fmt::fmt)
  if(TG_BUILD_TESTS)
    find_package(GTest REQUIRED)
  endif()
endif()
