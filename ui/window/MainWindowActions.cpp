// MainWindow's menus, toolbar and shortcuts (File, Run, Edit, View, Help), and the commands
// behind File's entries: open, export, copy. Apart from MainWindow.cpp, which builds the docks
// and shows models: this file is where a new command goes.

#include "window/MainWindow.h"
#include "window/WindowIds.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QIcon>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <cstdio>

#include "Examples.h"
#include "FxText.h"
#include "GraphJson.h"
#include "GraphLayout.h"
#include "Versions.h"
#include "export/SceneExport.h"
#include "panels/GraphTextPanel.h"
#include "panels/InputBar.h"
#include "panels/Inspector.h"
#include "panels/LoadProgress.h"
#include "scene/ClusterItem.h"
#include "scene/GraphScene.h"
#include "scene/GraphView.h"
#include "scene/NodeItem.h"
#include "scene/OverviewView.h"
#include "session/DebugSession.h"
#include "session/SessionSettings.h"
#include "window/OpenRemoteDialog.h"

namespace fxview {

void MainWindow::buildActions() {
    QMenu* file = menuBar()->addMenu("&File");
    file->addAction("&Open…", QKeySequence::Open, this, &MainWindow::chooseFile)
        ->setObjectName(ids::kOpen);
    file->addAction("Open Re&mote…", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this,
                    &MainWindow::chooseRemote)
        ->setObjectName(ids::kOpenRemote);
    QMenu* examplesMenu = file->addMenu("&Examples");
    for (const ExampleInfo& e : examples()) {
        QString source = "example:" + QString::fromStdString(e.name);
        QAction* a = examplesMenu->addAction(QString::fromStdString(e.name), this,
                                             [this, source] { openModel(source); });
        a->setStatusTip(QString::fromStdString(e.description));
    }
    QMenu* recent = file->addMenu("Open &Recent");
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        for (const QString& source : recentModels())
            recent->addAction(source, this, [this, source] { openModel(source); });
        recent->setEnabled(!recent->isEmpty());
    });
    file->addAction("&Export…", QKeySequence(Qt::CTRL | Qt::Key_E), this, &MainWindow::chooseExport)
        ->setObjectName(ids::kExport);
    QAction* visible = file->addAction("Export &Visible Part…", this, [this] {
        QString path = QFileDialog::getSaveFileName(
            this, "Export visible part", QFileInfo(session_->source()).baseName() + "-part.png",
            "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)");
        if (path.isEmpty())
            return;
        QString error = exportTo(path, true);
        if (!error.isEmpty())
            QMessageBox::warning(this, "Export failed", error);
    });
    visible->setObjectName(ids::kExportVisible);
    QAction* library = file->addAction("Load Op &Library…", this, [this] {
        // A person's own ops (TORCH_LIBRARY), as torch.ops.load_library: remembered, loaded
        // before every model from now on, and the model open now is opened again with them.
        QString path = QFileDialog::getOpenFileName(this, "Load a library of custom ops", QString(),
                                                    "Shared libraries (*.so*)");
        if (path.isEmpty())
            return;
        settings::addOpLibrary(path);
        EngineClient::addOpLibrary(path.toStdString());
        if (!session_->source().isEmpty())
            openModel(session_->source());
    });
    library->setObjectName(ids::kLoadOpLibrary);
    file->addSeparator();
    file->addAction("&Quit", QKeySequence::Quit, qApp, &QApplication::closeAllWindows);

    QMenu* run = menuBar()->addMenu("&Run");
    QToolBar* bar = addToolBar("Run");
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->setObjectName("runToolbar");
    // Icons come from resources/icons (compiled into the app; without them, text shows).
    auto add = [&](const char* id, const QString& text, const char* icon, const QKeySequence& key,
                   auto slot) {
        QAction* a = run->addAction(QIcon(QString(":/fxview/icons/%1.svg").arg(icon)), text, key,
                                    this, slot);
        a->setObjectName(id);
        a->setToolTip(QString(text).remove('&') + " (" + key.toString(QKeySequence::NativeText) +
                      ")");
        a->setShortcutContext(Qt::ApplicationShortcut);
        bar->addAction(a);
        runActions_.append(a);
        return a;
    };
    auto command = [this](RunCommand c) { return [this, c] { session_->runCommand(c); }; };
    add(ids::kStep, "&Step", "step", QKeySequence(Qt::Key_F10), command(RunCommand::Step));
    add(ids::kStepInto, "Step &Into", "step-into", QKeySequence(Qt::Key_F11),
        command(RunCommand::StepInto));
    add(ids::kStepOut, "Step &Out", "step-out", QKeySequence(Qt::SHIFT | Qt::Key_F11),
        command(RunCommand::StepOut));
    add(ids::kRunToCursor, "Run to &Cursor", "run-to-cursor", QKeySequence(Qt::CTRL | Qt::Key_F10),
        [this] { session_->runTo(selectedNode()); });
    add(ids::kContinue, "&Continue", "continue", QKeySequence(Qt::Key_F5),
        command(RunCommand::RunToEnd));
    add(ids::kReset, "&Reset", "reset", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5),
        command(RunCommand::Reset));
    // Play steps on its own, one node per interval, until the end, a failure or Pause.
    play_ = add(ids::kPlay, "&Play", "play", QKeySequence(Qt::CTRL | Qt::Key_P),
                [this] { setPlaying(play_->isChecked()); });
    play_->setCheckable(true);
    playInterval_ = new QSpinBox;
    playInterval_->setRange(10, 5000);
    playInterval_->setSingleStep(50);
    playInterval_->setValue(400);
    playInterval_->setSuffix(" ms/step");
    playInterval_->setToolTip("Play speed");
    connect(playInterval_, qOverload<int>(&QSpinBox::valueChanged), session_,
            &DebugSession::setPlayInterval);
    session_->setPlayInterval(playInterval_->value());
    bar->addWidget(playInterval_);
    run->addSeparator();
    detach_ = run->addAction("&Detach from Python", this, [this] { engine_->detach(); });
    detach_->setToolTip("End the live session: the window keeps its picture, your Python goes on");
    detach_->setEnabled(false);
    detach_->setObjectName(ids::kDetach);
    run->addSeparator();
    QAction* bp = run->addAction(QIcon(":/fxview/icons/breakpoint.svg"), "Toggle &Breakpoint",
                                 QKeySequence(Qt::Key_F9), this,
                                 [this] { toggleBreakpoint(selectedNode()); });
    bp->setShortcutContext(Qt::ApplicationShortcut);
    bp->setObjectName(ids::kToggleBreakpoint);
    run->addAction("Remove &All Breakpoints", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F9), this,
                   [this] {
                       for (const QString& node : QStringList(session_->breakpoints().values()))
                           toggleBreakpoint(node);
                   })
        ->setObjectName(ids::kRemoveBreakpoints);
    // Where the numbers go wrong: Continue, Run to Cursor and Play stop after the first node
    // whose output holds a NaN or an infinity, and the banner says where they were born.
    QAction* nonFinite = run->addAction("Break on &NaN/Inf");
    nonFinite->setObjectName(ids::kBreakOnNonFinite);
    nonFinite->setCheckable(true);
    nonFinite->setToolTip("Stop after the first node whose output holds a NaN or an infinity");
    connect(nonFinite, &QAction::toggled, session_, &DebugSession::setBreakOnNonFinite);
    run->addSeparator();
    QAction* compare = run->addAction("Co&mpare Runs…");
    compare->setObjectName(ids::kCompareRuns);
    compare->setToolTip("Run B beside this run (another precision, input or file) and compare "
                        "them node by node");
    connect(compare, &QAction::triggered, this, &MainWindow::compareRuns);
    QAction* profile = run->addAction("&Profile…");
    profile->setObjectName(ids::kProfile);
    profile->setShortcut(QKeySequence("Ctrl+Alt+P"));
    profile->setToolTip("Run the model several times and show what each node costs: its median "
                        "time, memory, live set and FLOPs (the Cost dock)");
    connect(profile, &QAction::triggered, this, [this] { chooseProfile(); });

    QMenu* edit = menuBar()->addMenu("&Edit");
    edit->setObjectName("editMenu");
    QToolBar* findBar = addToolBar("Find");
    findBar->setObjectName("findToolbar");
    find_ = new QLineEdit;
    find_->setPlaceholderText("Find node (name, op or target)");
    find_->setClearButtonEnabled(true);
    find_->setMaximumWidth(280);
    findBar->addWidget(find_);
    connect(find_, &QLineEdit::returnPressed, this, [this] { findNode(find_->text()); });
    edit->addAction("&Find…", QKeySequence::Find, this, [this] {
        find_->setFocus();
        find_->selectAll();
    });
    edit->addAction("Find &Next", QKeySequence::FindNext, this,
                    [this] { findNode(find_->text()); });
    edit->addAction("Find &Previous", QKeySequence::FindPrevious, this,
                    [this] { findNode(find_->text(), true); });

    QMenu* view = menuBar()->addMenu("&View");
    QAction* zoomIn =
        view->addAction("Zoom &In", QKeySequence::ZoomIn, this, [this] { view_->zoomBy(1.25); });
    // Ctrl++ is Ctrl+Shift+= on most keyboards; Ctrl+= zooms in too, as in browsers.
    zoomIn->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    view->addAction("Zoom &Out", QKeySequence::ZoomOut, this, [this] { view_->zoomBy(0.8); });
    view->addAction("&Fit to Window", QKeySequence(Qt::CTRL | Qt::Key_0), this,
                    [this] { view_->fitInView(scene_->sceneRect(), Qt::KeepAspectRatio); });
    view->addAction("Zoom to &Selection", QKeySequence(Qt::CTRL | Qt::Key_9), this, [this] {
        if (NodeItem* item = scene_->nodeItem(selectedNode()))
            view_->fitInView(item->sceneBoundingRect().adjusted(-80, -80, 80, 80),
                             Qt::KeepAspectRatio);
    });
    view->addSeparator();
    executedPath_ =
        view->addAction("&Executed Path Only", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this,
                        [this](bool on) {
                            if (on && session_->executed().graph.nodes.empty())
                                engine_->requestExecutedPath(); // shown on arrival
                            else
                                setExecutedPathShown(on);
                        });
    executedPath_->setCheckable(true);
    executedPath_->setObjectName(ids::kExecutedPath);
    executedPath_->setEnabled(false);
    executedPath_->setStatusTip("Show only what this run executed, as tracing would record it: "
                                "branches not taken vanish, loops are unrolled");
    view->addSeparator();
    buildScopeActions(view);
    view->addSeparator();
    QMenu* panels = view->addMenu("&Panels");
    for (QDockWidget* d : docks_)
        panels->addAction(d->toggleViewAction());
    QMenu* editMenu = menuBar()->findChild<QMenu*>("editMenu");
    if (editMenu) {
        // Ctrl+C copies the picture when the graph has the focus; in the inspector or the graph
        // text it copies their selected text, as everywhere else.
        QAction* copy =
            editMenu->addAction("&Copy Image", QKeySequence::Copy, this, &MainWindow::copyImage);
        copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        copy->setObjectName(ids::kCopyImage);
        view_->addAction(copy);
    }
    // Right-click on a node: the debugger's actions on that node.
    view_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view_, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        auto* node = dynamic_cast<NodeItem*>(view_->itemAt(at));
        if (!node)
            return;
        selectNode(node->name());
        QMenu menu(this);
        menu.addAction("Run to Here", [this] { session_->runTo(selectedNode()); });
        menu.addAction(node->hasBreakpoint() ? "Remove Breakpoint" : "Add Breakpoint", this,
                       [this, name = node->name()] { toggleBreakpoint(name); });
        if (!node->hasBreakpoint() && !node->isScopeBox()) {
            // A condition is tested on the node's output: the run stops after it.
            QMenu* when = menu.addMenu("Break After It When");
            when->addAction("Its Output Holds NaN/Inf", this, [this, name = node->name()] {
                addConditionalBreakpoint(name, {BreakCondition::Kind::NonFinite, 0});
            });
            when->addAction("Max |x| Exceeds…", this, [this, name = node->name()] {
                bool ok = false;
                double limit = QInputDialog::getDouble(this, "Break when max |x| exceeds",
                                                       "Stop after " + name +
                                                           " when the largest |x| of its "
                                                           "output is above:",
                                                       1e4, 0, 1e300, 6, &ok);
                if (ok)
                    addConditionalBreakpoint(name, {BreakCondition::Kind::AbsAbove, limit});
            });
        }
        if (node->isScopeBox())
            menu.addAction("Expand " + node->scope(), this,
                           [this, scope = node->scope()] { setScopeOpen(scope, true); });
        // The scope the node (or box) is drawn in, closed into a box.
        if (const Node* shown = session_->shownGraph().find(node->name().toStdString());
            shown && !shown->scope.empty() && scene_->scopeView())
            menu.addAction("Collapse " + QString::fromStdString(shown->scope), this,
                           [this, scope = QString::fromStdString(shown->scope)] {
                               setScopeOpen(scope, false);
                           });
        menu.exec(view_->viewport()->mapToGlobal(at));
    });

    addToolBarBreak();
    inputBar_ = new InputBar(this);
    addToolBar(inputBar_);
    connect(inputBar_, &InputBar::applyRequested, this, &MainWindow::applyInputs);

    QMenu* help = menuBar()->addMenu("&Help");
    help->addAction("&About fxview", this, [this] {
        QMessageBox::about(
            this, "About fxview",
            QString("<b>fxview %1</b><br>See a PyTorch model's graph the way torch.fx sees it, "
                    "and step through it on sample input.<br>%2")
                .arg(QApplication::applicationVersion(),
                     QString::fromStdString(librariesText(qVersion()))));
    });
}

