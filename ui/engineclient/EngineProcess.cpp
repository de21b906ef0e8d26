#include "engineclient/EngineProcess.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "Confinement.h"
#include "Wire.h"
#include "engineclient/PythonEngine.h"
#include "engineclient/RemoteEngine.h"

namespace fxview {

namespace {
InProcessServer inProcessServer;

// The last line of what a process wrote on stderr that says something, trimmed.
QString lastLine(const QString& text) {
    const QStringList lines = text.split('\n', Qt::SkipEmptyParts);
    for (qsizetype i = lines.size() - 1; i >= 0; --i)
        if (!lines[i].trimmed().isEmpty())
            return lines[i].trimmed();
    return {};
}
} // namespace

void EngineProcess::setInProcessServer(const InProcessServer& server) {
    inProcessServer = server;
}

EngineProcess::EngineProcess(const EngineSettings& settings, QObject* parent)
    : QObject(parent), settings_(settings) {}

EngineProcess::~EngineProcess() {
    if (process_) {
        process_->disconnect(this);
        kill();
        process_->waitForFinished(2000);
    }
    if (socket_ >= 0) {
        ::shutdown(socket_, SHUT_RDWR); // the server thread's read ends
        ::close(socket_);
    }
    if (server_.joinable())
        server_.detach(); // a model stuck in a loop keeps its thread: --in-process cannot kill it
    removeTree(folder_);
}

QString EngineProcess::programPath(const char* variable, const QString& name,
                                   const QString& built) {
    QString given = qEnvironmentVariable(variable);
    if (!given.isEmpty())
        return given;
    QString beside = QCoreApplication::applicationDirPath() + "/" + name;
    if (QFileInfo(beside).isExecutable())
        return beside;
    return built;
}

QString EngineProcess::name() const {
    if (attached_)
        return "The live Python engine";
    if (remote())
        return "The engine on " + host_;
    if (commandEngine_)
        return "The engine `" + settings_.engineCommand.join(' ') + "`";
    return "LibTorch";
}

QString EngineProcess::enginePath() {
    return programPath("FXVIEW_ENGINE", "fxview-engine", QStringLiteral(FXVIEW_ENGINE_BUILT));
}

void EngineProcess::start() {
    alive_ = true;
    if (remote())
        return startRemote();
    if (!settings_.engineCommand.isEmpty()) {
        commandEngine_ = true;
        const QStringList& command = settings_.engineCommand;
        return startChild(command.front(), command.mid(1), pythonEngineEnvironment());
    }
    if (settings_.inProcess) {
        if (!inProcessServer.serve)
            return ended("could not start in-process (this executable does not link the engine; "
                         "fxview --in-process runs fxview-in-process, which does)");
        // The server thread writes to a socket the window may have closed (a Reset while a node
        // runs): that must be an error it sees, not a SIGPIPE that ends the window.
        std::signal(SIGPIPE, SIG_IGN);
        int pair[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
            return ended("could not start (socketpair failed)");
        socket_ = pair[0];
        EngineHello hello;
        hello.pid = getpid();
        hello.confinement = "the model runs unconfined, inside the window (--in-process)";
        server_ = std::thread([fd = pair[1], hello, serve = inProcessServer.serve] {
            serve(fd, fd, hello);
            ::close(fd);
        });
        notifier_ = new QSocketNotifier(socket_, QSocketNotifier::Read, this);
        connect(notifier_, &QSocketNotifier::activated, this, &EngineProcess::readSocket);
        return;
    }
    QStringList args;
    if (settings_.memoryLimit > 0)
        args << "--memory-limit" << QString::number(settings_.memoryLimit);
    // A folder of the window's own making, the engine's TMPDIR: the engine makes the one it may
    // write inside it, and the window removes this one when the engine ends, however it ends.
    // The window acts on no folder an engine names (a Hello's tempDir is the engine's word).
    folder_ = makeEngineTempDir();
    if (folder_.empty())
        return ended("could not be started (no temporary folder could be made in $TMPDIR or "
                     "/tmp: free some space or set TMPDIR)");
    QProcessEnvironment env = engineEnvironment();
    env.insert("TMPDIR", QString::fromStdString(folder_));
    startChild(enginePath(), args, env);
}

void EngineProcess::attachRemote(const QString& socket) {
    alive_ = true;
    attached_ = true; // a live model: detached from, never killed or restarted
    startRemote(socket);
}

void EngineProcess::startRemote(const QString& attachSocket) {
    commandEngine_ = true;
    QString error;
    const std::optional<RemoteLocation> where = parseRemoteSource(settings_.remote, error);
    host_ = where ? where->shown() : settings_.remote;
    // --python names the Python that relays to a live model's socket, too.
    const QString python =
        settings_.engineCommand.size() == 3 ? settings_.engineCommand.front() : QString();
    RemoteEngine engine;
    if (where && !attachSocket.isEmpty())
        engine = remoteAttach(*where, attachSocket, python, error);
    else if (where)
        engine = remoteEngine(*where, settings_.engineCommand, error);
    if (engine.command.isEmpty())
        return ended("could not be started (" + error + ")");
    preamble_ = true;
    startChild(engine.command.front(), engine.command.mid(1),
               QProcessEnvironment::systemEnvironment());
    if (!alive_ || engine.firstBytes.isEmpty())
        return;
    // fxview's Python package, ahead of the frames: ssh takes it as it starts.
    std::lock_guard<std::mutex> guard(writing_);
    bytesOut_ += engine.firstBytes.size();
    writeAll(socket_, engine.firstBytes.constData(),
             static_cast<std::size_t>(engine.firstBytes.size()));
}

void EngineProcess::startChild(const QString& program, const QStringList& args,
                               const QProcessEnvironment& env) {
    // Its stdin and stdout are both one end of a socket pair: frames both ways, a Pause's
    // Interrupt written from any thread under writing_; its stderr is the window's.
    std::signal(SIGPIPE, SIG_IGN);
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return ended("could not be started (socketpair failed)");
    socket_ = pair[0];
    process_ = new QProcess(this);
    process_->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    if (remote()) {
        // ssh's own sentences ("Connection refused", "Permission denied") and the remote
        // shell's say why an engine never came: kept for died(), and still logged.
        process_->setProcessChannelMode(QProcess::SeparateChannels);
        connect(process_, &QProcess::readyReadStandardError, this, [this] {
            const QByteArray bytes = process_->readAllStandardError();
            std::fwrite(bytes.constData(), 1, static_cast<std::size_t>(bytes.size()), stderr);
            stderrTail_ = (stderrTail_ + QString::fromUtf8(bytes)).right(4096);
        });
    }
    process_->setStandardInputFile(QProcess::nullDevice());
    process_->setStandardOutputFile(QProcess::nullDevice());
    process_->setChildProcessModifier([fd = pair[1]] {
        ::dup2(fd, STDIN_FILENO); // dup2 leaves the copies open across exec
        ::dup2(fd, STDOUT_FILENO);
        ::setsid(); // its own process group: a kill ends what it started too (a shell's children)
    });
    connect(process_, &QProcess::started, this, [this] { pid_ = process_->processId(); });
    connect(process_, &QProcess::errorOccurred, this, [this, program](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            ended("could not be started (" + program + ": " + process_->errorString() + ")");
    });
    connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        while (alive_ && readSocketOnce()) // what it wrote before it ended
            ;
        QString how = status == QProcess::CrashExit
                          ? QString("crashed (%1)").arg(QString::fromStdString(signalName(code)))
                          : QString("exited (code %1)").arg(code);
        // ssh's 255 is its own failure: the connection, not the engine.
        if (remote() && status == QProcess::NormalExit && code == 255)
            how = "lost its connection (ssh exited with code 255)";
        if (remote())
            if (const QString said = lastLine(stderrTail_); !said.isEmpty())
                how += ": " + said;
        ended(how);
    });
    process_->setProcessEnvironment(env);
    process_->start(program, args);
    ::close(pair[1]);
    pid_ = process_->processId();
    notifier_ = new QSocketNotifier(socket_, QSocketNotifier::Read, this);
    connect(notifier_, &QSocketNotifier::activated, this, &EngineProcess::readSocket);
}

