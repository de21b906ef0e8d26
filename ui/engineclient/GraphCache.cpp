#include "engineclient/GraphCache.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "EngineProtocol.h"
#include "Versions.h"

namespace fxview {

namespace {

constexpr int kKept = 64;
constexpr off_t kLargestEntry = off_t(256) << 20;

QString cacheFolder() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) +
           "/fxview/graphs";
}

// The entry's name: a hash of everything the engine's graph of the file depends on; empty when
// the source is not a zip archive on disk.
QString entryName(const std::string& source, const std::string& contentKey,
                  const std::vector<std::string>& opLibraries) {
    const QFileInfo file(QString::fromStdString(source));
    if (contentKey.empty() || !file.isFile())
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    auto add = [&hash](const std::string& text) {
        hash.addData(QByteArrayView(text.data(), static_cast<qsizetype>(text.size() + 1)));
    };
    add("fxview graph cache 2");
    add(fxviewVersion());
    add(libtorchVersion());
    add(file.absoluteFilePath().toStdString());
    add(std::to_string(file.size()));
    add(std::to_string(file.lastModified().toMSecsSinceEpoch()));
    add(contentKey);
    for (const std::string& library : opLibraries)
        add(library);
    return QString::fromLatin1(hash.result().toHex()) + ".graph";
}

// The bytes of the regular file at `path` if this user owns it and it is no larger than
// kLargestEntry: never through a symlink (O_NOFOLLOW), never a FIFO's open that blocks for
// ever (O_NONBLOCK), the size checked on the open descriptor, not on a path that may change.
std::optional<std::string> ownRegularFile(const QString& path) {
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    struct stat st {};
    std::optional<std::string> bytes;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
        st.st_size <= kLargestEntry) {
        std::string content(static_cast<std::size_t>(st.st_size), '\0');
        std::size_t done = 0;
        while (done < content.size()) {
            const ssize_t n = ::read(fd, content.data() + done, content.size() - done);
            if (n <= 0)
                break;
            done += static_cast<std::size_t>(n);
        }
        if (done == content.size())
            bytes = std::move(content);
    }
    ::close(fd);
    return bytes;
}

} // namespace

std::optional<Graph> cachedGraph(const std::string& source, const std::string& contentKey,
                                 const std::vector<std::string>& opLibraries) {
    const QString name = entryName(source, contentKey, opLibraries);
    if (name.isEmpty())
        return std::nullopt;
    std::optional<std::string> bytes = ownRegularFile(cacheFolder() + "/" + name);
    if (!bytes)
        return std::nullopt;
    try {
        Graph graph;
        decode(*bytes, graph);
        return graph;
    } catch (const std::exception&) {
        return std::nullopt; // cut short or from another fxview: the engine draws it
    }
}

void keepGraph(const std::string& source, const std::string& contentKey,
               const std::vector<std::string>& opLibraries, const Graph& graph) {
    const QString name = entryName(source, contentKey, opLibraries);
    if (name.isEmpty() || !QDir().mkpath(cacheFolder()))
        return;
    // A new file renamed over the entry's name; QSaveFile would write through a link standing
    // there, so whatever is not a regular file goes first.
    const QString path = cacheFolder() + "/" + name;
    if (struct stat st{};
        ::lstat(QFile::encodeName(path).constData(), &st) == 0 && !S_ISREG(st.st_mode))
        ::unlink(QFile::encodeName(path).constData());
    QSaveFile entry(path);
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
