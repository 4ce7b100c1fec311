# Install rules (cmake --install BUILD [--prefix DIR]): the headers, the
# static and shared libraries, ludus-trace, the CMake package
# (find_package(ludus CONFIG): ludus::ludus, ludus::shared, ludus::launch,
# ludus::analysis, ludus::analysis_shared, ludus::tracy_compat) and ludus.pc (static),
# ludus-shared.pc, ludus-analysis.pc, ludus-analysis-shared.pc and ludus-tracy.pc for
# pkg-config.
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ludus DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET ludus_tracy_compat) # Tracy's header names, in a directory of their own
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tracy-compat/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ludus-tracy)
endif()
install(TARGETS ${ludus_install_targets}
        EXPORT ludusTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET ludus-trace)
  set_target_properties(ludus-trace PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  install(TARGETS ludus-trace RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(ludus_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/ludus)
install(EXPORT ludusTargets NAMESPACE ludus:: DESTINATION ${ludus_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ludusConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/ludusConfig.cmake INSTALL_DESTINATION ${ludus_cmake_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ludusConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ludusConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/ludusConfigVersion.cmake
        DESTINATION ${ludus_cmake_dir})

# pkg-config: ludus.pc links the static library (LUDUS_TRACE included: -u
# pulls the launch code), so the program runs anywhere; ludus-shared.pc
# links libludus.so with an rpath to the installed lib directory. Both are
# relocatable: the prefix is found from the .pc file's own place
# (pcfiledir). A Tracy build: instrumented code sees the backend's seam, and
# a static link needs the C++ runtime of Tracy's client.
set(LUDUS_PC_CFLAGS "")
set(LUDUS_PC_LIBS_STATIC "")
if(LUDUS_BACKEND STREQUAL "tracy")
  set(LUDUS_PC_CFLAGS " -DLUDUS_BACKEND_TRACY=1")
  set(LUDUS_PC_LIBS_STATIC " -lstdc++ -ldl")
endif()
if(LUDUS_ZSTD) # compressed blocks (CMakeLists.txt, LUDUS_ZSTD)
  string(APPEND LUDUS_PC_LIBS_STATIC " -lzstd")
endif()
set(ludus_pc_files ludus ludus-analysis)
if(TARGET ludus_tracy_compat)
  list(APPEND ludus_pc_files ludus-tracy)
endif()
if(TARGET ludus_shared)
  list(APPEND ludus_pc_files ludus-shared ludus-analysis-shared)
endif()
foreach(pc ${ludus_pc_files})
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
