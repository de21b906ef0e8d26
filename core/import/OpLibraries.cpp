#include "OpLibraries.h"

#include <dlfcn.h>
#include <glob.h>

#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "Versions.h"

namespace fxview {

namespace {

// Where Debian's and pip's Pythons put packages, and the file holding each package's ops (as
// torchvision/extension.py and torchaudio/_extension load them).
const char* const kPackageFolders[] = {
    "/usr/lib/python3/dist-packages", "/usr/local/lib/python3*/dist-packages",
    "/usr/lib/python3*/site-packages", "/usr/local/lib/python3*/site-packages"};
const std::map<std::string, std::string>& packagedLibraries() {
    static const std::map<std::string, std::string> libraries = {
        {"torchvision", "torchvision/_C*.so"},
        // libtorchaudio.so up to 2.8; torchaudio 2.9 on builds it for the stable ABI
        {"torchaudio", "torchaudio/lib/libtorchaudio*.so"},
    };
    return libraries;
}

std::vector<std::string> matching(const std::string& pattern) {
    std::vector<std::string> paths;
    glob_t found{};
    if (glob(pattern.c_str(), 0, nullptr, &found) == 0)
        for (std::size_t i = 0; i < found.gl_pathc; ++i)
            paths.emplace_back(found.gl_pathv[i]);
    globfree(&found);
    return paths;
}

std::mutex& lock() {
    static std::mutex m;
    return m;
}

} // namespace

std::string loadOpLibrary(const std::string& path) {
    std::lock_guard<std::mutex> guard(lock());
    static std::set<std::string> loaded;
    if (loaded.count(path))
        return {};
    dlerror();
    // RTLD_GLOBAL as Python's ctypes.CDLL in torch.ops.load_library: a library may use another's.
    if (!dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
        const char* why = dlerror();
        return "Cannot load the op library '" + path + "': " + (why ? why : "unknown error") +
               "; give a shared library built against LibTorch " + libtorchVersion() +
               " (the one that registers its ops with TORCH_LIBRARY, as torch.ops.load_library "
               "takes).";
    }
    loaded.insert(path);
    return {};
}

bool loadPackagedOpLibrary(const std::string& ns) {
    auto it = packagedLibraries().find(ns);
    if (it == packagedLibraries().end())
        return false;
    for (const char* folder : kPackageFolders)
        for (const std::string& path : matching(std::string(folder) + "/" + it->second))
            if (loadOpLibrary(path).empty())
                return true;
    return false;
}

} // namespace fxview
