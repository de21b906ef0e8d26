#include "Importer.h"

namespace fxview {

TraceResult importGraph(const Model& model) {
    for (const GraphImporter* importer : {&exportedProgramImporter(), &torchScriptImporter()})
        if (importer->reads(model))
            return importer->importGraph(model);
    TraceResult result;
    result.error = "No importer reads '" + model.source() + "'.";
    return result;
}

} // namespace fxview
