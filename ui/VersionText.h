#pragma once
// fxview's version and the libraries it runs on, shared by fxview --version, fxtrace --version
// and Help > About: "fxview 0.1.0 (LibTorch 2.6.0, Qt 6.8.2, Graphviz 2.42.4)".

#include <QString>

namespace fxview {

// "LibTorch 2.6.0, Qt 6.8.2, Graphviz 2.42.4"
QString librariesText();
// "PROGRAM 0.1.0 (LibTorch 2.6.0, Qt 6.8.2, Graphviz 2.42.4)"
QString versionText(const QString& program);

} // namespace fxview
