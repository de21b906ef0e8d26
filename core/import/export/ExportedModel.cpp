// Opening a .pt2 of either layout: its program and example inputs now, its weights when it
// first runs.

#include "ExportedModel.h"

#include <stdexcept>

#include "ExportedInputs.h"
#include "StorageCheck.h"
#include "TorchSave.h"
#include "ZipArchive.h"

namespace fxview {

namespace {

// (args, kwargs) as export was called, from the torch.save'd example inputs: the user inputs
// they flatten to (ExportedInputs.h) where the program's inputs nest, else the positional ones.
std::vector<c10::IValue> exampleUserInputs(ZipArchive& zip, const ArchiveMember& member,
                                           const std::string& what,
                                           const ExportedProgram& program) {
    std::vector<unsigned char> bytes;
    if (!zip.readRange(member.offset, member.length, bytes))
        throw std::runtime_error("its " + what + " is cut short");
    c10::IValue examples = readTorchSave(std::string(bytes.begin(), bytes.end()), what);
    std::vector<c10::IValue> args;
    if (!examples.isTuple() || examples.toTupleRef().elements().size() != 2 ||
        !examples.toTupleRef().elements()[0].isTuple())
        return args;
    if (inputsNest(program)) {
        const bool keywords = !program.inputTree->children.at(1).children.empty();
        // Examples that do not fit their own program are left out: a run asks for inputs.
        if (!flattenExportedInputs(program,
                                   keywords ? examples : examples.toTupleRef().elements()[0], args)
                 .empty())
            args.clear();
        return args;
    }
    for (const c10::IValue& arg : examples.toTupleRef().elements()[0].toTupleRef().elements())
        args.push_back(arg);
    return args;
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
    model->pieces_ = readExportedArchive(zip, program);
    model->program = std::move(model->pieces_.program);
    model->note = model->pieces_.note;
    if (const auto& examples = model->pieces_.exampleInputs)
        model->exampleInputs =
            exampleUserInputs(zip, *examples, model->pieces_.exampleInputsName, model->program);
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
    pickled(pieces_.pickledWeights, "weights (" + pieces_.weightsName + ")", stateDict_);
    pickled(pieces_.pickledConstants, "constants (" + pieces_.constantsName + ")", constants_);
    if (pieces_.rawWeights.empty() && pieces_.rawConstants.empty())
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
            at::Tensor t =
                storages.tensor(p.member.offset, p.member.length, scalarTypeOfExported(p.dtype),
                                p.sizes, p.strides, p.storageOffset, what);
            // As _package.py loads it: kernels that ep.module() runs see the flag (EagerGrad.h).
            if (p.requiresGrad && (t.is_floating_point() || t.is_complex()))
                t.set_requires_grad(true);
            into[fqn] = t;
        }
    };
    raw(pieces_.rawWeights, stateDict_);
    raw(pieces_.rawConstants, constants_);
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
        throw std::runtime_error(
            "The archive's weights do not match its signature: " + name + " is missing from " +
            (constant ? pieces_.constantsName : pieces_.weightsName) + "; export it again");
    return it->second;
}

} // namespace fxview
