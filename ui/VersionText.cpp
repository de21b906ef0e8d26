#include "VersionText.h"

#include "Versions.h"

namespace fxview {

QString librariesText() {
    // qVersion() is the Qt the program runs with, which may be newer than the one it was built on.
    return QString("LibTorch %1, Qt %2, Graphviz %3")
        .arg(QString::fromStdString(libtorchVersion()), QString::fromLatin1(qVersion()),
             QString::fromStdString(graphvizVersion()));
}

QString versionText(const QString& program) {
    return QString("%1 %2 (%3)")
        .arg(program, QString::fromStdString(fxviewVersion()), librariesText());
}

} // namespace fxview
