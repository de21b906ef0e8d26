#pragma once
// The PT2 archive that torch.export.save writes from PyTorch 2.8 on
// (torch/export/pt2_archive/_package.py): everything under one top folder `<archive>/`, an
// `archive_format` member saying "pt2", each program in `models/<name>.json` (the same schema as
// the legacy layout's serialized_exported_program.json), its weights either pickled by
// torch.save (`data/weights/<name>.pt`, 2.8 and 2.9) or as raw bytes, one member per storage,
// described by `data/weights/<name>_weights_config.json` (about 2.10 on); constants likewise
// under data/constants/, example inputs in `data/sample_inputs/<name>.pt`. This reader says
// where each piece lies in the file, without LibTorch; ExportedModel turns them into tensors.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ZipArchive.h"

namespace fxview {

// The largest program JSON read at all (of either layout): the biggest real programs write some
// tens of MB, and reading takes about 15 times its size in memory.
constexpr std::uint64_t kLargestProgramJson = std::uint64_t(1) << 30;

// A stored member's bytes: where they start in the file and how many there are.
struct ArchiveMember {
    std::uint64_t offset = 0, length = 0;
};

// One entry of a weights or constants config: a tensor viewing a raw storage member, or an
// object torch.save pickled (`use_pickle`: tensor subclasses, torchbind objects).
struct Pt2Payload {
    std::string pathName; // "weight_0", "tensor_3", "custom_obj_0"
    ArchiveMember member;
    bool pickled = false;
    bool isParam = false;
    bool requiresGrad = false; // tensor_meta's: ep.module()'s parameter requires grad
    int dtype = 0;             // schema.py's ScalarType
    std::vector<std::int64_t> sizes, strides;
    std::int64_t storageOffset = 0; // in elements
};

// One program of the archive and where its pieces lie.
struct Pt2Model {
    std::string name;        // "model"
    std::string programJson; // models/<name>.json
    // Pickled weights and constants (torch.save zips) where the archive has them (2.8, 2.9).
    std::optional<ArchiveMember> pickledWeights, pickledConstants;
    std::map<std::string, Pt2Payload> weights, constants; // fqn -> payload (raw layout)
    std::optional<ArchiveMember> sampleInputs;            // data/sample_inputs/<name>.pt
};

// The top folder ("resnet18/") when `zip` is a PT2 archive (its `<top>/archive_format` member
// says "pt2"); nullopt otherwise.
std::optional<std::string> pt2ArchiveTop(ZipArchive& zip);

// The names of the programs in the archive (models/<name>.json), sorted.
std::vector<std::string> pt2ModelNames(const ZipArchive& zip, const std::string& top);

// Whether the archive holds only compiled code for AOTInductor (data/aotinductor/) and no
// program to draw.
bool pt2IsCompiledOnly(const ZipArchive& zip, const std::string& top);

// Reads program `name`'s JSON (refused unread past `maxProgramBytes`) and where its weights,
// constants and example inputs lie; throws std::runtime_error("its …") with a sentence when a
// piece is missing or damaged.
Pt2Model readPt2Model(ZipArchive& zip, const std::string& top, const std::string& name,
                      std::uint64_t maxProgramBytes);

} // namespace fxview
