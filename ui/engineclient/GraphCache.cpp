#include "engineclient/GraphCache.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#include "EngineProtocol.h"
#include "Versions.h"
#include "ZipArchive.h"

namespace fxview {

namespace {

constexpr int kKept = 64;
constexpr qint64 kLargestEntry = qint64(256) << 20;

QString cacheFolder() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) +
           "/fxview/graphs";
}

// The entry's name: a hash of everything the engine's graph of the file depends on; empty when
// the source is not a zip archive on disk.
QString entryName(const std::string& source, const std::vector<std::string>& opLibraries) {
    const QFileInfo file(QString::fromStdString(source));
    if (!file.isFile())
        return {};
    ZipArchive zip;
    std::string why;
    if (!zip.open(source, why))
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    auto add = [&hash](const std::string& text) {
        hash.addData(QByteArrayView(text.data(), static_cast<qsizetype>(text.size() + 1)));
    };
    add("fxview graph cache 1");
    add(fxviewVersion());
    add(libtorchVersion());
    add(file.absoluteFilePath().toStdString());
    add(std::to_string(file.size()));
    add(std::to_string(file.lastModified().toMSecsSinceEpoch()));
    for (const ZipArchive::Entry& e : zip.entries())
        add(e.name + "\n" + std::to_string(e.crc32) + "\n" + std::to_string(e.uncompressedSize));
    for (const std::string& library : opLibraries)
        add(library);
    return QString::fromLatin1(hash.result().toHex()) + ".graph";
}

} // namespace

std::optional<Graph> cachedGraph(const std::string& source,
                                 const std::vector<std::string>& opLibraries) {
    const QString name = entryName(source, opLibraries);
    if (name.isEmpty())
        return std::nullopt;
    QFile entry(cacheFolder() + "/" + name);
    // Not one fxview wrote (the biggest graphs encode to a few tens of MB): left alone.
    if (!entry.open(QIODevice::ReadOnly) || entry.size() > kLargestEntry)
        return std::nullopt;
    const QByteArray bytes = entry.readAll();
    try {
        Graph graph;
        decode(bytes.toStdString(), graph);
        return graph;
    } catch (const std::exception&) {
        return std::nullopt; // cut short or from another fxview: the engine draws it
    }
}

void keepGraph(const std::string& source, const std::vector<std::string>& opLibraries,
               const Graph& graph) {
    const QString name = entryName(source, opLibraries);
    if (name.isEmpty() || !QDir().mkpath(cacheFolder()))
        return;
    QSaveFile entry(cacheFolder() + "/" + name);
    if (!entry.open(QIODevice::WriteOnly))
        return;
    const std::string bytes = encode(graph);
    entry.write(bytes.data(), static_cast<qint64>(bytes.size()));
    if (!entry.commit())
        return;
    QDir folder(cacheFolder());
    const QFileInfoList kept = folder.entryInfoList({"*.graph"}, QDir::Files, QDir::Time);
    for (qsizetype i = kKept; i < kept.size(); ++i)
        QFile::remove(kept[i].absoluteFilePath());
}

} // namespace fxview
