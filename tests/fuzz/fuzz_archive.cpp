// A file as fxview first reads it, before LibTorch sees it: the zip directory (ZipArchive), what
// kind of archive it is (ArchiveCheck) and, for TorchScript, every pickle's storages against
// their records (StorageCheck). Readers take a path: the input is written to a file first.

#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

#include "ArchiveCheck.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = "/tmp/fxview-fuzz-archive-" + std::to_string(getpid());
    if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
        if (size > 0) // an empty input may come as a null pointer, which fwrite must not get
            std::fwrite(data, 1, size, f);
        std::fclose(f);
        fxview::checkArchive(path);
        std::remove(path.c_str());
    }
    return 0;
}
