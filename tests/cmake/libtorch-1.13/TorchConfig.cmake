# What find_package(Torch) sees of Debian 12's LibTorch 1.13, reduced to its version: the
# configure test (torch_version_refused) checks that fxview's CMake refuses it with a sentence
# before it would need any of its headers or libraries.
set(TORCH_FOUND TRUE)
set(TORCH_INCLUDE_DIRS "")
set(TORCH_LIBRARIES "")
set(TORCH_CXX_FLAGS "")
