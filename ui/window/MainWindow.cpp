#include "window/MainWindow.h"

#include <cstdio>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QIcon>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStatusBar>
#include <QTextBlock>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include "Examples.h"
#include "FxText.h"
#include "GraphJson.h"
#include "GraphLayout.h"
#include "Versions.h"
#include "engineclient/RemoteEngine.h"
#include "export/SceneExport.h"
#include "panels/Banner.h"
#include "panels/ComparisonPanel.h"
#include "panels/CompilePanel.h"
#include "panels/CostPanel.h"
#include "panels/GraphTextPanel.h"
#include "panels/InputBar.h"
#include "panels/Inspector.h"
#include "panels/LoadProgress.h"
#include "panels/MemoryStrip.h"
#include "panels/NodeListPanel.h"
#include "panels/ValuesPanel.h"
#include "scene/ClusterItem.h"
#include "scene/GraphScene.h"
#include "scene/GraphView.h"
#include "scene/NodeItem.h"
#include "scene/OverviewView.h"
#include "session/DebugSession.h"
#include "session/SessionSettings.h"
#include "window/BackgroundLayout.h"
#include "window/WindowIds.h"

// The icons live in this static library (resources/resources.qrc); its initialiser has to be
// called by name, at global scope, or the linker drops it and every window, the tests' too, comes
// up without icons.
static void initResources() {
    Q_INIT_RESOURCE(resources);
}

namespace fxview {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), session_(new DebugSession(this)), engine_(session_->engine()),
      scene_(new GraphScene(this)), view_(new GraphView), banner_(new Banner), status_(new QLabel),
      progress_(new LoadProgress), layout_(new BackgroundLayout(this)) {
    initResources();
    QApplication::setWindowIcon(QIcon(":/fxview/fxview.svg")); // this window's and its dialogs'
    setWindowTitle("fxview");
    engine_->setLayoutFont(scene_->font());
    view_->setScene(scene_);
    view_->installEventFilter(this);
    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(banner_);
    layout->addWidget(view_);
    buildCostPanel(); // its strip goes under the graph
    layout->addWidget(strip_);
    setCentralWidget(central);
    // On the right, without stretch: the left keeps room for messages (Find, Export, Cancel).
    statusBar()->addPermanentWidget(status_);
    statusBar()->addPermanentWidget(progress_);
    connect(engine_, &EngineClient::loadProgress, progress_, &LoadProgress::advance);
    connect(progress_, &LoadProgress::cancelRequested, this, [this] {
        if (!cancelLayout())
            cancelOpen();
    });
    connect(layout_, &BackgroundLayout::progressed, this, [this](int done, int total) {
        progress_->advanceWork(total > 0 ? 100 * done / total : 0);
    });

    buildDocks();
    buildActions();

    connect(session_, &DebugSession::modelLoaded, this, &MainWindow::showModel);
    connect(session_, &DebugSession::modelDropped, this, [this] {
        showModelGraph(); // nothing: the model drawn ahead went with its load
        setWindowTitle("fxview");
        updateStatus();
    });
    connect(session_, &DebugSession::runUpdated, this, &MainWindow::showRun);
    connect(engine_, &EngineClient::loadFailed, this, &MainWindow::loadFailed);
    connect(engine_, &EngineClient::inputsRejected, this,
            [this](const QString& sentence) { banner_->say(sentence, Banner::State::Error); });
    connect(session_, &DebugSession::inputsApplied, this, &MainWindow::inputsApplied);
    connect(engine_, &EngineClient::engineFailed, this, [this](const QString& sentence) {
        banner_->say(sentence, Banner::State::Error);
        updateStatus();
    });
    connect(engine_, &EngineClient::unconfined, this, [this](const QString& sentence) {
        std::fprintf(stderr, "fxview: %s\n", qPrintable(sentence));
        statusBar()->showMessage(sentence, 10000);
    });
    connect(engine_, &EngineClient::liveEnded, this, [this](const QString& sentence) {
        // The session stopped Play and ended the run's commands.
        banner_->say(sentence, Banner::State::Note);
        updateStatus();
    });
    connect(engine_, &EngineClient::liveWaiting, this, [this](const QString& sentence) {
        // A run outcome: gone with the state the node's end brings.
        banner_->say(sentence, Banner::State::RunFailure);
    });
    connect(engine_, &EngineClient::busyChanged, this, [this](bool) { updateStatus(); });
    connect(session_, &DebugSession::message, statusBar(), &QStatusBar::showMessage);
    connect(session_, &DebugSession::revealRequested, this, &MainWindow::revealNode);
    connect(session_, &DebugSession::playingChanged, this, &MainWindow::showPlaying);
    connect(session_, &DebugSession::executedPathReady, this, [this] {
        if (executedPath_->isChecked())
            setExecutedPathShown(true);
    });
    connect(scene_, &GraphScene::gutterClicked, this, &MainWindow::toggleBreakpoint);
    // The session hears of the selection while it lives (the window's children go before the
    // scene, which still reports its items leaving as it is destroyed).
    connect(scene_, &QGraphicsScene::selectionChanged, session_,
            [this] { session_->select(selectedNode()); });
    connect(scene_, &QGraphicsScene::selectionChanged, this, [this] {
        QString name = selectedNode();
        if (name.isEmpty()) {
            // Nothing selected (a click on empty canvas): no panel goes on showing the old node.
            inspector_->clear();
            nodeList_->showSelected({});
            graphText_->showNodeLine({});
            comparison_->showNode({});
            strip_->setSelected({});
            return;
        }
        showInspector(name);
        comparison_->showNode(name);
        cost_->showNode(name);
        strip_->setSelected(name);
        const ScopeBox* box =
            scene_->scopeView() ? scene_->scopeView()->box(name.toStdString()) : nullptr;
        nodeList_->showSelected(name, box ? QString::fromStdString(box->scope) : QString());
        graphText_->showNodeLine(name);
    });
    setAcceptDrops(true);
    resize(1280, 860);
    followSystemPalette();
    styleBanner();
    // Window size and dock layout as the person left them.
    restoreGeometry(settings::windowGeometry());
    if (!restoreState(settings::windowState()))
        // First start: the inspector wide enough for a value line and its histogram.
        resizeDocks({findChild<QDockWidget*>(ids::kInspectorDock)}, {340}, Qt::Horizontal);
    hideCompileDockUntilNeeded();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    settings::saveWindow(saveGeometry(), saveState());
    QMainWindow::closeEvent(event);
}

