#include "engineclient/EngineClient.h"

#include <QMetaObject>
#include <QTimer>
#include <algorithm>
#include <mutex>
#include <utility>

#include "engineclient/EngineWorker.h"
#include "engineclient/RemoteEngine.h"
#include "scene/GraphScene.h"

namespace fxview {

namespace {

EngineSettings& sharedSettings() {
    static EngineSettings settings;
    return settings;
}

} // namespace

void EngineClient::setSettings(const EngineSettings& settings) {
    sharedSettings() = settings;
}

void EngineClient::addOpLibrary(const std::string& path) {
    std::vector<std::string>& libraries = sharedSettings().opLibraries;
    if (std::find(libraries.begin(), libraries.end(), path) == libraries.end())
        libraries.push_back(path);
}

EngineClient::EngineClient(QObject* parent)
    : QObject(parent), worker_(new EngineWorker(this, sharedSettings())) {
    qRegisterMetaType<fxview::LoadedModel>();
    qRegisterMetaType<fxview::RunSnapshot>();
    qRegisterMetaType<fxview::ExecutedView>();
    qRegisterMetaType<std::string>();
    qRegisterMetaType<std::shared_ptr<const fxview::ValueSlice>>();
    qRegisterMetaType<std::shared_ptr<const fxview::ProfileAnswer>>();
    layoutFont_ = GraphScene::defaultFont();
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    thread_.setObjectName("fxview engine");
    thread_.start();
    // The spare engine loads LibTorch while the window opens.
    QMetaObject::invokeMethod(
        worker_, [w = worker_] { w->startSpare(); }, Qt::QueuedConnection);
}

EngineClient::~EngineClient() {
    // Closing the window ends every engine at once, however busy.
    worker_->killLoading();
    worker_->killCurrent();
    QMetaObject::invokeMethod(
        worker_, [w = worker_] { w->shutdown(); }, Qt::BlockingQueuedConnection);
    thread_.quit();
    thread_.wait();
}

void EngineClient::post(std::function<void(EngineWorker&)> job) {
    ++posted_;
    if (++pending_ == 1)
        emit busyChanged(true);
    QMetaObject::invokeMethod(
        worker_, [this, job = std::move(job)] { job(*worker_); }, Qt::QueuedConnection);
}

void EngineClient::finishedLater(int jobs) {
    if (jobs <= 0)
        return;
    QMetaObject::invokeMethod(
        this,
        [this, jobs] {
            answered_ += jobs;
            pending_ = std::max(0, pending_ - jobs);
            if (pending_ == 0)
                emit busyChanged(false);
        },
        Qt::QueuedConnection);
}

int EngineClient::load(const QString& source, const std::vector<InputSpec>& inputs, quint64 seed,
                       const QString& origin, std::optional<std::set<std::string>> openScopes,
                       const std::optional<EngineChoice>& remembered,
                       const QStringList& moreImports) {
    cancelLoad();
    loading_ = std::make_shared<LoadTicket>(++loads_);
    const EngineSettings& given = sharedSettings();
    EngineChoice engine = remembered && !given.engineGiven
                              ? *remembered
                              : EngineChoice{given.engineCommand, given.imports, given.device};
    // A model on another machine runs on an engine there: what --engine or --python named (a
    // command on that machine), else the one it was last opened with, else the host's Python
    // with torch. The Python this window found on its own PATH means nothing there.
    QString machine;
    QString error;
    if (std::optional<RemoteLocation> where = parseRemoteSource(source, error);
        isRemoteSource(source)) {
        machine = where ? where->machine() : source;
        if (given.commandGiven)
            engine.command = given.engineCommand;
        else if (!remembered || given.engineGiven)
            engine.command = remoteDefaultEngine(where ? where->path : QString());
    } else if (source.startsWith("python:") && !given.attachRemote.isEmpty()) {
        machine = given.remote; // the live model served on another machine (fxview.serve)
        engine.command = given.engineCommand; // --python's relays to it; else the host's python3
    }
    for (const QString& module : moreImports)
        if (std::find(engine.imports.begin(), engine.imports.end(), module.toStdString()) ==
            engine.imports.end())
            engine.imports.push_back(module.toStdString());
    OpenRequest request{source.toStdString(), inputs,         seed,         origin.toStdString(),
                        given.opLibraries,    engine.imports, engine.device};
    post([request, font = layoutFont_, ticket = loading_, openScopes, command = engine.command,
          machine](EngineWorker& w) {
        w.load(request, font, ticket, openScopes, command, machine);
    });
    return loading_->id;
}

bool EngineClient::cancelLoad() {
    bool cancelled = loading_ && loading_->cancel();
    loading_.reset();
    if (cancelled)
        worker_->killLoading(); // a load stuck in LibTorch ends now, not at its next stage
    return cancelled;
}

void EngineClient::requestExecutedPath() {
    post([font = layoutFont_](EngineWorker& w) { w.executedPath(font); });
}

void EngineClient::setWeightsAsNodes(bool on) {
    // Not a job (nothing is answered): queued before whatever is posted after it.
    QMetaObject::invokeMethod(
        worker_, [w = worker_, on] { w->setWeightsAsNodes(on); }, Qt::QueuedConnection);
}

void EngineClient::setInputs(const std::vector<InputSpec>& inputs, quint64 seed) {
    post([request = InputsRequest{inputs, seed}](EngineWorker& w) { w.setInputs(request); });
}

void EngineClient::command(RunCommand command, const QString& node) {
    if (command == RunCommand::Reset && busy())
        return stop();
    post([request = CommandRequest{command, node.toStdString()}](EngineWorker& w) {
        w.command(request);
    });
}

void EngineClient::setBreakpoint(const QString& node, bool on, BreakCondition condition) {
    post([request = BreakpointRequest{node.toStdString(), on, condition}](EngineWorker& w) {
        w.setBreakpoint(request);
    });
}

void EngineClient::setBreakOnNonFinite(bool on) {
    post([request = WatchRequest{on}](EngineWorker& w) { w.setWatch(request); });
}

void EngineClient::requestValues(const ValueSliceRequest& request) {
    post([request](EngineWorker& w) { w.requestValues(request); });
}

void EngineClient::requestDetail(const ValueSliceRequest& request) {
    post([request](EngineWorker& w) { w.requestDetail(request); });
}

void EngineClient::saveValue(const SaveValueRequest& request, const QString& destination) {
    post([request, destination](EngineWorker& w) { w.saveValue(request, destination); });
}

void EngineClient::compare(const CompareRequest& request) {
    post([request](EngineWorker& w) { w.compare(request); });
}

void EngineClient::profile(int runs, bool operators) {
    post([request = ProfileRequest{runs, operators}](EngineWorker& w) { w.profile(request); });
}

void EngineClient::stop() {
    if (worker_->currentAttached()) {
        // A live model cannot be killed and reloaded: its run stops at its next node, then
        // resets; a node that never returns is said to the person (interrupt()).
        interrupt();
        post([](EngineWorker& w) { w.command(CommandRequest{RunCommand::Reset, {}}); });
        return;
    }
    worker_->killCurrent();
    post([](EngineWorker& w) { w.reload(); });
}

std::pair<qint64, qint64> EngineClient::wireBytes() const {
    return worker_->wireBytes();
}

qint64 EngineClient::enginePid() const {
    return worker_->currentPid();
}

void EngineClient::interrupt() {
    if (!busy())
        return;
    worker_->interruptCurrent();
    // Only what was asked before Pause is ended: a Run or a load asked since is left alone.
    QTimer::singleShot(500, this, [this, askedBefore = posted_] {
        if (answered_ >= askedBefore)
            return;
        if (!worker_->currentAttached())
            return stop();
        std::string node = worker_->runningNode();
        emit liveWaiting(
            QString("%1 has not returned: it runs in your own Python process, which fxview "
                    "cannot stop inside a node. Wait for it, or Run ▸ Detach from Python (the "
                    "window keeps this picture).")
                .arg(node.empty() ? QString("The model")
                                  : QString("Node `%1`").arg(QString::fromStdString(node))));
    });
}

bool EngineClient::live() const {
    return worker_->currentAttached();
}

void EngineClient::detach() {
    if (worker_->currentAttached())
        worker_->killCurrent();
}

} // namespace fxview
