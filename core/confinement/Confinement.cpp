#include "Confinement.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace fxview {

namespace {

// Landlock's uapi, spelled out here because the build root need not have linux/landlock.h
// (values from the kernel's include/uapi/linux/landlock.h; they never change once released).
struct RulesetAttr {
    std::uint64_t handledAccessFs;
    std::uint64_t handledAccessNet; // ABI 4
    std::uint64_t scoped;           // ABI 6
};
struct PathBeneathAttr {
    std::uint64_t allowedAccess;
    std::int32_t parentFd;
} __attribute__((packed));

constexpr long kCreateRuleset = 444, kAddRule = 445, kRestrictSelf = 446;
constexpr std::uint32_t kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;

constexpr std::uint64_t kFsWriteFile = 1ull << 1;
constexpr std::uint64_t kFsWrites = kFsWriteFile | (1ull << 4) /*REMOVE_DIR*/ |
                                    (1ull << 5) /*REMOVE_FILE*/ | (1ull << 6) /*MAKE_CHAR*/ |
                                    (1ull << 7) /*MAKE_DIR*/ | (1ull << 8) /*MAKE_REG*/ |
                                    (1ull << 9) /*MAKE_SOCK*/ | (1ull << 10) /*MAKE_FIFO*/ |
                                    (1ull << 11) /*MAKE_BLOCK*/ | (1ull << 12) /*MAKE_SYM*/;
constexpr std::uint64_t kFsRefer = 1ull << 13;    // ABI 2
constexpr std::uint64_t kFsTruncate = 1ull << 14; // ABI 3
constexpr std::uint64_t kFsIoctlDev = 1ull << 15; // ABI 5
constexpr std::uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;
constexpr std::uint64_t kScopeAbstractUnix = 1ull << 0, kScopeSignal = 1ull << 1;

int landlockAbi() {
    long abi = syscall(kCreateRuleset, nullptr, 0, kCreateRulesetVersion);
    return abi < 0 ? 0 : static_cast<int>(abi);
}

bool allowBeneath(int ruleset, const char* path, std::uint64_t access) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return false;
    PathBeneathAttr rule{access, fd};
    bool ok = syscall(kAddRule, ruleset, kRulePathBeneath, &rule, 0) == 0;
    close(fd);
    return ok;
}

// Returns "" or why Landlock could not be applied.
std::string applyLandlock(int abi, const std::string& writableDir) {
    std::uint64_t fs = kFsWrites | (abi >= 2 ? kFsRefer : 0) | (abi >= 3 ? kFsTruncate : 0) |
                       (abi >= 5 ? kFsIoctlDev : 0);
    RulesetAttr attr{fs, abi >= 4 ? kNetBindTcp | kNetConnectTcp : 0,
                     abi >= 6 ? kScopeAbstractUnix | kScopeSignal : 0};
    std::size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 16 : 8;
    int ruleset = static_cast<int>(syscall(kCreateRuleset, &attr, size, 0));
    if (ruleset < 0)
        return std::string("landlock_create_ruleset: ") + std::strerror(errno);
    std::string error;
    if (!writableDir.empty() && !allowBeneath(ruleset, writableDir.c_str(), fs))
        error = "cannot allow writes in " + writableDir + ": " + std::strerror(errno);
    // LibTorch and the C library write to /dev/null now and then; a file rule takes only the
    // rights a file has.
    allowBeneath(ruleset, "/dev/null", kFsWriteFile | (abi >= 3 ? kFsTruncate : 0));
    if (error.empty() && syscall(kRestrictSelf, ruleset, 0) != 0)
        error = std::string("landlock_restrict_self: ") + std::strerror(errno);
    close(ruleset);
    return error;
}

// socket() of a family other than AF_UNIX, and ptrace, fail with EACCES; all else is allowed.
bool applySeccomp() {
#if defined(__x86_64__)
    constexpr std::uint32_t arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
    constexpr std::uint32_t arch = AUDIT_ARCH_AARCH64;
#else
    return false;
#endif
    const std::uint32_t deny = SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA);
    sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ptrace, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, deny),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, deny),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog program{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

} // namespace

