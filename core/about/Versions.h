#pragma once
// The versions of the libraries fxview was built with, for --version, About and the sentences
// that explain why an archive would not load. Plain strings: no LibTorch or Graphviz header here.

#include <string>

namespace fxview {

// fxview's own version, e.g. "0.1.0".
std::string fxviewVersion();
// LibTorch's version as it names itself, e.g. "2.6.0"; "none" in a window-only build.
std::string libtorchVersion();
// Graphviz's version as its headers give it, e.g. "2.42.4".
std::string graphvizVersion();
// What --version and Help > About say: "LibTorch 2.6.0, Qt 6.8.2, Graphviz 2.42.4", and
// "PROGRAM 0.1.0 (LibTorch ..., Qt ..., Graphviz ...)". `qtVersion` is the Qt the program runs
// with (qVersion(), which may be newer than the one it was built on): core does not link Qt.
std::string librariesText(const std::string& qtVersion);
std::string versionText(const std::string& program, const std::string& qtVersion);

} // namespace fxview
