// fxview-schema-table OUT.txt: writes the schema of every operator the LibTorch it is built on
// registers (with fxview's own native ops, and torchvision's and torchaudio's where the build's
// Python packages install their libraries), a line each after one naming the LibTorch, so that the
// window, which never loads LibTorch, places a .pt2 call's arguments as the engine does. Run by the
// build (cmake/EmbedSchemaTable.cmake embeds the text), never installed.

#include <fstream>
#include <iostream>

#include "OpLibraries.h"
#include "QuantizedDecomposed.h"
#include "TorchOperatorSchema.h"
#include "Versions.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: fxview-schema-table OUT.txt\n";
        return 2;
    }
    // Their ops are in the table only where this build's root has the packages; a model calling
    // them otherwise waits for the engine to draw it.
    fxview::registerQuantizedDecomposedOps(); // as the engine does before it reads a model
    fxview::loadPackagedOpLibrary("torchvision");
    fxview::loadPackagedOpLibrary("torchaudio");
    std::ofstream out(argv[1], std::ios::binary);
    // A line that names no schema (it ends in no "->N") is passed over when the table is read.
    out << "# The operators of LibTorch " << fxview::libtorchVersion() << "\n"
        << fxview::registeredOperatorSchemaTable();
    if (!out.flush()) {
        std::cerr << "fxview-schema-table: cannot write " << argv[1] << "\n";
        return 1;
    }
    return 0;
}
