# The .deb scripts/package makes with CPack: what cmake --install installs, under /usr, with the
# shared libraries' packages found by dpkg-shlibdeps (libtorch2.6, Qt 6, Graphviz: Debian 13's).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fxview)
set(CPACK_PACKAGE_VENDOR "fxview")
set(CPACK_PACKAGE_CONTACT "fxview developers <fxview@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "PyTorch model graph viewer and debugger: the graph as torch.fx sees it, stepped node by node")
set(CPACK_PACKAGE_DESCRIPTION
    "fxview opens TorchScript archives and torch.export programs, shows their computation graph\n\
the way torch.fx.symbolic_trace sees it, runs it node by node on sample input while each node\n\
shows the tensor it produced, and exports pictures. From Python, fxview.show(gm, args) steps a\n\
GraphModule in the person's own process.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# What no ELF dependency names: the SVG icon engine (without it every toolbar icon is blank), a
# font for the window and exported pictures, python3 for the package's Python side.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-svg-plugins, fonts-dejavu-core, python3")
# OpenBLAS: without it Debian's LibTorch falls back to the reference BLAS (~8x slower forward);
# PyTorch and its libraries for fxview.show and for models calling torchvision's or torchaudio's
# ops.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "libopenblas0-pthread, python3-torch, python3-torchvision, python3-torchaudio")
include(CPack)