// The docks go before the scene (QWidget's children before QObject's): the scene's last
// selection change, as its selected box is deleted, must not reach panels already gone.
MainWindow::~MainWindow() {
    scene_->disconnect(this);
}

void MainWindow::buildDocks() {
    nodeList_ = new NodeListPanel;
    connect(nodeList_, &NodeListPanel::nodeChosen, this, [this](const QString& name) {
        if (name != selectedNode())
            selectNode(name);
    });
    connect(nodeList_, &NodeListPanel::scopeChosen, this, [this](const QString& scope) {
        // A scope's row: its box when closed, its frame when open.
        const LoadedModel& model = session_->model();
        if (!model.view)
            return;
        QString box = QString::fromStdString(model.view->boxFor(scope.toStdString()));
        if (!box.isEmpty() && box != selectedNode())
            selectNode(box);
        else if (ClusterItem* frame = scene_->clusterItem(scope))
            view_->centerOn(frame);
    });
    connect(nodeList_, &NodeListPanel::scopeToggled, this, &MainWindow::setScopeOpen);

    inspector_ = new Inspector;
    connect(inspector_, &Inspector::nodeLinkClicked, this, &MainWindow::selectNode);
    graphText_ = new GraphTextPanel;
    connect(graphText_, &GraphTextPanel::nodeClicked, this, &MainWindow::selectNode);

    values_ = new ValuesPanel;
    connect(values_, &ValuesPanel::sliceWanted, session_, &DebugSession::requestValues);
    connect(values_, &ValuesPanel::saveWanted, session_, &DebugSession::saveValue);
    connect(session_, &DebugSession::valuesReady, values_, &ValuesPanel::showSlice);
    connect(session_, &DebugSession::detailChanged, this, [this](const QString& node) {
        if (node == selectedNode())
            describeNode(node);
    });
    connect(session_, &DebugSession::valueNotSaved, this,
            [this](const QString& sentence) { banner_->say(sentence, Banner::State::Error); });

    buildComparison();
    buildCompilePanel();

    overview_ = new OverviewView(view_);
    overview_->setMinimumHeight(160);
    const struct {
        const char* id;
        const char* title;
        QWidget* widget;
        Qt::DockWidgetArea area;
    } docks[] = {
        {ids::kNodesDock, "Nodes", nodeList_, Qt::LeftDockWidgetArea},
        {ids::kInspectorDock, "Inspector", inspector_, Qt::RightDockWidgetArea},
        {ids::kGraphTextDock, "Graph as text", graphText_, Qt::BottomDockWidgetArea},
        {ids::kOverviewDock, "Overview", overview_, Qt::RightDockWidgetArea},
        {ids::kValuesDock, "Values", values_, Qt::BottomDockWidgetArea},
        {ids::kComparisonDock, "Comparison", comparison_, Qt::BottomDockWidgetArea},
        {ids::kCompileDock, "Compile", compile_, Qt::LeftDockWidgetArea},
        {ids::kCostDock, "Cost", cost_, Qt::BottomDockWidgetArea},
    };
    for (const auto& d : docks) {
        auto* dock = new QDockWidget(d.title, this);
        dock->setObjectName(d.id);
        dock->setWidget(d.widget);
        addDockWidget(d.area, dock);
        docks_.append(dock); // View > Panels brings a closed one back
    }
    // Values shares the bottom with the graph's text, as a debugger's watch and console do.
    auto* valuesDock = findChild<QDockWidget*>(ids::kValuesDock);
    auto* textDock = findChild<QDockWidget*>(ids::kGraphTextDock);
    tabifyDockWidget(textDock, valuesDock);
    tabifyDockWidget(valuesDock, findChild<QDockWidget*>(ids::kComparisonDock));
    tabifyDockWidget(findChild<QDockWidget*>(ids::kComparisonDock),
                     findChild<QDockWidget*>(ids::kCostDock));
    connect(findChild<QDockWidget*>(ids::kCostDock), &QDockWidget::visibilityChanged, this,
            [this](bool visible) {
                costShown_ = visible; // a tab behind another is not
                showCost();
            });
    textDock->raise();
    resizeDocks({textDock}, {220}, Qt::Vertical);
    // A compile session's list takes the Nodes dock's place, one tab over.
    tabifyDockWidget(findChild<QDockWidget*>(ids::kNodesDock),
                     findChild<QDockWidget*>(ids::kCompileDock));
    connect(valuesDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible && !selectedNode().isEmpty())
            showInspector(selectedNode());
    });
}

