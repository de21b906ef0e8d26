// A file as fxview first reads it, before LibTorch sees it: the zip directory (ZipArchive), what
// kind of archive it is (ArchiveCheck) and, for TorchScript, every pickle's storages against
// their records (StorageCheck); for a PT2 archive, every program's pieces and its weights' and
// constants' configs (Pt2Archive). Readers take a path: the input is written to a file first.

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <unistd.h>

#include "ArchiveCheck.h"
#include "Pt2Archive.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = "/tmp/fxview-fuzz-archive-" + std::to_string(getpid());
    if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
        if (size > 0) // an empty input may come as a null pointer, which fwrite must not get
            std::fwrite(data, 1, size, f);
        std::fclose(f);
        if (fxview::checkArchive(path).kind == fxview::ArchiveKind::ExportedProgram) {
            fxview::ZipArchive zip;
            std::string why;
            if (zip.open(path, why))
                if (std::optional<std::string> top = fxview::pt2ArchiveTop(zip))
                    for (const std::string& name : fxview::pt2ModelNames(zip, *top)) {
                        try {
                            fxview::readPt2Model(zip, *top, name, fxview::kLargestProgramJson);
                        } catch (const std::exception&) { // a sentence: what a bad file gets
                        }
                    }
        }
        std::remove(path.c_str());
    }
    return 0;
}
