#include "session/DebugSession.h"

#include <QTimer>
#include <algorithm>
#include <functional>

#include "session/ComparisonJson.h"
#include "session/SessionSettings.h"

namespace fxview {

namespace {

// The status bar's word on the last run's output against the model's own forward, or, for a
// graph of a compile session (python:compile:N), against what the compiled code returned.
QString outputCheckNote(const OutputCheck& check, bool compiled) {
    switch (check.verdict) {
    case OutputCheck::Verdict::Equal:
        // A Python engine names its reference ("outputs equal to ep.module()").
        if (!check.message.empty())
            return ", " + QString::fromStdString(check.message);
        return compiled ? ", output equal to the compiled code's" : ", output equal to forward";
    case OutputCheck::Verdict::Differs:
        return compiled ? ", OUTPUT DIFFERS FROM THE COMPILED CODE'S"
                        : ", OUTPUT DIFFERS FROM FORWARD";
    case OutputCheck::Verdict::Nondeterministic:
        return ", output not checked (random op)";
    case OutputCheck::Verdict::ForwardFailed:
        return ", output not checked (forward failed)";
    case OutputCheck::Verdict::NoReference:
        return ", output not checked (.pt2: no forward to run)";
    case OutputCheck::Verdict::NotChecked:
        break;
    }
    return {};
}

} // namespace

DebugSession::DebugSession(QObject* parent)
    : QObject(parent), engine_(new EngineClient(this)), playTimer_(new QTimer(this)) {
    playTimer_->setInterval(400);
    connect(playTimer_, &QTimer::timeout, this, &DebugSession::playTick);
    connect(engine_, &EngineClient::loaded, this, [this](LoadedModel model) {
        // The same graph as the one drawn ahead: it stays drawn as it is now, with the scopes
        // the person opened or closed meanwhile.
        if (model.sameAsDrawn && model_.drawnAhead) {
            model.openScopes = model_.openScopes;
            model.view = model_.view;
            model.layout = model_.layout;
        }
        takeModel(model);
        emit modelLoaded(model_);
    });
    connect(engine_, &EngineClient::drawnAhead, this, [this](const LoadedModel& model) {
        takeModel(model);
        emit modelLoaded(model_);
    });
    connect(engine_, &EngineClient::runUpdated, this, [this](const RunSnapshot& snapshot) {
        // A profile's times belong to its last run, the update that follows its answer.
        if (!profileState_) {
            profileTimes_.clear();
            profileRuns_ = 0;
            profileAnswer_.reset();
        }
        profileState_ = false;
        takeRun(snapshot);
        emit runUpdated(run_);
    });
    connect(engine_, &EngineClient::executedPathReady, this, [this](const ExecutedView& view) {
        executed_ = view;
        emit executedPathReady();
    });
    connect(engine_, &EngineClient::inputsApplied, this, &DebugSession::takeInputs);
    connect(engine_, &EngineClient::loadFailed, this, [this] {
        pendingSource_.clear();
        dropDrawnAhead();
    });
    connect(engine_, &EngineClient::liveEnded, this, [this] {
        setPlaying(false);
        liveEnded_ = true;
    });
    connect(engine_, &EngineClient::engineFailed, this, [this] { setPlaying(false); });
    connect(engine_, &EngineClient::valuesReady, this, &DebugSession::valuesReady);
    connect(engine_, &EngineClient::detailReady, this,
            [this](std::shared_ptr<const ValueSlice> detail) { takeDetail(*detail); });
    connect(engine_, &EngineClient::comparisonReady, this,
            [this](const QByteArray& json, const QString& error) {
                if (!error.isEmpty())
                    return emit comparisonFailed(error);
                auto report = std::make_shared<ComparisonReport>();
                Metric metric = Metric::RelL2;
                double threshold = defaultThreshold(metric);
                if (QString bad = readComparison(json, *report, metric, threshold); !bad.isEmpty())
                    return emit comparisonFailed(bad);
                emit comparisonReady(report, metric, threshold);
            });
    connect(engine_, &EngineClient::profiled, this,
            [this](std::shared_ptr<const ProfileAnswer> answer) {
                profileTimes_ = answer->times;
                profileRuns_ = static_cast<int>(answer->runs);
                profileAnswer_ = answer;
                profileState_ = true;
                emit profiled(QString::fromStdString(answer->error));
            });
    connect(engine_, &EngineClient::valueSaved, this,
            [this](const QString& destination, const QString& error) {
                if (error.isEmpty())
                    emit message("Saved the value to " + destination, 6000);
                else
                    emit valueNotSaved(error);
            });
}

QString DebugSession::topLevelName(const std::string& name) {
    return QString::fromStdString(name.substr(0, name.find('.')));
}

// The first visible top-level node from the one that holds `name`.
QString DebugSession::guardedNode(const Graph& graph, const std::string& name) {
    std::function<bool(const Node&)> holds = [&](const Node& n) {
        if (n.name == name)
            return true;
        for (const Block& b : n.blocks)
            for (const Node& inner : b.nodes)
                if (holds(inner))
                    return true;
        return false;
    };
    for (std::size_t i = 0; i < graph.nodes.size(); ++i)
        if (holds(graph.nodes[i]))
            for (std::size_t j = i; j < graph.nodes.size(); ++j)
                if (!graph.nodes[j].hidden)
                    return QString::fromStdString(graph.nodes[j].name);
    return {};
}

const Graph& DebugSession::shownGraph() const {
    return executedShown_                           ? executed_.graph
           : !shownModule_.isEmpty() && run_.inside ? run_.inside->graph
           : model_.view                            ? model_.view->graph
                                                    : model_.graph;
}

const NodeRecord* DebugSession::recordOf(const std::string& node) const {
    const auto& records = executedShown_                           ? executed_.records
                          : !shownModule_.isEmpty() && run_.inside ? run_.inside->records
                                                                   : run_.records;
    auto it = records.find(node);
    return it == records.end() ? nullptr : &it->second;
}

// A member, not a weight folded into the box (a .pt2 reads its weights first of all).
const ScopeBox* DebugSession::boxOfNext() const {
    if (!model_.view || !modelShown() || run_.finished || run_.failed)
        return nullptr;
    return model_.view->boxRunning(topLevelName(run_.next).toStdString());
}

QString DebugSession::stateText() const {
    return engine_->busy()           ? "working…"
           : run_.failed             ? "failed at " + current_
           : run_.finished           ? "finished" + outputCheckNote(run_.outputCheck,
                                                                    source_.startsWith("python:compile:"))
           : current_.isEmpty()      ? "ready"
           : !shownModule_.isEmpty() ? "inside " + shownModule_ + ", stopped after " + current_
                                     : "stopped after " + current_;
}

QStringList DebugSession::nodesMatching(const QString& text) const {
    // The model's every node, those inside closed scopes too (selecting one opens its scopes);
    // the executed path's or the module's when one of those is shown.
    const Graph& graph = modelShown() ? model_.graph : shownGraph();
    QStringList names;
    graph.forEachNode([&](const Node& n, int) {
        bool match = QString::fromStdString(n.name).contains(text, Qt::CaseInsensitive) ||
                     QString(opName(n.op)).contains(text, Qt::CaseInsensitive) ||
                     QString::fromStdString(n.target).contains(text, Qt::CaseInsensitive);
        if (!n.hidden && match)
            names << QString::fromStdString(n.name);
    });
    return names;
}

int DebugSession::open(const QString& source, const std::vector<InputSpec>& inputs, quint64& seed,
                       const QStringList& moreImports) {
    pendingSource_ = source;
    // Without inputs given, the ones last applied to this model are used again.
    std::vector<InputSpec> chosen = inputs;
    if (chosen.empty())
        for (const QString& text : settings::inputsFor(source)) {
            InputSpec spec;
            std::string error;
            if (parseInputSpec(text.toStdString(), spec, error))
                chosen.push_back(spec);
        }
    const bool remembered = inputs.empty() && !chosen.empty();
    seed = remembered ? settings::seedFor(source) : 0;
    return engine_->load(source, chosen, seed, remembered ? "applied last time" : "as given",
                         settings::scopesFor(source), settings::engineFor(source), moreImports);
}

QString DebugSession::cancelOpen() {
    if (!engine_->cancelLoad())
        return {};
    QString cancelled = pendingSource_;
    pendingSource_.clear();
    dropDrawnAhead();
    return cancelled;
}

void DebugSession::dropDrawnAhead() {
    if (!model_.drawnAhead)
        return;
    model_ = LoadedModel();
    source_.clear();
    emit modelDropped();
    emit shownGraphChanged();
}

void DebugSession::takeModel(const LoadedModel& model) {
    setPlaying(false); // Play belonged to the model that was open
    model_ = model;
    source_ = model.source;
    liveEnded_ = false;
    // A live model cannot be opened again from File ▸ Open Recent; one drawn ahead of its
    // engine is not open yet.
    if (!model.live && !model.drawnAhead) {
        settings::addRecentModel(source_);
        settings::rememberEngine(source_, model.engine);
    }
    // Inputs that could not be made are forgotten, so that they cannot fail again at the next
    // start; the run uses the guess if there is one.
    if (model.layout.ok() && !model.inputError.isEmpty())
        settings::forgetInputs(source_);
    if (!model.drawnAhead) // its load goes on: Cancel still cancels it
        pendingSource_.clear();
    current_.clear();
    breakpoints_.clear();
    conditions_.clear();
    run_ = RunSnapshot();
    executed_ = ExecutedView();
    executedShown_ = false;
    shownModule_.clear();
    shownFrame_.clear();
    emit runChanged();
    emit currentNodeChanged(current_);
    emit shownGraphChanged();
}

void DebugSession::takeRun(const RunSnapshot& snapshot) {
    executed_ = ExecutedView(); // the run moved on: a path shown is no longer this run's
    run_ = snapshot;
    if (!snapshot.recordsAreChanges)
        detailsAsked_.clear();
    const QString current =
        run_.inside ? QString::fromStdString(run_.inside->last) : topLevelName(snapshot.last);
    const bool moved = current != current_;
    current_ = current;
    // A condition or the NaN watch stopped the run after a node: Play stops there too.
    if (!run_.stopNote.empty() && playing())
        setPlaying(false);
    emit runChanged();
    if (moved)
        emit currentNodeChanged(current_);
}

namespace {

// Whether a summary (or an item of a tuple's) has statistics without std and the histogram.
bool lacksDetail(const ValueSummary& v) {
    return (v.hasStats && !v.hasDetail) || std::any_of(v.items.begin(), v.items.end(), lacksDetail);
}

QString detailKey(const QString& frame, const QString& node) {
    return frame + "/" + node;
}

} // namespace

void DebugSession::wantDetail(const QString& node) {
    const NodeRecord* r = recordOf(node.toStdString());
    // An executed path's copies are described whole by the engine that sends them.
    if (executedShown_ || !r || r->state != NodeState::Done || !lacksDetail(r->value) ||
        detailsAsked_.contains(detailKey(shownModule_, node)))
        return;
    detailsAsked_.insert(detailKey(shownModule_, node), {});
    ValueSliceRequest request;
    request.frame = shownModule_.toStdString();
    request.node = node.toStdString();
    engine_->requestDetail(request);
}

QString DebugSession::detailNote(const QString& node) const {
    if (executedShown_)
        return "Its std and histogram are made on the run's own graph: turn View ▸ Executed Path "
               "Only off and select it there.";
    return detailsAsked_.value(detailKey(shownModule_, node));
}

void DebugSession::takeDetail(const ValueSlice& detail) {
    const QString frame = QString::fromStdString(detail.request.frame);
    const QString node = QString::fromStdString(detail.request.node);
    if (!detail.error.empty()) {
        detailsAsked_.insert(detailKey(frame, node), QString::fromStdString(detail.error));
    } else if (frame.isEmpty()) {
        if (auto it = run_.records.find(detail.request.node); it != run_.records.end())
            it->second.value = detail.summary;
    } else if (run_.inside && run_.inside->node == detail.request.frame &&
               run_.inside->records.count(detail.request.node)) {
        auto inside = std::make_shared<ModuleFrame>(*run_.inside);
        inside->records[detail.request.node].value = detail.summary;
        run_.inside = std::move(inside);
    }
    emit detailChanged(node);
}

void DebugSession::setExecutedShown(bool on) {
    executedShown_ = on;
    shownFrame_.clear();
    shownModule_.clear(); // the executed path takes the scene; off, the run's own view returns
    emit shownGraphChanged();
}

void DebugSession::select(const QString& node) {
    if (node == selected_)
        return;
    selected_ = node;
    emit selectionChanged(selected_);
}

bool DebugSession::followModuleFrame() {
    const QString inside = run_.inside ? QString::fromStdString(run_.inside->node) : QString();
    // The same node's frame shows another graph, or the same one again for another iteration,
    // when a higher-order op goes on to its next block: its values are new ones.
    const std::string frame =
        run_.inside ? run_.inside->moduleType + '\n' + run_.inside->graphText : std::string();
    if (inside == shownModule_ && frame == shownFrame_)
        return false;
    if (inside == shownModule_)
        detailsAsked_.clear();
    shownModule_ = inside;
    shownFrame_ = frame;
    emit shownGraphChanged();
    return true;
}

void DebugSession::setScopes(const std::set<std::string>& open,
                             std::shared_ptr<const ScopeView> view, GraphLayout layout) {
    model_.openScopes = open;
    model_.view = std::move(view);
    model_.layout = std::move(layout);
    settings::rememberScopes(source_, open);
}

QString DebugSession::applyInputs(const QStringList& texts, quint64 seed) {
    std::vector<InputSpec> specs;
    for (const QString& text : texts) {
        InputSpec spec;
        std::string error;
        if (!parseInputSpec(text.trimmed().toStdString(), spec, error))
            return QString::fromStdString(error);
        specs.push_back(spec);
    }
    engine_->setInputs(specs, seed);
    return {};
}

void DebugSession::takeInputs(const std::vector<InputSpec>& specs, quint64 seed) {
    QStringList texts;
    for (const InputSpec& spec : specs)
        texts << QString::fromStdString(spec.text());
    // A file's inputs are its next opening's; a live model opens with the arguments passed.
    if (!model_.live)
        settings::rememberInputs(source_, texts, seed);
    emit inputsApplied("input " + texts.join(", ") + QString(", seed %1, applied").arg(seed), texts,
                       seed);
}

void DebugSession::runCommand(RunCommand command) {
    if (model_.drawnAhead)
        return emit message("The engine is still starting: the run can begin once it is ready",
                            4000);
    if (source_.isEmpty())
        return;
    if (run_.failed && command != RunCommand::Reset) {
        emit message("The run failed at " + current_ + "; Reset (Ctrl+Shift+F5) to run again",
                     6000);
        return;
    }
    if (const ScopeBox* box = boxOfNext()) {
        const QString scope = QString::fromStdString(box->scope);
        if (command == RunCommand::Step) {
            emit message("Stepping over " + scope, 3000);
            engine_->command(RunCommand::RunTo, QString::fromStdString(box->last));
            return;
        }
        // Step Into: its first node drawn, then stepped into as it would be.
        if (command == RunCommand::StepInto)
            emit revealRequested(topLevelName(run_.next));
    }
    engine_->command(command);
}

void DebugSession::runTo(const QString& selected) {
    QString node = selected;
    if (node.isEmpty() || source_.isEmpty() || model_.drawnAhead)
        return;
    // A box: until its scope has run whole.
    const ScopeView* scopes = modelShown() ? model_.view.get() : nullptr;
    if (const ScopeBox* box = scopes ? scopes->box(node.toStdString()) : nullptr)
        node = QString::fromStdString(box->last);
    if (const NodeRecord* r = recordOf(node.toStdString()); r && r->state == NodeState::Done) {
        emit message(node + " has already run; Reset (Ctrl+Shift+F5) to run to it again", 6000);
        return;
    }
    // Inside a stepped-into module its nodes are named from the model's top: "fc1.linear".
    engine_->command(RunCommand::RunTo, shownModule_.isEmpty() ? node : shownModule_ + "." + node);
}

bool DebugSession::setBreakpoint(const QString& node, bool on, BreakCondition condition) {
    // Only nodes of the model's own graph can stop a run (not an executed path's copies), once
    // its engine has it.
    if (node.isEmpty() || model_.drawnAhead || !model_.graph.find(node.toStdString()))
        return false;
    if (on)
        breakpoints_.insert(node);
    else
        breakpoints_.remove(node);
    if (on && condition.kind != BreakCondition::Kind::Always)
        conditions_.insert(node, condition);
    else
        conditions_.remove(node);
    engine_->setBreakpoint(node, on, condition);
    return true;
}

void DebugSession::setBreakOnNonFinite(bool on) {
    breakOnNonFinite_ = on;
    engine_->setBreakOnNonFinite(on);
}

void DebugSession::requestValues(const ValueSliceRequest& request) {
    if (canRun())
        engine_->requestValues(request);
}

void DebugSession::compare(const CompareRequest& request) {
    if (canRun())
        engine_->compare(request);
    else
        emit comparisonFailed("Compare Runs needs a model open (and, for a live one, its Python "
                              "session still attached).");
}

void DebugSession::profile(int runs, bool operators) {
    if (!canRun())
        return emit profiled("Profile needs a model open (and, for a live one, its Python "
                             "session still attached).");
    setPlaying(false);
    engine_->profile(runs, operators);
}

const OperatorsByNode& DebugSession::profileOperators() const {
    static const OperatorsByNode none;
    return profileAnswer_ ? profileAnswer_->operators : none;
}

const std::string& DebugSession::profileTrace() const {
    static const std::string none;
    return profileAnswer_ ? profileAnswer_->trace : none;
}

QString DebugSession::profileOperatorsNote() const {
    return profileAnswer_ ? QString::fromStdString(profileAnswer_->operatorsNote) : QString();
}

void DebugSession::saveValue(const SaveValueRequest& request, const QString& path) {
    if (canRun())
        engine_->saveValue(request, path);
}

void DebugSession::setPlaying(bool on) {
    if (on && (run_.finished || run_.failed)) // Play on an ended run plays it again from the start
        engine_->command(RunCommand::Reset);
    // Pause while a node is still running: it stops there, or its engine is ended and restarted.
    if (!on && playing() && engine_->busy())
        engine_->interrupt();
    // Play leaving a breakpoint's node steps over it; the next breakpoint stops it.
    playFrom_ =
        on ? topLevelName(run_.finished || run_.failed ? std::string() : run_.next) : QString();
    if (on)
        playTimer_->start();
    else
        playTimer_->stop();
    emit playingChanged(on);
}

bool DebugSession::playing() const {
    return playTimer_->isActive();
}

void DebugSession::setPlayInterval(int milliseconds) {
    playTimer_->setInterval(milliseconds);
}

void DebugSession::playTick() {
    if (engine_->busy())
        return; // the node still computes: the session waits, it does not queue steps
    if (run_.finished || run_.failed || source_.isEmpty()) {
        setPlaying(false);
        return;
    }
    // A breakpoint stops Play as it stops Continue: before its node runs.
    const QString next = topLevelName(run_.next);
    if (next != playFrom_)
        playFrom_.clear();
    if (breakpoints_.contains(next) && !conditions_.contains(next) && next != playFrom_) {
        setPlaying(false);
        emit message("Play stopped at the breakpoint before " + next, 5000);
        return;
    }
    engine_->command(RunCommand::Step);
}

} // namespace fxview
