#pragma once
// What the engine process does to itself before it opens a model: a TorchScript archive is code
// (its __setstate__ runs at load, its forward at run), so the process that runs it may read the
// filesystem but write only inside its own temporary folder, and may not use the network.
//
//   - no_new_privs, so that nothing it executes can gain privileges (and Landlock may be used);
//   - Landlock (ABI 1-7, whatever the kernel offers): every write right except beneath the
//     temporary folder (and /dev/null); TCP bind and connect (ABI 4); abstract unix sockets and
//     signals to processes outside (ABI 6);
//   - a seccomp filter: socket() of any family but AF_UNIX, and ptrace, fail with EACCES (UDP and
//     raw sockets are beyond Landlock's TCP rules);
//   - a memory cap: RLIMIT_DATA, so that an allocation past it fails inside LibTorch (which says
//     so with an error the interpreter reports at its node) instead of the OOM killer choosing.

#include <cstdint>
#include <string>

namespace fxview {

struct Confinement {
    bool landlocked = false; // writes and TCP confined by Landlock
    int landlockAbi = 0;     // the kernel's Landlock ABI, 0 when it has none
    bool seccomp = false;
    std::string
        summary; // "Landlock ABI 7, seccomp, memory 12 GB" or why the engine runs unconfined
};

// Half of the machine's RAM, the engine's memory cap unless told otherwise.
std::int64_t defaultMemoryLimit();
// Parses "12G", "512M", "2048" (bytes) into bytes; 0 on anything else.
std::int64_t parseMemorySize(const std::string& text);
// "12 GB", "512 MB" for sentences.
std::string formatMemorySize(std::int64_t bytes);

// For a node that failed to allocate ("not enough memory" from LibTorch's allocator): a sentence
// naming the cap and how to raise it; "" for other failures or when `limit` is 0.
std::string memoryLimitHint(const std::string& failure, std::int64_t limit);

// Confines the calling process for good (it cannot be undone). `writableDir` must exist; ""
// allows no writes anywhere (the reader process). `memoryLimit` 0 leaves memory uncapped.
Confinement confineProcess(const std::string& writableDir, std::int64_t memoryLimit);

// A private temporary folder for an engine ($TMPDIR/fxview-engine-XXXXXX), "" if none could be
// made; and its removal with everything in it (the window removes only one it made itself).
std::string makeEngineTempDir();
void removeTree(const std::string& dir);
// "SIGSEGV": how the sentence about an engine that died names its signal.
std::string signalName(int signal);

} // namespace fxview
