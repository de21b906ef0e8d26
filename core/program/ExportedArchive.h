#pragma once
// A torch.export archive (.pt2) of either layout read without LibTorch: its program, parsed, and
// where its weights, constants and example inputs lie in the file. The engine's ExportedModel
// turns those into tensors; the graph needs only the program, so a process without LibTorch (the
// window) can read it too.

#include <map>
#include <optional>
#include <string>

#include "ExportedProgram.h"
#include "Pt2Archive.h"
#include "ZipArchive.h"

namespace fxview {

struct ExportedArchive {
    ExportedProgram program;
    // Pickled weights and constants (torch.save zips: the legacy layout's serialized_*.pt, a 2.8
    // PT2 archive's data/weights/<name>.pt), else raw payloads (PT2 archives of 2.10 on).
    std::optional<ArchiveMember> pickledWeights, pickledConstants;
    std::map<std::string, Pt2Payload> rawWeights, rawConstants;
    std::string weightsName = "serialized_state_dict.pt";
    std::string constantsName = "serialized_constants.pt";
    // The torch.save'd (args, kwargs) export was called with, where the archive keeps them.
    std::optional<ArchiveMember> exampleInputs;
    std::string exampleInputsName = "example inputs";
    // Which program of several was opened when none was named (torch.export.load's "model"),
    // and which others there are: one sentence, or "".
    std::string note;
};

// Reads the opened `zip`'s program and where its pieces lie, from the legacy zip (PyTorch 2.2 to
// 2.7) or the PT2 archive (2.8 on; `program` names one of its models/; "" for the only one or,
// of several, "model", as torch.export.load opens).
// Throws std::runtime_error with a sentence saying what is wrong with the file, one whose
// program's JSON is past `maxProgramBytes` (the bytes in the file, checked before they are read)
// included.
ExportedArchive readExportedArchive(ZipArchive& zip, const std::string& program = {},
                                    std::uint64_t maxProgramBytes = kLargestProgramJson);

} // namespace fxview
