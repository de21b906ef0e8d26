#pragma once
// Private to engineclient/ (and the window's Open Remote dialog): a model on another machine,
// ssh://[user@]host[:port]/path, and the engine started there through the system's OpenSSH
// client, so that the person's ~/.ssh/config (aliases, keys, ProxyJump, agent) applies.
// $FXVIEW_SSH replaces the client command, as GIT_SSH_COMMAND does for git.
//
// A Python engine needs nothing of fxview's on the host: the command runs fxview's
// ssh_bootstrap.py (python/fxview/), given in the command line itself, and the window then writes
// its own Python package to the engine's stdin ahead of the first frame. What the host's login
// shell prints first (a banner) is skipped up to the engine's kFramesFollow (Wire.h).

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>

namespace fxview {

struct RemoteLocation {
    QString user; // "" for ssh's own choice (the config's User, or the local name)
    QString host; // a name (an alias of ~/.ssh/config too) or an address; [..] kept for IPv6
    int port = 0; // 0 for ssh's own choice
    QString path; // the file on the host: absolute, or ~/... for the remote home; "" for none

    // "ssh://user@host:port", what identifies the machine (a model's source is this + path).
    QString machine() const;
    // "user@host:port" as sentences name it.
    QString shown() const;
};

bool isRemoteSource(const QString& source);
// ssh://[user@]host[:port][/path]; nullopt with `error` a sentence for anything else.
std::optional<RemoteLocation> parseRemoteSource(const QString& source, QString& error);

// How an engine on `where` starts: the client's command line (program first) and the bytes its
// stdin takes before any frame.
struct RemoteEngine {
    QStringList command;
    QByteArray firstBytes;
};

// `engineCommand` is what --engine or --python named (run on the host), or empty: the bootstrap
// with the first python3 on the host's PATH that has torch. A Python engine named as
// `PYTHON -m fxview.engine` (--python) runs the bootstrap with that Python. Empty `command` with
// `error` set when fxview's Python package or FXVIEW_SSH cannot be used.
RemoteEngine remoteEngine(const RemoteLocation& where, const QStringList& engineCommand,
                          QString& error);

// fxview ssh://host --attach SOCKET: the bootstrap relaying the session to the Unix socket
// where fxview.serve waits on the host (`python` runs it there: "" for python3).
RemoteEngine remoteAttach(const RemoteLocation& where, const QString& socket, const QString& python,
                          QString& error);

// File ▸ Open Remote…'s listing of `folder` on `where` ("~" and "~/..." in the remote home):
// the client's command line, whose output parseRemoteListing reads. Runs the host's sh, no Python.
QStringList remoteListCommand(const RemoteLocation& where, const QString& folder, QString& error);

// A folder on another machine as its listing said: its absolute path, its subfolders and its
// model files (.pt2, .pt, .pth, .zip), each sorted. Names are the remote's word: one holding a
// '/' or a control character is left out, and nothing but a path to open there is made of them.
struct RemoteFolder {
    QString path;
    QStringList folders, models;
};
// What remoteListCommand's client printed (after whatever the login shell printed first), or
// nullopt with `error` saying why not.
std::optional<RemoteFolder> parseRemoteListing(const QByteArray& output, QString& error);

// The engine a file on another machine opens in when none is named: a .pt2 in the host's Python
// with torch (empty: the bootstrap), anything else (a TorchScript archive, which only LibTorch
// opens) in the host's fxview-engine --stdio.
QStringList remoteDefaultEngine(const QString& path);

// The client command: $FXVIEW_SSH split as sh would, or "ssh".
QStringList sshClient(QString& error);

// `word` quoted for the remote's POSIX shell: 'it'\''s'.
QString shellQuoted(const QString& word);

} // namespace fxview