std::int64_t defaultMemoryLimit() {
    long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    return pages > 0 && pageSize > 0 ? static_cast<std::int64_t>(pages) * pageSize / 2 : 0;
}

std::int64_t parseMemorySize(const std::string& text) {
    if (text.empty())
        return 0;
    char* end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    std::string unit(end);
    double scale = unit.empty()                                   ? 1
                   : (unit == "K" || unit == "k" || unit == "KB") ? 1024.0
                   : (unit == "M" || unit == "m" || unit == "MB") ? 1024.0 * 1024
                   : (unit == "G" || unit == "g" || unit == "GB") ? 1024.0 * 1024 * 1024
                                                                  : 0;
    return value > 0 && scale > 0 ? static_cast<std::int64_t>(value * scale) : 0;
}

std::string formatMemorySize(std::int64_t bytes) {
    constexpr double gb = 1024.0 * 1024 * 1024, mb = 1024.0 * 1024;
    char text[32];
    if (bytes >= gb)
        std::snprintf(text, sizeof text, "%.3g GB", bytes / gb);
    else
        std::snprintf(text, sizeof text, "%.3g MB", bytes / mb);
    return text;
}

std::string memoryLimitHint(const std::string& failure, std::int64_t limit) {
    bool outOfMemory = failure.find("not enough memory") != std::string::npos ||
                       failure.find("can't allocate memory") != std::string::npos ||
                       failure.find("std::bad_alloc") != std::string::npos;
    if (!outOfMemory || limit <= 0)
        return "";
    return "The engine may use " + formatMemorySize(limit) +
           " (half the RAM unless --memory-limit says otherwise); a model that needs more can "
           "have a higher --memory-limit.";
}

Confinement confineProcess(const std::string& writableDir, std::int64_t memoryLimit) {
    Confinement c;
    std::string parts;
#if defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer maps terabytes of shadow memory, which RLIMIT_DATA counts: no allocation
    // would succeed under any cap. scripts/run-tests-asan caps each allocation through ASan's
    // own allocator instead (max_allocation_size_mb, allocator_may_return_null).
    (void)memoryLimit;
#else
    if (memoryLimit > 0) {
        rlimit limit{static_cast<rlim_t>(memoryLimit), static_cast<rlim_t>(memoryLimit)};
        if (setrlimit(RLIMIT_DATA, &limit) == 0)
            parts = "memory " + formatMemorySize(memoryLimit);
    }
#endif
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        c.summary = std::string("the model runs unconfined: no_new_privs failed (") +
                    std::strerror(errno) + ")";
        return c;
    }
    c.landlockAbi = landlockAbi();
    std::string why;
    if (c.landlockAbi == 0)
        why = "this kernel has no Landlock";
    else if (std::string error = applyLandlock(c.landlockAbi, writableDir); !error.empty())
        why = error;
    else
        c.landlocked = true;
    c.seccomp = applySeccomp();
    if (c.landlocked)
        c.summary = "Landlock ABI " + std::to_string(c.landlockAbi) +
                    (c.seccomp ? ", seccomp" : "") + (parts.empty() ? "" : ", " + parts);
    else
        c.summary = "the model runs unconfined (" + why +
                    "): it can write files and use the network as you can";
    return c;
}

namespace {

std::string engineTempPrefix() {
    const char* base = std::getenv("TMPDIR");
    return std::string(base && *base ? base : "/tmp") + "/fxview-engine-";
}

} // namespace

std::string makeEngineTempDir() {
    std::string pattern = engineTempPrefix() + "XXXXXX";
    std::vector<char> path(pattern.begin(), pattern.end());
    path.push_back('\0');
    return mkdtemp(path.data()) ? std::string(path.data()) : std::string();
}

std::string signalName(int signal) {
    const char* name = sigabbrev_np(signal);
    return name ? std::string("SIG") + name : "signal " + std::to_string(signal);
}

void removeTree(const std::string& dir) {
    std::error_code ignored;
    if (!dir.empty())
        std::filesystem::remove_all(dir, ignored);
}

} // namespace fxview