QProcessEnvironment EngineProcess::engineEnvironment() {
    // glibc's malloc backs its heap with transparent huge pages (glibc.malloc.hugetlb=1): reading
    // a 29 MB .pt2 program builds millions of small JSON objects, and with 4 KiB pages the page
    // faults were a third of the open (fxtrace graph on 26,893 nodes: 3.3 s of CPU, 1.9 s with
    // huge pages). A tunable the person set is kept.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    QString tunables = env.value("GLIBC_TUNABLES");
    if (!tunables.contains("glibc.malloc.hugetlb"))
        env.insert("GLIBC_TUNABLES", tunables.isEmpty() ? kHugePages : tunables + ":" + kHugePages);
    return env;
}

void EngineProcess::attach(int fd) {
    alive_ = true;
    attached_ = true;
    // The peer may go at any time (the person's Python exits): a write to its socket must be an
    // error this side sees, not a SIGPIPE that ends the window.
    std::signal(SIGPIPE, SIG_IGN);
    ::fcntl(fd, F_SETFD, FD_CLOEXEC); // engines the window starts later must not hold it open
    socket_ = fd;
    notifier_ = new QSocketNotifier(socket_, QSocketNotifier::Read, this);
    connect(notifier_, &QSocketNotifier::activated, this, &EngineProcess::readSocket);
}

