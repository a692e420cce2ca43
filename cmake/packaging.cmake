# Debian packages made by CPack from the normal build (docs/packaging.md):
#
#   cmake --build build --target package     -> build/packages/*.deb
#
#   libvif1         libvif.so.1 (and libvif_ffmpeg.so.1 in FFmpeg builds)   component runtime
#   libvif-dev      headers, libvif.so link, libvif.a, CMake package, .pc   component dev
#   vif             the vif CLI (and vif-sweep in CUDA builds)              component cli
#   python3-libvif  the libvif module for Debian's python3                  component python3
#   gstreamer1.0-vif  the GStreamer element (when built)                    component gstreamer
#
# Dependencies on Debian's own packages are computed by dpkg-shlibdeps from what the binaries
# link; the packages' own dependencies on each other follow the component dependencies below.
# Nothing comes from the CUDA toolkit: libvif links the CUDA runtime statically and the runtime
# loads the driver (libcuda.so.1) when it starts; without one, libvif scores on the CPU.
# Included at the end of the top-level CMakeLists.txt, after cmake/install.cmake.

if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
  return()
endif()

set(CPACK_GENERATOR "DEB" CACHE STRING "CPack generators for the package target")
set(CPACK_PACKAGE_NAME "libvif")
set(CPACK_PACKAGE_VENDOR "libvif")
set(CPACK_PACKAGE_CONTACT "libvif maintainers <libvif@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "VIF (the VMAF feature) bit-exact with libvmaf, on the CPU and NVIDIA GPUs")
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
find_program(VIF_DPKG_SHLIBDEPS dpkg-shlibdeps)
mark_as_advanced(VIF_DPKG_SHLIBDEPS)
if(VIF_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  message(STATUS "libvif: dpkg-shlibdeps not found (dpkg-dev): packages made here will not name "
                 "the Debian libraries they need")
endif()
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
# dpkg-shlibdeps looks for libvif.so.1 (needed by vif and the Python module, in another package)
# in the build tree.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/libvif
    ${PROJECT_BINARY_DIR}/libvif/ffmpeg)

set(_vif_components runtime dev)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libvif1)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "VIF library: integer and float VIF, libvmaf's numbers, on the CPU and NVIDIA GPUs")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libvif-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DEPENDS runtime)
if(VIF_PACKAGE_HAS_FFMPEG)  # vif-ffmpeg.pc requires libavutil's .pc file
  set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libavutil-dev")
endif()
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "VIF library: C and C++ headers, pkg-config files, CMake package and static library")

if(TARGET vif_cli)
  list(APPEND _vif_components cli)
  set(CPACK_DEBIAN_CLI_PACKAGE_NAME vif)
  set(CPACK_DEBIAN_CLI_PACKAGE_SECTION video)
  set(CPACK_COMPONENT_CLI_DEPENDS runtime)
  set(CPACK_COMPONENT_CLI_DESCRIPTION
      "vif command-line tool: VIF of video pairs with libvmaf's JSON, XML and CSV output")
endif()

get_property(_vif_py_depends GLOBAL PROPERTY VIF_PYTHON_DEB_DEPENDS)
if(TARGET vif_python AND _vif_py_depends)
  list(APPEND _vif_components python3)
  set(CPACK_DEBIAN_PYTHON3_PACKAGE_NAME python3-libvif)
  set(CPACK_DEBIAN_PYTHON3_PACKAGE_SECTION python)
  set(CPACK_COMPONENT_PYTHON3_DEPENDS runtime)
  set(CPACK_DEBIAN_PYTHON3_PACKAGE_DEPENDS "${_vif_py_depends}")
  set(CPACK_COMPONENT_PYTHON3_DESCRIPTION
      "libvif for Python 3: VIF of numpy arrays, CUDA tensors and video files")
endif()

# The GStreamer element: a package of its own (Debian's gstreamer1.0-<name> convention) so that
# the CLI and the library do not pull GStreamer in; the plugin carries libvif inside it (static).
if(TARGET gstvif)
  list(APPEND _vif_components gstreamer)
  set(CPACK_DEBIAN_GSTREAMER_PACKAGE_NAME gstreamer1.0-vif)
  set(CPACK_DEBIAN_GSTREAMER_PACKAGE_SECTION video)
  set(CPACK_COMPONENT_GSTREAMER_DESCRIPTION
      "GStreamer element vif: VIF of two video streams, libvmaf's numbers, on the CPU or GPU")
endif()

# Only these: the wheel's component (python) and anything without a component stay out.
set(CPACK_COMPONENTS_ALL ${_vif_components})

include(CPack)
