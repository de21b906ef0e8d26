// Opening a .pt2 of either layout: its program and example inputs now, its weights when it
// first runs.

#include "ExportedModel.h"

#include <stdexcept>

#include "StorageCheck.h"
#include "TorchSave.h"
#include "ZipArchive.h"

namespace fxview {

namespace {

// (args, kwargs) as export was called, from the torch.save'd example inputs: the positional ones.
std::vector<c10::IValue> positionalExamples(ZipArchive& zip, const ArchiveMember& member,
                                            const std::string& what) {
    std::vector<unsigned char> bytes;
    if (!zip.readRange(member.offset, member.length, bytes))
        throw std::runtime_error("its " + what + " is cut short");
    c10::IValue examples = readTorchSave(std::string(bytes.begin(), bytes.end()), what);
    std::vector<c10::IValue> args;
    if (examples.isTuple() && !examples.toTupleRef().elements().empty() &&
        examples.toTupleRef().elements()[0].isTuple())
        for (const c10::IValue& arg : examples.toTupleRef().elements()[0].toTupleRef().elements())
            args.push_back(arg);
    return args;
}

// The legacy layout (2.2 to 2.7): serialized_exported_program.json and torch.save members.
void readLegacyLayout(ZipArchive& zip, ExportedModel& model, std::optional<ArchiveMember>& weights,
                      std::optional<ArchiveMember>& constants) {
    auto place = [&](const std::string& name) {
        const ZipArchive::Entry* e = zip.find(name);
        if (!e)
            throw std::runtime_error("it lacks " + name + ", which torch.export.save writes");
        std::optional<std::uint64_t> offset = zip.dataOffset(*e);
        if (!offset)
            throw std::runtime_error("its " + name + " is compressed or cut short");
        return ArchiveMember{*offset, e->compressedSize};
    };
    ArchiveMember program = place("serialized_exported_program.json");
    std::vector<unsigned char> bytes;
    if (!zip.readRange(program.offset, program.length, bytes))
        throw std::runtime_error("its serialized_exported_program.json is cut short");
    model.program = parseExportedProgram(std::string(bytes.begin(), bytes.end()));
    weights = place("serialized_state_dict.pt");
    constants = place("serialized_constants.pt");
    if (const ZipArchive::Entry* e = zip.find("serialized_example_inputs.pt"))
        if (std::optional<std::uint64_t> offset = zip.dataOffset(*e))
            model.exampleInputs =
                positionalExamples(zip, {*offset, e->compressedSize}, "example inputs");
}

} // namespace

std::shared_ptr<ExportedModel> readExportedModel(const std::string& path,
                                                 const std::string& program) {
    ZipArchive zip;
    std::string why;
    if (!zip.open(path, why))
        throw std::runtime_error(why);
    auto model = std::make_shared<ExportedModel>();
    model->path_ = path;
    std::optional<std::string> top = pt2ArchiveTop(zip);
    if (!top) {
        readLegacyLayout(zip, *model, model->pickledWeights_, model->pickledConstants_);
        return model;
    }
    std::vector<std::string> names = pt2ModelNames(zip, *top);
    std::string name = program;
    if (name.empty()) {
        if (names.empty())
            throw std::runtime_error("it is a PT2 archive with no program in its models/ folder");
        if (names.size() > 1) {
            std::string list;
            for (const std::string& n : names)
                list += (list.empty() ? "" : ", ") + n;
            throw std::runtime_error("it is a PT2 archive holding " + std::to_string(names.size()) +
                                     " programs (" + list + "); name the one to open as FILE:NAME");
        }
        name = names.front();
    }
    Pt2Model m = readPt2Model(zip, *top, name);
    model->program = parseExportedProgram(m.programJson, "models/" + name + ".json");
    model->pickledWeights_ = m.pickledWeights;
    model->pickledConstants_ = m.pickledConstants;
    model->rawWeights_ = std::move(m.weights);
    model->rawConstants_ = std::move(m.constants);
    model->weightsName_ =
        "data/weights/" + name + (m.pickledWeights ? ".pt" : "_weights_config.json");
    model->constantsName_ =
        "data/constants/" + name + (m.pickledConstants ? ".pt" : "_constants_config.json");
    if (m.sampleInputs)
        model->exampleInputs =
            positionalExamples(zip, *m.sampleInputs, "data/sample_inputs/" + name + ".pt");
    return model;
}

void ExportedModel::readWeights() const {
    // LibTorch would read past a storage record cut short: pickled members are checked first.
    auto pickled = [&](const std::optional<ArchiveMember>& member, const std::string& label,
                       std::map<std::string, at::Tensor>& into) {
        if (!member)
            return;
        ZipArchive inner;
        std::string why;
        if (!inner.openRange(path_, member->offset, member->length, why))
            throw std::runtime_error("its " + label + " cannot be read (" + why + ")");
        if (std::string damage = checkStorages(inner); !damage.empty())
            throw std::runtime_error("its " + label + " cannot be read safely: " + damage);
        into = readTensorDict(path_, member->offset, member->length, label);
    };
    pickled(pickledWeights_, "weights (" + weightsName_ + ")", stateDict_);
    pickled(pickledConstants_, "constants (" + constantsName_ + ")", constants_);
    if (rawWeights_.empty() && rawConstants_.empty())
        return;
    RawStorages storages(path_);
    auto raw = [&](const std::map<std::string, Pt2Payload>& payloads,
                   std::map<std::string, at::Tensor>& into) {
        for (const auto& [fqn, p] : payloads) {
            const std::string what = "weight " + fqn + " (" + p.pathName + ")";
            if (p.pickled)
                throw std::runtime_error("its " + what +
                                         " is a pickled object (a tensor subclass or torchbind "
                                         "object), which fxview does not read yet");
            into[fqn] =
                storages.tensor(p.member.offset, p.member.length, scalarTypeOfExported(p.dtype),
                                p.sizes, p.strides, p.storageOffset, what);
        }
    };
    raw(rawWeights_, stateDict_);
    raw(rawConstants_, constants_);
}

at::Tensor ExportedModel::weight(const std::string& name, bool constant) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!read_) {
        read_ = true;
        try {
            readWeights();
        } catch (const std::exception& e) {
            error_ = e.what();
        }
    }
    if (!error_.empty())
        // Every reason reads "its …" (the sentences of core/archive): the archive's ….
        throw std::runtime_error("The archive's " +
                                 (error_.rfind("its ", 0) == 0 ? error_.substr(4) : error_) +
                                 "; export it again");
    const auto& from = constant ? constants_ : stateDict_;
    auto it = from.find(name);
    if (it == from.end())
        throw std::runtime_error("The archive's weights do not match its signature: " + name +
                                 " is missing from " + (constant ? constantsName_ : weightsName_) +
                                 "; export it again");
    return it->second;
}

} // namespace fxview
