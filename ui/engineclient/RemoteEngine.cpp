#include "engineclient/RemoteEngine.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <algorithm>

#include "Wire.h"

#include "engineclient/PythonEngine.h"

namespace fxview {

namespace {

// Lengths and counts of the package blob, as ssh_bootstrap.py reads them.
void appendLittleEndian(QByteArray& out, quint64 value, int bytes) {
    for (int i = 0; i < bytes; ++i)
        out.append(static_cast<char>(value >> (8 * i)));
}

// Every file of fxview's Python package, as ssh_bootstrap.py takes it: a zlib stream of
// (path length, path, size, bytes) per file, its length first.
QByteArray packageBytes(QString& error) {
    const QString folder = pythonPackageDir() + "/fxview";
    const QStringList files = QDir(folder).entryList({"*.py"}, QDir::Files, QDir::Name);
    if (!files.contains("engine.py")) {
        error = "fxview's Python package is not at " + folder;
        return {};
    }
    QByteArray blob;
    for (const QString& name : files) {
        QFile file(folder + "/" + name);
        if (!file.open(QIODevice::ReadOnly)) {
            error = "cannot read " + file.fileName() + " (" + file.errorString() + ")";
            return {};
        }
        const QByteArray path = ("fxview/" + name).toUtf8(), bytes = file.readAll();
        appendLittleEndian(blob, static_cast<quint64>(path.size()), 4);
        blob += path;
        appendLittleEndian(blob, static_cast<quint64>(bytes.size()), 4);
        blob += bytes;
    }
    // qCompress puts the inflated size first (4 bytes, big-endian): zlib's stream follows.
    const QByteArray stream = qCompress(blob, 9).mid(4);
    QByteArray out;
    appendLittleEndian(out, static_cast<quint64>(stream.size()), 8);
    return out + stream;
}

// python3 -c 'B="...";import base64;exec(base64.b64decode(B))' search|given|attach SOCKET
QString bootstrapCommand(const QString& python, QString& error, const QString& mode = {}) {
    QFile file(pythonPackageDir() + "/fxview/ssh_bootstrap.py");
    if (!file.open(QIODevice::ReadOnly)) {
        error = "fxview's Python package lacks " + file.fileName();
        return {};
    }
    const QString code = "B=\"" + QString::fromLatin1(file.readAll().toBase64()) +
                         "\";import base64;exec(base64.b64decode(B))";
    const QString how = !mode.isEmpty()    ? mode
                        : python.isEmpty() ? QString("search")
                                           : QString("given");
    return "exec " + (python.isEmpty() ? QString("python3") : shellQuoted(python)) + " -c " +
           shellQuoted(code) + " " + how;
}

// The client's command line that runs `remoteCommand` on `where`.
QStringList clientCommand(const RemoteLocation& where, const QString& remoteCommand,
                          QString& error) {
    QStringList client = sshClient(error);
    if (client.isEmpty())
        return {};
    // No terminal: stdin and stdout are the frames'. Keepalives notice a dropped network within a
    // minute (the window then says so and offers to reconnect). The person's FXVIEW_SSH options
    // come first, and ssh takes the first value of an option it is given.
    client << "-T"
           << "-o"
           << "ServerAliveInterval=15"
           << "-o"
           << "ServerAliveCountMax=4";
    if (where.port)
        client << "-p" << QString::number(where.port);
    if (!where.user.isEmpty())
        client << "-l" << where.user;
    QString host = where.host;
    if (host.startsWith('['))
        host = host.mid(1, host.size() - 2);
    return client << "--" << host << remoteCommand;
}

} // namespace

QString RemoteLocation::machine() const {
    return "ssh://" + shown();
}

QString RemoteLocation::shown() const {
    return (user.isEmpty() ? QString() : user + "@") + host +
           (port ? ":" + QString::number(port) : QString());
}

bool isRemoteSource(const QString& source) {
    return source.startsWith("ssh://");
}

std::optional<RemoteLocation> parseRemoteSource(const QString& source, QString& error) {
    // Names only of the characters a host, an alias or a login has: nothing that ssh could read
    // as an option or the remote shell as a word of its own.
    static const QRegularExpression form(
        R"(^ssh://(?:([A-Za-z0-9._][A-Za-z0-9._-]*)@)?([A-Za-z0-9_][A-Za-z0-9._-]*|\[[0-9A-Fa-f:.]+\])(?::([0-9]{1,5}))?(/.*)?$)");
    const QRegularExpressionMatch m = form.match(source);
    if (!m.hasMatch()) {
        error = "'" + source +
                "' is not a model on another machine: write ssh://[user@]host[:port]/path/to/"
                "model.pt2";
        return std::nullopt;
    }
    RemoteLocation where{m.captured(1), m.captured(2), m.captured(3).toInt(), m.captured(4)};
    if (!m.captured(3).isEmpty() && (where.port < 1 || where.port > 65535)) {
        error = "'" + source + "' names port " + m.captured(3) + ": a port is 1 to 65535";
        return std::nullopt;
    }
    if (where.path.startsWith("/~/") || where.path == "/~")
        where.path = where.path.mid(1); // ssh://host/~/model.pt2: in the remote home, as git has it
    if (where.path == "/")
        where.path.clear();
    return where;
}

QString shellQuoted(const QString& word) {
    return "'" + QString(word).replace("'", R"('\'')") + "'";
}

QStringList remoteDefaultEngine(const QString& path) {
    if (path.endsWith(".pt2", Qt::CaseInsensitive) || path.contains(".pt2:"))
        return {};
    return {"fxview-engine", "--stdio"};
}

QStringList sshClient(QString& error) {
    const QString given = qEnvironmentVariable("FXVIEW_SSH");
    if (given.trimmed().isEmpty())
        return {"ssh"};
    return engineCommandLine(given, error, "FXVIEW_SSH");
}

RemoteEngine remoteEngine(const RemoteLocation& where, const QStringList& engineCommand,
                          QString& error) {
    RemoteEngine engine;
    QString remoteCommand;
    const bool python =
        engineCommand.isEmpty() ||
        (engineCommand.size() == 3 && engineCommand.mid(1) == QStringList{"-m", "fxview.engine"});
    if (python) {
        remoteCommand = bootstrapCommand(engineCommand.value(0), error);
        if (remoteCommand.isEmpty())
            return engine;
        engine.firstBytes = packageBytes(error);
        if (engine.firstBytes.isEmpty())
            return engine;
    } else {
        QStringList words;
        for (const QString& word : engineCommand)
            words << shellQuoted(word);
        remoteCommand = "exec " + words.join(' ');
    }
    engine.command = clientCommand(where, remoteCommand, error);
    return engine;
}

QStringList remoteListCommand(const RemoteLocation& where, const QString& folder, QString& error) {
    // The marker first (a banner before it is skipped), then NUL-ended fields: the folder's
    // absolute path, then each entry, a folder's with a '/' after it.
    const QString script = R"(printf '\000FXVIEW-FRAMES\000'
case $1 in "~") d=$HOME ;; "~/"*) d=$HOME/${1#"~/"} ;; *) d=$1 ;; esac
cd -- "$d" || exit 3
printf '%s\000' "$PWD"
for f in * .*; do
  if [ "$f" = . ] || [ "$f" = .. ]; then continue; fi
  if [ -d "$f" ]; then printf '%s/\000' "$f"
  elif [ -f "$f" ]; then case $f in *.pt2|*.pt|*.pth|*.zip) printf '%s\000' "$f" ;; esac; fi
