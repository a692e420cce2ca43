# Installation: headers, libvif shared (libvif.so, target vif) and static (libvif.a, target
# vif_static), vif_ffmpeg when built, the vif CLI when built, a CMake package and pkg-config
# files. Included at the end of the top-level CMakeLists.txt, after every target exists.
#
#   cmake --install build --prefix /opt/vif
#   find_package(vif CONFIG REQUIRED)      -> vif::vif (shared), vif::vif_static,
#                                             vif::ffmpeg (component ffmpeg, when built)
#   pkg-config --cflags --libs vif         -> shared; add --static for libvif.a's dependencies
#   pkg-config --cflags --libs vif-ffmpeg  -> vif_ffmpeg + libvif + libavutil
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(VIF_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/vif CACHE STRING
    "Where the CMake package files (vifConfig.cmake) go, relative to the prefix")
mark_as_advanced(VIF_INSTALL_CMAKEDIR)

# ---- Targets -------------------------------------------------------------------------------
set(_vif_install_targets vif)
if(TARGET vif_static)
  list(APPEND _vif_install_targets vif_static)
endif()
if(VIF_WITH_FFMPEG AND TARGET vif_ffmpeg)
  list(APPEND _vif_install_targets vif_ffmpeg)
  # Find the libvif.so installed beside it wherever the prefix is.
  set_target_properties(vif_ffmpeg PROPERTIES INSTALL_RPATH "$ORIGIN")
endif()

# Components (cmake/packaging.cmake makes one Debian package of each): runtime (libvif.so.1 and
# libvif_ffmpeg.so.1), dev (headers, the unversioned links, libvif.a, CMake and pkg-config
# files), cli (vif, vif-sweep).
install(TARGETS ${_vif_install_targets}
  EXPORT vifTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The CLI (tools/vif), when built.
if(TARGET vif_cli)
  file(RELATIVE_PATH _rel ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
  set_target_properties(vif_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${_rel}")
  install(TARGETS vif_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
endif()
# vif-sweep (CUDA builds) links libvif.a: no run path needed.
if(TARGET vif_sweep)
  install(TARGETS vif_sweep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
endif()

# ---- Headers -------------------------------------------------------------------------------
set(_vif_headers ${PROJECT_SOURCE_DIR}/libvif/include/vif/vif.h
                 ${PROJECT_BINARY_DIR}/generated/include/vif/vif_version.h
                 ${PROJECT_SOURCE_DIR}/libvif/include/vif/vif.hpp
                 ${PROJECT_SOURCE_DIR}/libvif/include/vif/vif_log.h)
if(VIF_ENABLE_CUDA)
  list(APPEND _vif_headers ${PROJECT_SOURCE_DIR}/libvif/include/vif/vif_cuda.h)
endif()
if(VIF_WITH_FFMPEG AND TARGET vif_ffmpeg)
  list(APPEND _vif_headers ${PROJECT_SOURCE_DIR}/libvif/include/vif/vif_ffmpeg.h)
endif()
install(FILES ${_vif_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/vif COMPONENT dev)

# ---- CMake package -------------------------------------------------------------------------
install(EXPORT vifTargets
  NAMESPACE vif::
  FILE vifTargets.cmake
  DESTINATION ${VIF_INSTALL_CMAKEDIR}
  COMPONENT dev)

set(VIF_PACKAGE_HAS_CUDA ${VIF_ENABLE_CUDA})
if(VIF_WITH_FFMPEG AND TARGET vif_ffmpeg)
  set(VIF_PACKAGE_HAS_FFMPEG ON)
else()
  set(VIF_PACKAGE_HAS_FFMPEG OFF)
endif()
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/vifConfig.cmake.in
  ${PROJECT_BINARY_DIR}/vifConfig.cmake
  INSTALL_DESTINATION ${VIF_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/vifConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/vifConfig.cmake ${PROJECT_BINARY_DIR}/vifConfigVersion.cmake
  DESTINATION ${VIF_INSTALL_CMAKEDIR} COMPONENT dev)

# ---- pkg-config ----------------------------------------------------------------------------
# Relocatable: prefix is found from the .pc file's own place, so `cmake --install --prefix X`
# gives correct paths whatever CMAKE_INSTALL_PREFIX was at configure time.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(VIF_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(VIF_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _pc_up /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
  string(REGEX REPLACE "/$" "" _pc_up "${_pc_up}")
  set(VIF_PC_PREFIX "\${pcfiledir}/${_pc_up}")
  set(VIF_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(VIF_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(VIF_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# What a static link of libvif.a needs besides it: the C++ runtime, threads, and the CUDA
# runtime when the CUDA backend is in.
set(VIF_PC_LIBS_PRIVATE "-lstdc++ -lm -pthread")
if(VIF_ENABLE_CUDA)
  string(APPEND VIF_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/vif.pc.in ${PROJECT_BINARY_DIR}/vif.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/vif.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
if(VIF_PACKAGE_HAS_FFMPEG)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/vif-ffmpeg.pc.in ${PROJECT_BINARY_DIR}/vif-ffmpeg.pc
                 @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/vif-ffmpeg.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT dev)
endif()