void MainWindow::openModel(const QString& source, const std::vector<InputSpec>& inputs,
                           const QStringList& moreImports) {
    cancelLayout(); // the progress bar is the load's now
    statusBar()->showMessage("Opening " + source + "…");
    quint64 seed = 0;
    const int load = session_->open(source, inputs, seed, moreImports);
    inputBar_->setSeed(seed);
    progress_->start(load, source);
    updateStatus();
}

// A file that could not be opened: its sentence in the banner and in a box. Where the engine
// says which of the person's modules the file names (a pytree class's, the code that registers
// an operator), the box offers to import them and open the file again; a file that then opens
// remembers them with its engine.
void MainWindow::loadFailed(const QString& sentence, const QString& source,
                            const QStringList& imports) {
    progress_->finish();
    statusBar()->clearMessage(); // "Opening …" is over
    banner_->say(sentence, Banner::State::Error);
    updateStatus();
    // The current model stays open; the sentence is also shown where a person looks.
    if (failureBox_)
        failureBox_->close();
    failureBox_ = new QMessageBox(QMessageBox::Warning, "Cannot open model", sentence,
                                  QMessageBox::Close, this);
    failureBox_->setAttribute(Qt::WA_DeleteOnClose);
    if (!imports.isEmpty() && !source.isEmpty()) {
        QPushButton* again = failureBox_->addButton(
            QString("Import %1 and Open Again").arg(imports.join(", ")), QMessageBox::AcceptRole);
        failureBox_->setDefaultButton(again);
        connect(again, &QPushButton::clicked, this,
                [this, source, imports] { openModel(source, {}, imports); });
    }
    failureBox_->open();
}

