# The .debs scripts/package makes with CPack, one per component of cmake --install, under /usr,
# with the shared libraries' packages found by dpkg-shlibdeps:
#   fxview-window  the window and its reader, the Python package (every build: Qt 6.4 and
#                  Graphviz 2.42 or newer, no LibTorch; files run on a Python engine)
#   fxview-engine  fxview-engine, fxtrace and fxview-in-process (a LibTorch build: LibTorch 2.6 on
#                  Debian 13, 2.14 on sid), on the window of the same version
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fxview)
set(CPACK_PACKAGE_VENDOR "fxview")
set(CPACK_PACKAGE_CONTACT "fxview developers <fxview@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_COMPONENTS_ALL window)
if(FXVIEW_WITH_LIBTORCH)
  list(APPEND CPACK_COMPONENTS_ALL engine)
endif()

set(CPACK_DEBIAN_WINDOW_PACKAGE_NAME fxview-window)
set(CPACK_COMPONENT_WINDOW_DESCRIPTION
    "PyTorch model graph viewer and debugger: the graph as torch.fx sees it, stepped node by node\n\
fxview opens torch.export programs and TorchScript archives, shows their computation graph the\n\
way torch.fx sees it, runs it node by node on sample input while each node shows the tensor it\n\
produced, and exports pictures. Files run on a Python engine: your own PyTorch (2.1 or newer,\n\
fxview --python PATH); fxview-engine adds Debian's LibTorch. From Python, fxview.show(gm, args)\n\
steps a GraphModule in your own process.")
# What no ELF dependency names: the SVG icon engine (without it every toolbar icon is blank:
# Debian 12 has it in libqt6svg6, 13 in qt6-svg-plugins), a font for the window and exported
# pictures, python3 for the package's Python side. The fxview of one package before the split.
set(CPACK_DEBIAN_WINDOW_PACKAGE_DEPENDS "qt6-svg-plugins | libqt6svg6, fonts-dejavu-core, python3")
set(CPACK_DEBIAN_WINDOW_PACKAGE_SUGGESTS "python3-torch (>= 2.1)")
# ssh:// models: the window starts their engine through the system's OpenSSH client.
set(CPACK_DEBIAN_WINDOW_PACKAGE_RECOMMENDS "openssh-client")
set(CPACK_DEBIAN_WINDOW_PACKAGE_CONFLICTS "fxview")
set(CPACK_DEBIAN_WINDOW_PACKAGE_REPLACES "fxview")

set(CPACK_DEBIAN_ENGINE_PACKAGE_NAME fxview-engine)
set(CPACK_COMPONENT_ENGINE_DESCRIPTION
    "fxview's C++ engine on Debian's LibTorch, and fxtrace\n\
fxview-engine opens and runs models for the fxview window in a confined process on this\n\
LibTorch (TorchScript archives and torch.export programs); fxtrace prints, runs, compares and\n\
exports them headless.")
set(CPACK_DEBIAN_ENGINE_PACKAGE_DEPENDS "fxview-window (= ${PROJECT_VERSION})")
# OpenBLAS: without it Debian's LibTorch falls back to the reference BLAS (~8x slower forward);
# PyTorch and its libraries for fxview.show and for models calling torchvision's or torchaudio's
# ops.
set(CPACK_DEBIAN_ENGINE_PACKAGE_RECOMMENDS
    "libopenblas0-pthread, python3-torch, python3-torchvision, python3-torchaudio")
include(CPack)
