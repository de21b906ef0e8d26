#pragma once
// For tests that link core: a model's fx graph, or a fatal error naming why there is none.

#include <QtGlobal>
#include <string>

#include "Model.h"
#include "Tracer.h"

inline fxview::Graph tracedGraph(const std::string& source) {
    fxview::LoadResult loaded = fxview::loadModel(source);
    if (!loaded.ok())
        qFatal("%s", loaded.error.c_str());
    fxview::TraceResult result = fxview::importGraph(*loaded.model);
    if (!result.ok())
        qFatal("%s", result.error.c_str());
    return result.graph;
}