QMessageBox* MainWindow::failureBox() const {
    return failureBox_;
}

QStringList MainWindow::recentModels() const {
    return settings::recentModels();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls() && event->mimeData()->urls().value(0).isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    if (openDropped(event->mimeData()->urls()))
        event->acceptProposedAction();
}

bool MainWindow::openDropped(const QList<QUrl>& urls) {
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return false;
    openModel(urls.first().toLocalFile());
    return true;
}

void MainWindow::showModel(const LoadedModel& model) {
    // A layout of the last model's scopes is dropped; one of the graph drawn ahead of this very
    // model (opened or closed while its engine started) goes on, with its progress.
    const bool layoutGoesOn = model.sameAsDrawn && layingOut();
    if (!layoutGoesOn)
        layout_->cancel();
    if (!model.drawnAhead && !layoutGoesOn) // else the engine is still starting: the load goes on
        progress_->finish();
    executedPath_->setChecked(false);
    executedPath_->setEnabled(false);
    if (!model.sameAsDrawn)
        importedOperators_.clear(); // another model's trace
    // The engine's model, the same graph as the one drawn ahead of it: what is on screen (its
    // zoom, the selection) stays; stepping begins.
    if (!model.sameAsDrawn)
        showModelGraph();
    if (!model.layout.ok()) {
        banner_->say(QString::fromStdString(model.layout.error), Banner::State::Error);
    } else if (!model.inputError.isEmpty()) {
        // The inputs asked for could not be made (the session forgot them); the run uses the
        // guess if there is one.
        banner_->say(model.inputError +
                         (model.inputs.empty() ? QString() : " Using " + model.inputNote + "."),
                     Banner::State::Error);
    } else if (!model.note.isEmpty()) {
        banner_->say(model.note,
                     Banner::State::Note); // why this graph (a live model symbolic_trace refused)
    } else {
        // "input x: 1x4, guessed from fc1 …" as a sentence of its own.
        QString note = model.inputNote;
        if (!note.isEmpty())
            note[0] = note[0].toUpper();
        banner_->say(note, Banner::State::Note);
    }
    QStringList placeholders, defaults;
    for (const Node& n : model.graph.nodes)
        if (n.isInput()) {
            placeholders << QString::fromStdString(n.name);
            defaults << (n.args.empty() ? QString()
                                        : QString::fromStdString(formatArgument(n.args[0])));
        }
    inputBar_->setInputs(placeholders, model.inputs, model.inputNote, defaults);
    QString title = QFileInfo(model.source).fileName();
    QString ignored;
    if (const auto where =
            isRemoteSource(model.source) ? parseRemoteSource(model.source, ignored) : std::nullopt)
        title += " on " + where->shown(); // the machine it runs on, not this one
    setWindowTitle(model.live ? model.className + " — live in " + model.runtime + " — fxview"
                              : title + " — fxview");
    if (!model.drawnAhead) // "Opening …" stays while the engine starts
        statusBar()->clearMessage();
    updateStatus();
    emit modelShown();
}