void EngineProcess::readSocket() {
    readSocketOnce();
}

bool EngineProcess::readSocketOnce() {
    char bytes[65536];
    // A child process's own child may keep the socket open after the engine ended: reading it
    // never waits (writes, whole frames, still do).
    ssize_t got = ::recv(socket_, bytes, sizeof bytes, MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return false; // nothing yet
    if (got <= 0) {
        notifier_->setEnabled(false);
        if (!process_) // a child process's end says how it ended
            ended(killed_ ? "was detached" : "ended");
        return false;
    }
    received(QByteArray(bytes, static_cast<int>(got)));
    return true;
}

void EngineProcess::writeSocket(EngineMessage kind, const std::string& payload) {
    std::lock_guard<std::mutex> guard(writing_);
    bytesOut_ += static_cast<qint64>(kFrameHeaderSize + payload.size());
    writeFrame(socket_, static_cast<std::uint16_t>(kind), payload);
}

bool EngineProcess::doneOne() {
    if (owed_.empty())
        return false;
    bool owed = owed_.front();
    owed_.pop_front();
    return owed;
}

int EngineProcess::owedJobs() {
    int jobs = static_cast<int>(std::count(owed_.begin(), owed_.end(), true));
    owed_.clear();
    return jobs;
}

void EngineProcess::send(EngineMessage kind, const std::string& payload, bool owed) {
    owed_.push_back(owed);
    if (!alive_)
        return; // died() (already sent or on its way) finishes it
    writeSocket(kind, payload);
}

void EngineProcess::kill() {
    killed_ = true;
    cutOff();
}

void EngineProcess::cutOff() {
    if (attached_ && socket_ >= 0)
        ::shutdown(socket_, SHUT_RDWR); // the person's process goes on; the session ends
    else if (qint64 pid = pid_.load(); pid > 0) {
        // Its process group (setsid in startChild), and the process itself: one killed before
        // its setsid has no group yet, and would go on to start what the group kill misses.
        ::kill(-static_cast<pid_t>(pid), SIGKILL);
        ::kill(static_cast<pid_t>(pid), SIGKILL);
    }
}

void EngineProcess::interrupt() {
    if (socket_ >= 0)
        writeSocket(EngineMessage::Interrupt, {});
}

void EngineProcess::received(const QByteArray& bytes) {
    bytesIn_ += bytes.size();
    buffer_.append(bytes.constData(), static_cast<std::size_t>(bytes.size()));
    Frame frame;
    try {
        if (preamble_ && !skipPreamble(buffer_, printed_))
            return;
        preamble_ = false;
        while (alive_ && takeFrame(buffer_, frame)) {
            if (frame.kind == static_cast<std::uint16_t>(EngineMessage::Hello)) {
                // Once, first: who the engine is and how it is confined.
                if (helloSeen_)
                    throw WireError("a second hello");
                decode(frame.payload, hello_);
                helloSeen_ = true;
            } else if (!helloSeen_) {
                throw WireError("no hello first");
            }
            emit message(frame.kind, frame.payload);
        }
    } catch (const WireError& e) {
        // A peer that does not speak our frames is as good as dead: ended here, not killed on
        // request (killed() stays false), so that the window says what it did.
        cutOff();
        ended(QString("sent a broken message (%1)").arg(e.what()));
    }
}

void EngineProcess::ended(const QString& how) {
    if (!alive_)
        return;
    alive_ = false;
    pid_ = 0;
    removeTree(folder_);
    folder_.clear();
    emit died(how);
}

} // namespace fxview
