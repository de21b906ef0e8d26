// Finding a .pt2's program and pieces in either layout, without LibTorch.

#include "ExportedArchive.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace fxview {

namespace {

// The legacy layout (2.2 to 2.7): serialized_exported_program.json and torch.save members.
ExportedArchive readLegacyLayout(ZipArchive& zip, std::uint64_t maxProgramBytes) {
    auto place = [&](const std::string& name) {
        const ZipArchive::Entry* e = zip.find(name);
        if (!e)
            throw std::runtime_error("it lacks " + name + ", which torch.export.save writes");
        std::optional<std::uint64_t> offset = zip.dataOffset(*e);
        if (!offset)
            throw std::runtime_error("its " + name + " is compressed or cut short");
        return ArchiveMember{*offset, e->compressedSize};
    };
    ExportedArchive archive;
    ArchiveMember program = place("serialized_exported_program.json");
    if (program.length > maxProgramBytes)
        throw std::runtime_error("its serialized_exported_program.json takes " +
                                 std::to_string(program.length) + " bytes, past the " +
                                 std::to_string(maxProgramBytes) + " fxview reads of it");
    std::vector<unsigned char> bytes;
    if (!zip.readRange(program.offset, program.length, bytes))
        throw std::runtime_error("its serialized_exported_program.json is cut short");
    archive.program = parseExportedProgram(std::string(bytes.begin(), bytes.end()));
    archive.pickledWeights = place("serialized_state_dict.pt");
    archive.pickledConstants = place("serialized_constants.pt");
    if (const ZipArchive::Entry* e = zip.find("serialized_example_inputs.pt"))
        if (std::optional<std::uint64_t> offset = zip.dataOffset(*e))
            archive.exampleInputs = ArchiveMember{*offset, e->compressedSize};
    return archive;
}

} // namespace

ExportedArchive readExportedArchive(ZipArchive& zip, const std::string& program,
                                    std::uint64_t maxProgramBytes) {
    std::optional<std::string> top = pt2ArchiveTop(zip);
    if (!top)
        return readLegacyLayout(zip, maxProgramBytes);
    std::vector<std::string> names = pt2ModelNames(zip, *top);
    std::string name = program, note;
    if (name.empty()) {
        if (names.empty())
            throw std::runtime_error("it is a PT2 archive with no program in its models/ folder");
        name = names.front();
        if (names.size() > 1) {
            std::string list;
            for (const std::string& n : names)
                list += (list.empty() ? "" : ", ") + n;
            const std::string holding = std::to_string(names.size()) + " programs (" + list + ")";
            // torch.export.load(f) opens the one called "model"; without one it has no default.
            if (std::find(names.begin(), names.end(), "model") == names.end())
                throw std::runtime_error("it is a PT2 archive holding " + holding +
                                         "; name the one to open as FILE:NAME");
            name = "model";
            note = "The archive holds " + holding +
                   "; this is model, the one torch.export.load opens. Open another as FILE:NAME.";
        }
    }
    Pt2Model m = readPt2Model(zip, *top, name, maxProgramBytes);
    ExportedArchive archive;
    archive.program = parseExportedProgram(m.programJson, "models/" + name + ".json");
    archive.pickledWeights = m.pickledWeights;
    archive.pickledConstants = m.pickledConstants;
    archive.rawWeights = std::move(m.weights);
    archive.rawConstants = std::move(m.constants);
    archive.weightsName =
        "data/weights/" + name + (m.pickledWeights ? ".pt" : "_weights_config.json");
    archive.constantsName =
        "data/constants/" + name + (m.pickledConstants ? ".pt" : "_constants_config.json");
    archive.exampleInputs = m.sampleInputs;
    archive.exampleInputsName = "data/sample_inputs/" + name + ".pt";
    archive.note = std::move(note);
    return archive;
}

} // namespace fxview