// The scene, the node list, the text and the overview show `graph`: the model's, or a run's
// executed path. Breakpoints stay where they were set.
// `scopes` is the model's own graph's view: only then are breakpoints drawn (they are the model's
// nodes', not a module's namesakes) and the node list a tree of its scopes.
void MainWindow::showGraph(const Graph& graph, const GraphLayout& layout, const std::string& text,
                           std::shared_ptr<const ScopeView> scopes) {
    const LoadedModel& loaded = session_->model();
    const bool model = scopes != nullptr || &graph == &loaded.graph;
    scene_->show(graph, layout, scopes);
    showMarks(); // a new picture of the same model keeps the comparison's or the cost's colours
    inspector_->clear(); // its node may not be in this graph
    if (model)
        showBreakpoints();
    nodeList_->fill(model ? loaded.graph : graph, model ? &loaded.scopes : nullptr,
                    loaded.openScopes);
    graphText_->setGraphText(text);
    QPointF start = scene_->sceneRect().topLeft();
    if (!graph.nodes.empty())
        if (NodeItem* first = scene_->nodeItem(QString::fromStdString(graph.nodes.front().name)))
            start = first->sceneBoundingRect().center();
    view_->fitGraph(start);
    overview_->refit();
}

bool MainWindow::cancelOpen() {
    const QString cancelled = session_->cancelOpen();
    if (cancelled.isEmpty())
        return false;
    const QString& open = session_->source();
    progress_->finish();
    statusBar()->showMessage("Opening " + cancelled + " cancelled" +
                                 (open.isEmpty() ? QString() : "; " + open + " stays open"),
                             6000);
    updateStatus();
    return true;
}

void MainWindow::describeNode(const QString& name) {
    if (const Node* n = session_->shownGraph().find(name.toStdString()))
        inspector_->showNode(*n, session_->recordOf(n->name), scene_->theme().current,
                             session_->detailNote(name));
}

void MainWindow::showInspector(const QString& name) {
    const Node* n = session_->shownGraph().find(name.toStdString());
    if (!n)
        return;
    session_->wantDetail(name); // before it is drawn: a note may say why there is none
    describeNode(name);
    // The numbers travel only while someone can see them (a big tensor's are not free); a scope
    // box and the executed path's copies have none of their own.
    if (values_->isVisible() && n->collapsedNodes == 0 && !session_->executedShown())
        values_->showNode(session_->shownModule(), *n, session_->recordOf(n->name));
}

// The banner in the theme's colours: a tint of its "current" blue, or of its "failed" red.
void MainWindow::styleBanner() {
    const Theme& t = scene_->theme();
    banner_->setColors(tint(t.current, t.background, 0.2), tint(t.failed, t.background, 0.2),
                       t.text);
}

// The graph, the banner and the text's marks follow the system's light or dark palette, also
// when it changes while the app runs.
void MainWindow::followSystemPalette() {
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    if (dark != (scene_->theme().name == "dark")) {
        scene_->setTheme(dark ? Theme::dark() : Theme::light());
        styleBanner();
    }
}

void MainWindow::changeEvent(QEvent* event) {
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        followSystemPalette();
}

QString MainWindow::bannerText() const {
    return banner_->shownText();
}

void MainWindow::updateStatus() {
    for (QAction* a : runActions_) // nothing to run without a model, or once it went
        a->setEnabled(session_->canRun());
    const LoadedModel& model = session_->model();
    if (detach_)
        detach_->setEnabled(model.live && !session_->liveEnded());
    // With scopes closed: the model's nodes, and how many boxes and nodes the picture draws.
    const ScopeView* scopes = scene_->scopeView();
    QString count =
        scopes && scopes->collapsed()
            ? QString("%1 nodes (%2 drawn)").arg(model.graph.nodeCount()).arg(scene_->nodeCount())
            : QString("%1 nodes").arg(scene_->nodeCount());
    const QString& source = session_->source();
    status_->setText(
        QString("%1 · %2 · %3")
            .arg(source.isEmpty() ? "no model" : source, count, session_->stateText()));
}

const QString& MainWindow::modelSource() const {
    return session_->source();
}

const LoadedModel& MainWindow::model() const {
    return session_->model();
}

const QString& MainWindow::currentNode() const {
    return session_->current();
}

const RunSnapshot& MainWindow::run() const {
    return session_->run();
}

bool MainWindow::executedPathShown() const {
    return session_->executedShown();
}

QString MainWindow::statusText() const {
    return status_->text();
}

} // namespace fxview
