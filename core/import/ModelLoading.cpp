// Opening a file as a Model: what it is (ArchiveCheck), then LibTorch's loader for a TorchScript
// archive, the .pt2 reader for a torch.export program, or a built-in example; one sentence for
// anything else.

#include "Importer.h"

#include <regex>
#include <set>
#include <stdexcept>

#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/serialization/import.h>

#include "ArchiveCheck.h"
#include "ExampleModules.h"
#include "Examples.h"
#include "ExportedModel.h"
#include "ModelPrivate.h"
#include "OpLibraries.h"
#include "QuantizedDecomposed.h"
#include "Versions.h"

namespace fxview {

namespace {

// What opens in fxview, said once: PyTorch's own way to save a model today, and the live path.
const char* const kSaveHint =
    "export the model with torch.export.save(torch.export.export(model, args), 'model.pt2'), "
    "or show it live from Python with fxview.show(model, args)";

std::string exampleList() {
    std::string names;
    for (const ExampleInfo& e : examples())
        names += (names.empty() ? "example:" : ", example:") + e.name;
    return names;
}

LoadResult failure(std::string sentence) {
    return {nullptr, std::move(sentence), {}};
}

// One sentence per kind of file that isn't TorchScript: what it is and what to do instead.
std::string explain(const std::string& path, const ArchiveCheck& check) {
    const std::string p = "'" + path + "'";
    switch (check.kind) {
    case ArchiveKind::Missing:
        return "Cannot open " + p +
               ": there is no such file; check the path, or open a built-in "
               "model such as example:tinynet.";
    case ArchiveKind::NotAFile:
        return "Cannot open " + p +
               ": it is a directory, not a file; choose the .pt file inside it.";
    case ArchiveKind::Unreadable:
        return "Cannot open " + p + ": permission denied; check that you may read it.";
    case ArchiveKind::Empty:
        return "Cannot open " + p + ": the file is empty (0 bytes); save the model again, or " +
               kSaveHint + ".";
    case ArchiveKind::LegacyPickle:
        return "Cannot open " + p +
               ": this is a plain pickle written by torch.save, which holds no graph to draw; " +
               kSaveHint + ".";
    case ArchiveKind::NotZip:
        return "Cannot open " + p +
               ": it is neither a torch.export program (.pt2) nor a TorchScript archive (not "
               "even a zip file); " +
               kSaveHint + ".";
    case ArchiveKind::TruncatedZip:
        return "Cannot open " + p + ": the archive is truncated or damaged (" + check.detail +
               "); copy or save it again.";
    case ArchiveKind::StateDict:
        return "Cannot open " + p +
               ": this is a state_dict, the weights without the model's code; load it into "
               "the model in Python, then " +
               kSaveHint + ".";
    case ArchiveKind::PickledModule:
        return "Cannot open " + p + ": this is a whole nn.Module (" + check.detail +
               ") pickled by torch.save, which only its Python class can read; " + kSaveHint + ".";
    case ArchiveKind::PickledObject:
        return "Cannot open " + p +
               ": this is a tensor or object saved by torch.save, not a model; " + kSaveHint + ".";
    case ArchiveKind::ForeignZip:
        return "Cannot open " + p +
               ": it is a zip file but not a PyTorch archive (it has neither a PT2 archive's "
               "archive_format, nor serialized_exported_program.json, nor TorchScript's code/); " +
               kSaveHint + ".";
    case ArchiveKind::CompiledOnly:
        return "Cannot open " + p +
               ": it is a PT2 archive holding only AOTInductor's compiled code "
               "(data/aotinductor/), with no program to draw or step; open the .pt2 that "
               "torch.export.save(ep, path) writes of the program it was compiled from.";
    case ArchiveKind::DamagedStorage:
        return "Cannot open " + p + ": " + check.detail +
               ", so LibTorch is not asked to read it; copy or save it again.";
    case ArchiveKind::TorchScript:
    case ArchiveKind::ExportedProgram:
        break;
    }
    return {};
}

LoadResult loadExample(const std::string& source, const std::string& name) {
    try {
        auto d = std::make_unique<Model::Private>();
        d->source = source;
        d->module = buildExample(name);
        return {std::make_shared<Model>(std::move(d)), {}, {}};
    } catch (const std::invalid_argument&) {
        return failure("There is no built-in model called '" + source + "'; the examples are " +
                       exampleList() + ".");
    } catch (const std::exception& e) {
        return failure("The built-in model '" + source + "' failed to build: " + firstLineOf(e) +
                       ".");
    }
}

// LibTorch's reason, turned into what to do. The two a PyTorch 2 user meets most, an op this
// LibTorch lacks and a file format newer than it reads, get sentences of their own.
std::string explainLoadFailure(const std::string& source, const std::string& why) {
    const std::string runsOn = "LibTorch " + libtorchVersion() + ", the one fxview runs on";
    std::smatch m;
    if (std::regex_search(why, m, std::regex(R"(Unknown builtin op: ([A-Za-z0-9_:]+))")))
        return "Cannot open '" + source + "': its code calls " + m[1].str() + ", an op that " +
               runsOn +
               ", does not have and no library fxview knows provides; if it is a custom op, "
               "load the library that registers it (fxtrace --ops LIB.so, File > Load Op "
               "Library in the app); if the archive was saved by a newer PyTorch, open it with "
               "an fxview built on that PyTorch's LibTorch.";
    if (std::regex_search(why, m,
                          std::regex(R"(file with version (\d+), but the maximum supported )"
                                     R"(version for reading is (\d+))")))
        return "Cannot open '" + source + "': it is a PyTorch archive of file format version " +
               m[1].str() + ", and " + runsOn + ", reads versions up to " + m[2].str() +
               "; it was saved by a newer PyTorch, so save it again with PyTorch " +
               libtorchVersion().substr(0, libtorchVersion().rfind('.')) +
               " or open it with an fxview built on a newer LibTorch.";
    return "Cannot open '" + source + "': " + runsOn +
           ", could not load this TorchScript archive (" + why +
           "); if it was saved by a newer PyTorch, open it with an fxview built on that "
           "PyTorch's LibTorch, and if it is damaged, copy or save it again.";
}

} // namespace

LoadResult loadModel(const std::string& source, const std::vector<std::string>& opLibraries) {
    // LibTorch's graph executor rewrites a method's graph on its second call (profiling, then
    // optimisation). fxview runs what the archive says, node by node, and checks it against forward
    // called again and again: the optimiser adds nothing on CPU but a pause (tinynet's fc1 took 64
    // ms on its first call) and, on LibTorch 2.6, hangs for minutes on a traced vit_b_16's second
    // forward (in Python too). So methods run unoptimised, as the archive wrote them.
    torch::jit::setGraphExecutorOptimize(false);
    registerQuantizedDecomposedOps(); // before reading: archives that call them load
    for (const std::string& library : opLibraries)
        if (std::string error = loadOpLibrary(library); !error.empty())
            return failure(error);
    const std::string examplePrefix = "example:";
    if (source.rfind(examplePrefix, 0) == 0)
        return loadExample(source, source.substr(examplePrefix.size()));

    ArchiveCheck check = checkArchive(source);
    // FILE:NAME opens program NAME of a PT2 archive that holds several.
    std::string path = source, program;
    if (std::size_t colon = source.rfind(':');
        check.kind == ArchiveKind::Missing && colon != std::string::npos && colon > 0) {
        ArchiveCheck named = checkArchive(source.substr(0, colon));
        if (named.kind == ArchiveKind::ExportedProgram) {
            path = source.substr(0, colon);
            program = source.substr(colon + 1);
            check = named;
        }
    }
    if (check.kind == ArchiveKind::ExportedProgram) {
        try {
            auto d = std::make_unique<Model::Private>();
            d->source = source;
            std::shared_ptr<ExportedModel> exported = readExportedModel(path, program);
            std::string note = exported->note;
            d->exported = std::move(exported);
            return {std::make_shared<Model>(std::move(d)), {}, std::move(note)};
        } catch (const std::exception& e) {
            return failure("Cannot open '" + source +
                           "' (a torch.export program): " + firstLineOf(e) + ".");
        }
    }
    if (check.kind != ArchiveKind::TorchScript)
        return failure(explain(source, check));

    // LibTorch throws c10::Error, std::runtime_error (from the unpickler), torch::jit::ErrorReport
    // and others: no exception of any type may escape.
    std::string why = "an unknown error";
    std::set<std::string> loadedFor; // op namespaces whose package library was loaded
    for (;;) {
        try {
            auto d = std::make_unique<Model::Private>();
            d->source = source;
            // restore_shapes: a traced archive's forward gets back the shapes and dtypes it was
            // traced with (traced_inputs.pkl), the best default input there is.
            torch::jit::ExtraFilesMap extra;
            d->module = torch::jit::import_ir_module(
                std::make_shared<torch::jit::CompilationUnit>(), source, c10::Device(c10::kCPU),
                extra, /*load_debug_files=*/true, /*restore_shapes=*/check.tracedInputs);
            d->module.eval();
            return {std::make_shared<Model>(std::move(d)), {}, {}};
        } catch (const std::exception& e) {
            why = firstLineOf(e);
        } catch (...) {
        }
        // An op of torchvision's or torchaudio's: their package's library registers it; then
        // the archive is read again (its code is compiled as it is read).
        std::smatch m;
        if (!std::regex_search(why, m, std::regex(R"(Unknown builtin op: ([A-Za-z0-9_]+)::)")) ||
            !loadedFor.insert(m[1].str()).second || !loadPackagedOpLibrary(m[1].str()))
            break;
    }
    return failure(explainLoadFailure(source, why));
}

} // namespace fxview
