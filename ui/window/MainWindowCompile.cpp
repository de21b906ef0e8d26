// The window's part in a compile session (fxview.backend, docs/compile-session.md): the live
// engine sends the session after each graph it opens, the Compile dock lists it, and activating
// a graph there opens it from the same Python, stepped on the inputs it was called with. A
// pass's graph is compared with the graph the pass was given, in the Comparison dock.

#include <QDockWidget>

#include "EngineProtocol.h"
#include "engineclient/EngineClient.h"
#include "panels/Banner.h"
#include "panels/CompilePanel.h"
#include "scene/GraphScene.h"
#include "session/DebugSession.h"
#include "window/MainWindow.h"
#include "window/WindowIds.h"

namespace fxview {

void MainWindow::buildCompilePanel() {
    compile_ = new CompilePanel;
    connect(compile_, &CompilePanel::graphRequested, this,
            [this](const QString& source) { openModel(source, {}); });
    connect(engine_, &EngineClient::compileSession, this, [this](const QByteArray& json) {
        if (QString bad = compile_->setSession(json); !bad.isEmpty())
            return banner_->say(bad, Banner::State::Error);
        if (auto marks = compile_->openMarks(); !marks.isEmpty())
            scene_->setNodeMarks(marks);
        // After a pass: where its values first part from the graph it was given, both stepped
        // on the graph's recorded inputs by the same Python.
        if (QString before = compile_->openPassBefore(); !before.isEmpty()) {
            CompareRequest request;
            request.modelB = before.toStdString();
            passMarksKept_ = true;
            startComparison(request);
        }
        // Shown and brought to the front when the first session arrives, wide enough for a
        // graph's row; later ones (each graph opened) leave the layout as the person made it.
        if (auto* dock = findChild<QDockWidget*>(ids::kCompileDock); dock && !compileShown_) {
            compileShown_ = true;
            dock->show();
            dock->raise();
            resizeDocks({dock}, {480}, Qt::Horizontal);
        }
    });
}

// Only a compile session has anything to list: the dock stays closed until one arrives, whatever
// the saved layout says.
void MainWindow::hideCompileDockUntilNeeded() {
    if (auto* dock = findChild<QDockWidget*>(ids::kCompileDock); dock && !compile_->hasSession())
        dock->hide();
}

} // namespace fxview
