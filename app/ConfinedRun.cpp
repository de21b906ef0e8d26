#include "ConfinedRun.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "Confinement.h"

namespace fxview {

namespace {

// The page the child writes its stage into: a flag (node or not) and a NUL-ended text.
struct Stage {
    volatile char isNode;
    char text[4095];
};
Stage* shared = nullptr;

std::string fileName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

std::string where() {
    if (!shared || !shared->text[0])
        return "while starting";
    std::string text(shared->text, strnlen(shared->text, sizeof shared->text));
    return shared->isNode ? "while running node `" + text + "`" : "while " + text;
}

// Moves what the child wrote to where it was asked for; false (and a sentence) if it cannot.
bool deliver(const std::string& from, const std::string& to) {
    std::error_code error;
    if (!std::filesystem::exists(from, error))
        return true; // the command did not write it (it failed before)
    std::filesystem::rename(from, to, error);
    if (error) { // another filesystem: copy, then remove
        error.clear();
        std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing,
                                   error);
    }
    if (error) {
        std::fprintf(stderr, "Cannot write '%s': check that its folder exists and is writable.\n",
                     to.c_str());
        return false;
    }
    return true;
}

} // namespace

void reportStage(const std::string& stage, bool isNode) {
    if (!shared)
        return;
    std::size_t n = std::min(stage.size(), sizeof shared->text - 1);
    shared->text[0] = '\0';
    std::memcpy(shared->text + 1, stage.data() + (n ? 1 : 0), n ? n - 1 : 0);
    shared->text[n] = '\0';
    shared->isNode = isNode;
    if (n)
        shared->text[0] = stage[0]; // written last: a reader never sees half a name as whole
}

int runConfined(ConfinedRunOptions& options, const std::function<int()>& work) {
    if (options.inProcess)
        return work();
    std::string temp = makeEngineTempDir();
    if (temp.empty()) {
        std::fprintf(stderr, "fxtrace: cannot make a temporary folder for the engine in $TMPDIR "
                             "(or /tmp); free some space or set TMPDIR.\n");
        return 1;
    }
    std::vector<std::string> asked;
    for (std::size_t i = 0; i < options.outputs.size(); ++i) {
        std::string* path = options.outputs[i];
        asked.push_back(*path);
        if (!path->empty())
            *path = temp + "/" + std::to_string(i) + "-" + fileName(*path);
    }
    void* page =
        mmap(nullptr, sizeof(Stage), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    shared = page == MAP_FAILED ? nullptr : static_cast<Stage*>(page);
    std::fflush(nullptr);
    // waitpid must see the child's end (an ignored SIGCHLD inherited from a caller reaps it).
    std::signal(SIGCHLD, SIG_DFL);
    const pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        std::fprintf(stderr, "fxtrace: cannot start the engine process (%s).\n",
                     std::strerror(errno));
        removeTree(temp);
        return 1;
    }
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) // fxtrace died before the line above: no one to supervise
            _exit(1);
        setenv("TMPDIR", temp.c_str(), 1);
        std::int64_t limit = options.memoryLimit > 0 ? options.memoryLimit : defaultMemoryLimit();
        Confinement c = confineProcess(temp, limit);
        if (!c.landlocked)
            std::fprintf(stderr, "fxtrace: %s.\n", c.summary.c_str());
        int code = work();
        std::fflush(nullptr);
        _exit(code);
    }

    using Clock = std::chrono::steady_clock;
    Clock::time_point start = Clock::now();
    int status = 0;
    bool timedOut = false, reaped = false;
    for (;;) {
        pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child) {
            reaped = true;
            break;
        }
        if (done < 0 && errno != EINTR)
            break;
        double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        if (options.timeLimit > 0 && elapsed > options.timeLimit && !timedOut) {
            timedOut = true;
            kill(child, SIGKILL);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    int code = 1;
    std::string model = fileName(options.model);
    if (!reaped) {
        std::fprintf(stderr, "fxtrace: lost track of the engine process of %s (%s).\n",
                     model.c_str(), std::strerror(errno));
        kill(child, SIGKILL);
    } else if (timedOut) {
        std::fprintf(stderr,
                     "fxtrace: %s was stopped %s: it ran longer than --time-limit %g s; a model "
                     "that never ends (an endless loop) needs a change, a slow one a higher "
                     "limit.\n",
                     model.c_str(), where().c_str(), options.timeLimit);
    } else if (WIFSIGNALED(status)) {
        int signal = WTERMSIG(status);
        std::fprintf(stderr,
                     "LibTorch %s (%s) %s of %s; the model may be damaged (fxtrace itself is "
                     "fine).\n",
                     signal == SIGKILL ? "was killed" : "crashed", signalName(signal).c_str(),
                     where().c_str(), model.c_str());
    } else if (WIFEXITED(status)) {
        code = WEXITSTATUS(status);
        for (std::size_t i = 0; i < asked.size(); ++i)
            if (!asked[i].empty() && !deliver(*options.outputs[i], asked[i]))
                code = 1;
    }
    for (std::size_t i = 0; i < asked.size(); ++i)
        *options.outputs[i] = asked[i];
    removeTree(temp);
    return code;
}

} // namespace fxview