done)";
    return clientCommand(where, "exec sh -c " + shellQuoted(script) + " sh " + shellQuoted(folder),
                         error);
}

std::optional<RemoteFolder> parseRemoteListing(const QByteArray& output, QString& error) {
    std::string buffer = output.toStdString(), printed;
    try {
        if (!skipPreamble(buffer, printed)) {
            error = "the host's shell did not run the listing";
            return std::nullopt;
        }
    } catch (const WireError& e) {
        error = QString::fromUtf8(e.what());
        return std::nullopt;
    }
    const QList<QByteArray> fields = QByteArray::fromStdString(buffer).split('\0');
    if (fields.size() < 2 || !fields.front().startsWith('/')) {
        error = "the host's listing did not name the folder";
        return std::nullopt;
    }
    RemoteFolder folder;
    folder.path = QString::fromUtf8(fields.front());
    // The last field is what follows the last NUL: empty, or a name cut short.
    for (qsizetype i = 1; i + 1 < fields.size() && i < 100000; ++i) {
        QString name = QString::fromUtf8(fields[i]);
        const bool isFolder = name.endsWith('/');
        if (isFolder)
            name.chop(1);
        const bool plain = !name.isEmpty() && !name.contains('/') &&
                           std::none_of(name.begin(), name.end(), [](QChar c) {
                               return c.category() == QChar::Other_Control;
                           });
        if (plain)
            (isFolder ? folder.folders : folder.models) << name;
    }
    folder.folders.sort(Qt::CaseInsensitive);
    folder.models.sort(Qt::CaseInsensitive);
    return folder;
}

RemoteEngine remoteAttach(const RemoteLocation& where, const QString& socket, const QString& python,
                          QString& error) {
    RemoteEngine engine;
    if (!socket.startsWith('/') || socket.contains(QChar(0))) {
        error = "--attach names '" + socket +
                "', not the socket fxview.serve printed (a path on the host)";
        return engine;
    }
    const QString remoteCommand = bootstrapCommand(python, error, "attach " + shellQuoted(socket));
    if (!remoteCommand.isEmpty())
        engine.command = clientCommand(where, remoteCommand, error);
    return engine;
}

} // namespace fxview
