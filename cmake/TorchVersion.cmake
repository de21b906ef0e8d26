# fxview_find_torch(MIN): sets FXVIEW_WITH_LIBTORCH (a cache option: ON where a LibTorch is found,
# unless the person says OFF) and, with it, finds LibTorch and requires MIN or newer. Without it,
# one line says what the build leaves out.
macro(fxview_find_torch min)
  if(NOT DEFINED FXVIEW_WITH_LIBTORCH)
    find_package(Torch QUIET)
    set(_fxview_torch_default ${Torch_FOUND})
  else()
    set(_fxview_torch_default ${FXVIEW_WITH_LIBTORCH})
  endif()
  option(FXVIEW_WITH_LIBTORCH "Build the C++ engine and fxtrace on LibTorch" ${_fxview_torch_default})
  if(FXVIEW_WITH_LIBTORCH)
    find_package(Torch REQUIRED)
    fxview_require_torch(${min})
  else()
    message(STATUS "fxview without LibTorch: building the window (fxview), fxview-reader and "
                   "their tests; left out: the C++ engine (fxview-engine, fxview-in-process), "
                   "fxtrace and the benchmarks. Files run on a Python engine "
                   "(python3 -m fxview.engine).")
    set(FXVIEW_TORCH_VERSION "none" CACHE INTERNAL "LibTorch version fxview was configured with")
  endif()
endmacro()

# fxview_require_torch(MIN): stops the configure step with a sentence when the LibTorch that
# find_package(Torch) found is older than MIN, and records its version in the cache
# (FXVIEW_TORCH_VERSION) so that scripts/build can tell a tree configured for another LibTorch.
function(fxview_require_torch min)
  set(version "${Torch_VERSION}")
  if(NOT version)
    # Not every LibTorch installs a TorchConfigVersion.cmake: torch/version.h always says.
    find_file(_fxview_torch_version_h torch/version.h
              PATHS ${TORCH_INCLUDE_DIRS} NO_DEFAULT_PATH NO_CACHE)
    if(_fxview_torch_version_h)
      file(STRINGS "${_fxview_torch_version_h}" _line REGEX "#define TORCH_VERSION \"")
      string(REGEX REPLACE ".*\"([0-9.]+).*\".*" "\\1" version "${_line}")
    endif()
  endif()
  if(NOT version)
    message(FATAL_ERROR "fxview needs LibTorch ${min} or newer, and the LibTorch found at "
                        "${Torch_DIR} does not say its version (no torch/version.h).")
  endif()
  if(version VERSION_LESS min)
    message(FATAL_ERROR "fxview needs LibTorch ${min} or newer, but the one found at ${Torch_DIR} "
                        "is ${version}: install Debian 13's libtorch-dev (scripts/setup-deps does) "
                        "or point CMAKE_PREFIX_PATH at a newer PyTorch's "
                        "torch.utils.cmake_prefix_path.")
  endif()
  message(STATUS "LibTorch ${version} at ${Torch_DIR}")
  set(FXVIEW_TORCH_VERSION "${version}" CACHE INTERNAL "LibTorch version fxview was configured with")
endfunction()
