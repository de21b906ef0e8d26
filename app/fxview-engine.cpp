// fxview-engine: the process that opens and runs one model for the fxview window. It confines
// itself first (core/confinement/Confinement.h), then answers the window's requests on stdin/stdout
// (core/protocol/EngineProtocol.h). The model's own prints go to stderr: stdout carries only
// frames.
//
// With --stdio it is an engine on another machine, started through ssh by a window there
// (fxview ssh://host/model.pt --engine "fxview-engine --stdio"): stdin and stdout are the SSH
// session's pipes, and kFramesFollow goes first so that the window skips whatever the login shell
// printed before it.
//
//   fxview-engine [--memory-limit SIZE] [--unconfined] [--stdio]

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/prctl.h>
#include <unistd.h>

#include "Confinement.h"
#include "EngineServer.h"
#include "Wire.h"

int main(int argc, char** argv) {
    // The window gone (even killed) ends its engine, however busy it is.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        return 0;
    std::int64_t memoryLimit = fxview::defaultMemoryLimit();
    bool confine = true, stdio = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--memory-limit") && i + 1 < argc) {
            memoryLimit = fxview::parseMemorySize(argv[++i]);
        } else if (!std::strcmp(argv[i], "--unconfined")) {
            confine = false;
        } else if (!std::strcmp(argv[i], "--stdio")) {
            stdio = true;
        } else {
            std::fprintf(stderr,
                         "usage: fxview-engine [--memory-limit SIZE] [--unconfined] [--stdio]\n");
            return 2;
        }
    }
    int channel = dup(STDOUT_FILENO);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    std::signal(SIGPIPE, SIG_IGN);
    if (stdio &&
        !fxview::writeAll(channel, fxview::kFramesFollow.data(), fxview::kFramesFollow.size()))
        return 1;

    fxview::EngineHello hello;
    hello.pid = getpid();
    hello.tempDir = fxview::makeEngineTempDir();
    if (!hello.tempDir.empty())
        setenv("TMPDIR", hello.tempDir.c_str(), 1);
    if (confine && !hello.tempDir.empty()) {
        fxview::Confinement c = fxview::confineProcess(hello.tempDir, memoryLimit);
        hello.confined = c.landlocked;
        hello.memoryLimit = memoryLimit; // applied with or without Landlock
        hello.confinement = c.summary;
    } else {
        hello.confinement = hello.tempDir.empty()
                                ? "the model runs unconfined: no temporary folder could be made"
                                : "the model runs unconfined (--unconfined)";
    }
    int status = fxview::serveEngine(STDIN_FILENO, channel, hello);
    fxview::removeTree(hello.tempDir);
    return status;
}