QString MainWindow::exportTo(const QString& path, bool visiblePartOnly) {
    ExportOptions options;
    if (!exportFormatFor(path, options.format))
        return "Cannot tell the format of '" + path +
               "'; use .png, .svg, .pdf, .dot, .json or .txt.";
    if (visiblePartOnly)
        options.area =
            view_->mapToScene(view_->viewport()->rect()).boundingRect() & scene_->sceneRect();
    std::string dot = options.format == ExportFormat::Dot ? graphToDot(session_->shownGraph()) : "";
    std::string json;
    if (options.format == ExportFormat::Json) {
        const LoadedModel& model = session_->model();
        const RunSnapshot& ran = session_->run();
        JsonModelInfo info{session_->source().toStdString(), model.className.toStdString()};
        JsonRunInfo run{ran.inputs,
                        ran.inputValues,
                        ran.seed,
                        [&ran](const std::string& name) -> const NodeRecord* {
                            auto it = ran.records.find(name);
                            return it == ran.records.end() ? nullptr : &it->second;
                        },
                        ran.outputCheck,
                        ran.peak};
        json = withScopeTree(graphToJson(model.graph, info, ran.order.empty() ? nullptr : &run),
                             model.scopes, model.openScopes);
    }
    return exportGraph(path, options, {scene_, dot, json, graphText_->graphText()});
}

