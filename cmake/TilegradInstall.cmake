# `cmake --install`: the headers (dsl/, arch/, lowering/, ops/, instances/) under include/tilegrad, the GPU instance
# library where built, and a CMake package: find_package(tilegrad) gives tilegrad::tilegrad (header-only
# DSL, op programs and host backend; C++20) and tilegrad::gpu (the GPU backend's op instantiations, linked
# with the CUDA runtime) where this build made it. The package's config creates its own imported targets
# (cmake/tilegradConfig.cmake.in) rather than exporting the build's, which carry build-tree paths.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TG_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilegrad)
set(TG_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/tilegrad)
foreach(dir dsl arch lowering ops instances)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} DESTINATION ${TG_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
endforeach()

# Boost.Hana: the Debian package's Boost::headers for the consumer to find again, or (machines with
# TG_DEPS_DIR) the carried headers, installed beside tilegrad's.
set(TG_PACKAGE_BUNDLED_HANA OFF)
if(TG_DEPS_DIR)
  set(TG_PACKAGE_BUNDLED_HANA ON)
  install(DIRECTORY ${TG_DEPS_DIR}/include/boost DESTINATION ${TG_INSTALL_INCLUDEDIR}/third_party)
endif()

set(TG_PACKAGE_GPU OFF)
set(TG_PACKAGE_GPU_FILE "")
if(TG_HAVE_NVIDIA AND TARGET tilegrad_nvidia)
  set(TG_PACKAGE_GPU ON)
  install(TARGETS tilegrad_nvidia ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set(TG_PACKAGE_GPU_FILE ${CMAKE_STATIC_LIBRARY_PREFIX}tilegrad_nvidia${CMAKE_STATIC_LIBRARY_SUFFIX})
endif()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilegradConfig.cmake.in ${PROJECT_BINARY_DIR}/package/tilegradConfig.cmake
                              INSTALL_DESTINATION ${TG_INSTALL_CMAKEDIR} PATH_VARS TG_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/tilegradConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/tilegradConfig.cmake ${PROJECT_BINARY_DIR}/package/tilegradConfigVersion.cmake
        DESTINATION ${TG_INSTALL_CMAKEDIR})
