#pragma once
// Looks at a file before LibTorch does, to tell a person what it is when it is neither a
// torch.export program nor a TorchScript archive: torch.jit.load's own errors ("failed locating
// file constants.pkl") don't say.

#include <string>

namespace fxview {

enum class ArchiveKind {
    Missing,         // no such file
    NotAFile,        // a directory or something else that can't be read as a file
    Unreadable,      // exists but can't be opened (permissions)
    Empty,           // 0 bytes
    LegacyPickle,    // torch.save with _use_new_zipfile_serialization=False, or plain pickle
    NotZip,          // neither zip nor pickle
    TruncatedZip,    // starts like a zip but its central directory is missing or cut
    StateDict,       // zip from torch.save(model.state_dict())
    PickledModule,   // zip from torch.save(model): a whole nn.Module pickled
    PickledObject,   // zip from torch.save of something else (a tensor, a dict of tensors)
    ForeignZip,      // a zip that is not a PyTorch archive at all
    TorchScript,     // has code/ and constants.pkl: worth handing to torch::jit::load
    ExportedProgram, // torch.export.save's .pt2: the legacy zip (serialized_exported_program.json)
                     // or a PT2 archive (archive_format "pt2", models/<name>.json)
    CompiledOnly,    // a PT2 archive of AOTInductor's compiled code with no program in it
    DamagedStorage,  // a PyTorch archive whose tensor records are cut or declared absurdly big
};

struct ArchiveCheck {
    ArchiveKind kind = ArchiveKind::Missing;
    std::string detail;        // e.g. the class a pickled module refers to
    bool tracedInputs = false; // TorchScript: torch.jit.trace stored its inputs' shapes
};

ArchiveCheck checkArchive(const std::string& path);

} // namespace fxview