void MainWindow::copyImage() {
    QRectF area = scene_->sceneRect();
    QImage image((area.size() * 2).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.fill(scene_->theme().background);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    scene_->render(&painter, QRectF(QPointF(0, 0), image.size()), area);
    painter.end();
    QGuiApplication::clipboard()->setImage(image);
    statusBar()->showMessage("Graph image copied", 3000);
}

void MainWindow::chooseFile() {
    QString path =
        QFileDialog::getOpenFileName(this, "Open TorchScript model", QString(),
                                     "PyTorch models (*.pt *.pth *.zip *.pt2);;All files (*)");
    if (!path.isEmpty())
        openModel(path);
}

void MainWindow::chooseRemote() {
    OpenRemoteDialog dialog(this, session_->source());
    if (dialog.exec() == QDialog::Accepted)
        openModel(dialog.source());
}

void MainWindow::chooseExport() {
    // Offered in the folder of the last export, named after the model ("example:tinynet" has a
    // colon no file name should carry); a name typed without extension takes the chosen type's.
    QString name = QFileInfo(session_->source()).completeBaseName().replace(':', '_');
    QString folder = settings::exportFolder(QDir::currentPath());
    QString filter;
    QString path =
        QFileDialog::getSaveFileName(this, "Export graph", QDir(folder).filePath(name + ".svg"),
                                     "SVG (*.svg);;PNG (*.png);;PDF (*.pdf);;Graphviz DOT "
                                     "(*.dot);;fxview JSON (*.json);;Graph as text (*.txt)",
                                     &filter);
    if (path.isEmpty())
        return;
    ExportFormat format;
    if (!exportFormatFor(path, format)) {
        static const QRegularExpression extension("\\*(\\.\\w+)");
        path += extension.match(filter).captured(1);
    }
    settings::setExportFolder(QFileInfo(path).absolutePath());
    QString error = exportTo(path);
    if (!error.isEmpty())
        QMessageBox::warning(this, "Export failed", error);
    else
        statusBar()->showMessage("Exported " + path, 5000);
}

} // namespace fxview
