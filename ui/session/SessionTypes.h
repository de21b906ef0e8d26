#pragma once
// What a debugging session holds, as plain data: the model open (LoadedModel), the run
// (RunSnapshot, with the module Step Into is in), and the executed path (ExecutedView). The
// engine client makes them from the engine's answers (engineclient/), the session keeps them
// (DebugSession), the window and the panels read them.

#include <QString>
#include <QStringList>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "EngineProtocol.h"
#include "Graph.h"
#include "GraphLayout.h"
#include "InputSpec.h"
#include "ScopeTree.h"
#include "ScopeView.h"

namespace fxview {

// The engine a file is opened with: a command line (empty: fxview-engine) and what its Open asks
// of a Python engine. File ▸ Open remembers it per file (SessionSettings).
struct EngineChoice {
    QStringList command;
    std::vector<std::string> imports;
    std::string device;
    bool operator==(const EngineChoice&) const = default;
};

struct LoadedModel {
    int load = 0; // the id EngineClient::load returned
    QString source;
    QString className;
    Graph graph;
    ScopeTree scopes;                 // its module hierarchy
    std::set<std::string> openScopes; // the ones drawn open: remembered, or the default
    // The graph as drawn with only those open (closed scopes as boxes), and its layout, made on
    // the engine's side with the scene's font; the cache lays it out again as scopes open.
    std::shared_ptr<const ScopeView> view;
    GraphLayout layout;
    std::shared_ptr<LayoutCache> layoutCache;
    std::vector<InputSpec> inputs; // what the run uses: given, or guessed
    QString inputNote;             // where the inputs came from
    QString inputError;            // why the inputs given could not be used (the guess was), or ""
    std::string graphText;         // torch.fx's print(graph)
    QString note;                  // why this graph and not the one asked for, or ""
    bool live = false;             // served by the person's own Python process (--attach)
    QString runtime;               // where the model runs ("Python 3.13, PyTorch 2.6, pid 7")
    EngineChoice engine;           // the engine it was opened with
    // Drawn by the window alone while its engine starts (a .pt2 read without LibTorch, or the
    // graph an engine made of the same file before): nothing runs until the engine's model
    // replaces it.
    bool drawnAhead = false;
    // The engine's model, its graph the same to the byte as the one drawn ahead: the scene,
    // already showing it, stays as it is.
    bool sameAsDrawn = false;
};

// The executed path of the run so far as its own graph (branches not taken left out, loops
// unrolled), with each of its nodes' values, as the engine sent it; laid out here.
struct ExecutedView : PathState {
    GraphLayout layout;
};

// While Step Into is inside a module: that module's own graph with its nodes' records (as the
// engine sent it), laid out, as a debugger shows the source of the function it stepped into.
struct ModuleFrame : FrameState {
    GraphLayout layout;
};

// The run as the engine sent it, with the module stepped into laid out (`inside`, or null; the
// protocol's own `steppedInto` is moved there).
struct RunSnapshot : RunState {
    std::shared_ptr<const ModuleFrame> inside;
};

} // namespace fxview
