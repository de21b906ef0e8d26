#pragma once
// One engine: an fxview-engine process (or, with --in-process, a server thread of this process)
// and the frames it sends. It lives on the EngineClient's worker thread; kill() and interrupt() may
// be called from any thread, so that the GUI thread ends a busy engine at once.

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSocketNotifier>
#include <atomic>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "EngineProtocol.h"

namespace fxview {

struct EngineSettings {
    bool inProcess = false;       // today's debugging mode: no process, no confinement
    std::int64_t memoryLimit = 0; // 0: the engine's default, half the machine's RAM
    // fxview --attach FD: a connected socket to a live engine (the person's Python process,
    // python/fxview/live.py) that serves the first model the window opens; -1 for none.
    int attachFd = -1;
    // Libraries of custom ops (--ops, File > Load Op Library), loaded by the engine before the
    // model: read at each load, so that one added later applies to the next.
    std::vector<std::string> opLibraries;
    // fxview --engine COMMAND, --python PATH (PythonEngine.h): an engine started as this command
    // line (program first), spoken to over its stdin/stdout only, instead of fxview-engine. Empty:
    // fxview-engine, or where this fxview has none (built without LibTorch), python3 -m
    // fxview.engine of the first Python on PATH with PyTorch.
    QStringList engineCommand;
    // Why there is no engine at all (a window-only build that found no Python with PyTorch): the
    // sentence a load fails with.
    QString noEngine;
    // --import MODULE and --device D: sent with each Open, for a Python engine.
    std::vector<std::string> imports;
    std::string device;
    // The command line named the engine (--engine, --python, --import, --device, --in-process):
    // it is used for every file, not the one a file was last opened with.
    bool engineGiven = false;
    // --engine or --python named engineCommand (not found on PATH): for a model on another
    // machine it is the command run there.
    bool commandGiven = false;
    // The machine the engine runs on, "ssh://[user@]host[:port]" (RemoteEngine.h), engineCommand
    // run there through ssh; "" for this one.
    QString remote;
    // fxview ssh://host --attach SOCKET: the live engine fxview.serve runs on `remote` waits on
    // this Unix socket there; it serves the first model the window opens, as attachFd does.
    QString attachRemote;
};

// The engine's server run on a thread for --in-process. Only an executable that links LibTorch
// (fxview-in-process) sets it: the window itself does not load LibTorch.
struct InProcessServer {
    int (*serve)(int in, int out, const EngineHello& hello) = nullptr;
};

class EngineProcess : public QObject {
    Q_OBJECT
public:
    EngineProcess(const EngineSettings& settings, QObject* parent = nullptr);
    ~EngineProcess() override;

    void start();
    // Speaks to the live engine on `fd` (connected, owned from now on) instead of starting one.
    void attach(int fd);
    // Speaks to the live engine waiting on `socket` on the remote machine, through ssh.
    void attachRemote(const QString& socket);
    // A live engine: the model lives in another program, which this window cannot kill or
    // restart; kill() detaches from it (closes the socket), interrupt() sends Interrupt.
    bool attached() const { return attached_; }
    // Started from an --engine or --python command line (a Python engine), or on another
    // machine.
    bool commandEngine() const { return commandEngine_; }
    // Runs on another machine, reached through ssh (EngineSettings::remote).
    bool remote() const { return !settings_.remote.isEmpty(); }
    // The command line it was started from (empty: fxview-engine, in-process or attached).
    const QStringList& command() const { return settings_.engineCommand; }
    // The machine it runs on, "ssh://..." ("" for this one).
    const QString& machine() const { return settings_.remote; }
    // The engine as a sentence names it: "LibTorch" (fxview-engine), "The live Python engine",
    // or "The engine `COMMAND`".
    QString name() const;
    // `owed`: the request finishes one of the EngineClient's jobs when it is Done (or the engine
    // dies).
    void send(EngineMessage kind, const std::string& payload, bool owed);
    // SIGKILL now (a live engine: detach); died() follows. Thread-safe.
    void kill();
    // An Interrupt frame: a run stops before its next node. Thread-safe.
    void interrupt();
    bool alive() const { return alive_; }
    qint64 pid() const { return pid_.load(); } // 0 in-process or once it has ended
    bool killed() const { return killed_; }    // kill() was called: a death asked for
    const EngineHello& hello() const { return hello_; }
    // Bytes read from the engine and written to it since it started (frames, and for a remote
    // engine fxview's package and a login shell's banner): what crossed. Thread-safe.
    qint64 bytesIn() const { return bytesIn_.load(); }
    qint64 bytesOut() const { return bytesOut_.load(); }
    int outstanding() const { return static_cast<int>(owed_.size()); } // sent, not yet Done
    bool doneOne(); // a Done arrived: whether its request was owed
    int owedJobs(); // the owed requests still open, forgotten (the engine is gone)

    static void setInProcessServer(const InProcessServer& server);

    // Where fxview-engine is: $FXVIEW_ENGINE, beside this executable, or the build tree's.
    static QString enginePath();
    // Where a program of fxview's is: $`variable`, `name` beside this executable, or `built`.
    static QString programPath(const char* variable, const QString& name, const QString& built);
    // The engine's environment: this process's, with malloc on huge pages (kHugePages).
    static QProcessEnvironment engineEnvironment();
    static constexpr const char* kHugePages = "glibc.malloc.hugetlb=1";

signals:
    void message(quint16 kind, const std::string& payload);
    // How it ended, for a sentence: "crashed (SIGSEGV)", "was killed (SIGKILL)", "exited (code 1)".
    void died(const QString& how);

private:
    // fxview-engine or an --engine command, spoken to on a socket pair that is its stdin and
    // stdout, in a process group of its own.
    void startChild(const QString& program, const QStringList& args,
                    const QProcessEnvironment& env);
    // ssh to the host, the engine started there (RemoteEngine.h): its stderr kept for the
    // sentence that says why a connection ended, its login shell's banner skipped.
    void startRemote(const QString& attachSocket = {});
    QString stderrTail_;    // a remote engine's last stderr lines (ssh's and the engine's)
    QString host_;          // a remote engine's machine, as sentences name it
    bool preamble_ = false; // what comes before kFramesFollow is still being skipped
    std::string printed_;   // what the login shell printed before it
    void received(const QByteArray& bytes);
    void ended(const QString& how);
    EngineSettings settings_;
    QProcess* process_ = nullptr;
    void readSocket();
    bool readSocketOnce(); // whether it read anything
    void cutOff();         // SIGKILL, or a live engine's socket shut: kill() without asking for it
    void writeSocket(EngineMessage kind, const std::string& payload);
    // This side's end of the engine's socket pair (a child's stdio, --in-process's server
    // thread's) or, with --attach, the live engine's socket.
    std::thread server_;
    int socket_ = -1;
    bool attached_ = false;
    bool commandEngine_ = false; // started from settings_.engineCommand
    std::mutex writing_; // Interrupt (GUI thread) and requests (worker thread) share the socket
    QSocketNotifier* notifier_ = nullptr;
    std::string buffer_;
    std::deque<bool> owed_;
    EngineHello hello_;
    bool helloSeen_ = false;
    std::string folder_; // fxview-engine's TMPDIR: made by the window, removed when it ends
    std::atomic<qint64> pid_{0};
    std::atomic<bool> killed_{false};
    std::atomic<qint64> bytesIn_{0}, bytesOut_{0};
    bool alive_ = false;
};

} // namespace fxview

Q_DECLARE_METATYPE(std::string)
