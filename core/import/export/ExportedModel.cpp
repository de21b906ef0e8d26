// Opening a .pt2: its program and example inputs now, its weights when it first runs.

#include "ExportedModel.h"

#include <stdexcept>

#include "StorageCheck.h"
#include "TorchSave.h"
#include "ZipArchive.h"

namespace fxview {

std::shared_ptr<ExportedModel> readExportedModel(const std::string& path) {
    ZipArchive zip;
    std::string why;
    if (!zip.open(path, why))
        throw std::runtime_error(why);
    // Where a member lies in the file: the tensor archives are read when the program first runs.
    auto place = [&](const std::string& name) {
        const ZipArchive::Entry* e = zip.find(name);
        if (!e)
            throw std::runtime_error("it lacks " + name + ", which torch.export.save writes");
        std::optional<std::uint64_t> offset = zip.dataOffset(*e);
        if (!offset)
            throw std::runtime_error("its " + name + " is compressed or cut short");
        return ExportedModel::Member{*offset, e->compressedSize};
    };
    auto member = [&](const std::string& name) {
        ExportedModel::Member m = place(name);
        std::vector<unsigned char> bytes;
        if (!zip.readRange(m.offset, m.length, bytes))
            throw std::runtime_error("its " + name + " is cut short");
        return std::string(bytes.begin(), bytes.end());
    };
    auto model = std::make_shared<ExportedModel>();
    model->path_ = path;
    model->program = parseExportedProgram(member("serialized_exported_program.json"));
    model->stateDictMember_ = place("serialized_state_dict.pt");
    model->constantsMember_ = place("serialized_constants.pt");
    // (args, kwargs) as export was called; optional (an ExportedProgram may have none).
    if (const ZipArchive::Entry* e = zip.find("serialized_example_inputs.pt")) {
        std::optional<std::string> bytes = zip.read(*e);
        c10::IValue examples = bytes ? readTorchSave(*bytes, "example inputs") : c10::IValue();
        if (examples.isTuple() && !examples.toTupleRef().elements().empty() &&
            examples.toTupleRef().elements()[0].isTuple())
            for (const c10::IValue& arg :
                 examples.toTupleRef().elements()[0].toTupleRef().elements())
                model->exampleInputs.push_back(arg);
    }
    return model;
}

at::Tensor ExportedModel::weight(const std::string& name, bool constant) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!read_) {
        read_ = true;
        try {
            // LibTorch would read past a storage record cut short: checked first.
            for (const auto& [member, name] :
                 {std::pair{stateDictMember_, "weights (serialized_state_dict.pt)"},
                  std::pair{constantsMember_, "constants (serialized_constants.pt)"}}) {
                ZipArchive inner;
                std::string why;
                if (!inner.openRange(path_, member.offset, member.length, why))
                    throw std::runtime_error(std::string("its ") + name + " cannot be read (" +
                                             why + ")");
                if (std::string damage = checkStorages(inner); !damage.empty())
                    throw std::runtime_error(std::string("its ") + name +
                                             " cannot be read safely: " + damage);
            }
            stateDict_ = readTensorDict(path_, stateDictMember_.offset, stateDictMember_.length,
                                        "weights (serialized_state_dict.pt)");
            constants_ = readTensorDict(path_, constantsMember_.offset, constantsMember_.length,
                                        "constants (serialized_constants.pt)");
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
                                 " is missing from serialized_" +
                                 (constant ? "constants" : "state_dict") + ".pt; export it again");
    return it->second;
}

} // namespace fxview
