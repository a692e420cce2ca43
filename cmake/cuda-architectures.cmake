# The GPU architectures the CUDA kernels are compiled for when the configure names none
# (docs/packaging.md, "GPU architectures"). Compiling the kernels is most of a build's time (each
# real architecture is a full pass of nvcc over them), so a developer build compiles once:
#   - a GPU visible (the CUDA driver answers nvcc's __nvcc_device_query, or nvidia-smi): real code
#     for that GPU only, what CMake calls `native`;
#   - no GPU visible (CI, a build machine): PTX for compute_80 only. Every kernel is still compiled
#     once, and the driver JIT-compiles the PTX on any GPU of compute capability 8.0 or newer if the
#     binary is moved to one.
# CMAKE_CUDA_ARCHITECTURES on the command line or in a preset (`gpu`: native, `package`: the
# shipped list) or the CUDAARCHS environment variable win over this. Sets CMAKE_CUDA_ARCHITECTURES
# as a normal variable, so that the next configure looks again (a GPU fitted since, a tree moved).
function(vif_choose_cuda_architectures)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES)
    message(STATUS "libvif: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (given)")
    return()
  endif()
  if(DEFINED ENV{CUDAARCHS})
    message(STATUS "libvif: CUDA architectures $ENV{CUDAARCHS} (from the CUDAARCHS environment)")
    return()
  endif()

  set(found "")
  set(by "")
  # The tool CMake itself runs for `native`: it prints the compute capabilities of the GPUs the
  # driver sees ("90", "86;90") and fails when there is no driver or no GPU.
  if(CMAKE_CUDA_COMPILER)
    get_filename_component(nvcc_dir "${CMAKE_CUDA_COMPILER}" DIRECTORY)
    if(EXISTS "${nvcc_dir}/__nvcc_device_query")
      execute_process(COMMAND "${nvcc_dir}/__nvcc_device_query" RESULT_VARIABLE rc
                      OUTPUT_VARIABLE out ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 30)
      if(rc EQUAL 0 AND out MATCHES "^[0-9]+(;[0-9]+)*$")
        set(found "${out}")
        set(by "__nvcc_device_query")
      endif()
    endif()
  endif()
  if(NOT found)
    find_program(VIF_NVIDIA_SMI nvidia-smi)
    mark_as_advanced(VIF_NVIDIA_SMI)
    if(VIF_NVIDIA_SMI)
      execute_process(COMMAND "${VIF_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET
                      OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 30)
      if(rc EQUAL 0 AND out MATCHES "^[0-9]+\\.[0-9]+")
        # "9.0\n8.6" -> "90;86"
        string(REPLACE "." "" out "${out}")
        string(REGEX REPLACE "[ \t\r]*\n[ \t\r]*" ";" out "${out}")
        set(found "${out}")
        set(by "nvidia-smi")
      endif()
    endif()
  endif()

  if(found)
    list(REMOVE_DUPLICATES found)
    set(archs "")
    foreach(cc IN LISTS found)
      list(APPEND archs "${cc}-real")
    endforeach()
    string(REPLACE ";" ", sm_" shown "${found}")
    message(STATUS "libvif: CUDA architectures ${archs} (native: ${by} found sm_${shown}; "
                   "pass -DCMAKE_CUDA_ARCHITECTURES=... or use the `package` preset for other GPUs)")
  else()
    set(archs 80-virtual)
    message(STATUS "libvif: CUDA architectures 80-virtual (no GPU visible: compute_80 PTX only, "
                   "JIT-compiled by the driver on any GPU >= 8.0; pass -DCMAKE_CUDA_ARCHITECTURES=... "
                   "or use the `package` preset for real code)")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${archs}" PARENT_SCOPE)
endfunction()
