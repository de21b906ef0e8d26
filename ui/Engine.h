#pragma once
// The UI's one asynchronous interface to the engine. Requests go out as plain data (load a
// model, set inputs, step, run to a node, reset, breakpoints); results come back as signals
// carrying plain data (the traced graph, a snapshot of the run, one sentence on failure). The
// engine works on its own thread, so a slow node never freezes the window, and could move to a
// separate process later without the UI changing.

#include <QObject>
#include <QString>
#include <QThread>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "Graph.h"
#include "InputSpec.h"
#include "RunRecord.h"

namespace fxview {

struct LoadedModel {
    QString source;
    QString className;
    Graph graph;
    std::vector<InputSpec> inputs; // what the run uses: given, or guessed
    QString inputNote;             // where the inputs came from
    std::string graphText;         // torch.fx's print(graph)
    std::string json;              // for JSON export before a run
    std::string dot;               // for DOT export
};

struct RunSnapshot {
    std::unordered_map<std::string, NodeRecord> records;
    std::vector<std::string> order;
    std::string last, next;
    bool finished = false;
    bool failed = false;
    std::string failure;
    int depth = 0;
    std::string json; // the graph with meta, for JSON export after a run
};

enum class RunCommand { Step, StepInto, StepOut, RunTo, RunToEnd, Reset };

class EngineWorker;

class Engine : public QObject {
    Q_OBJECT
public:
    explicit Engine(QObject* parent = nullptr);
    ~Engine() override;

    void load(const QString& source, const std::vector<InputSpec>& inputs = {}, quint64 seed = 0);
    void setInputs(const std::vector<InputSpec>& inputs, quint64 seed);
    void command(RunCommand command, const QString& node = {});
    void setBreakpoint(const QString& node, bool on);
    bool busy() const { return pending_ > 0; }

signals:
    void loaded(const fxview::LoadedModel& model);
    void loadFailed(const QString& sentence);
    void inputsRejected(const QString& sentence);
    void runUpdated(const fxview::RunSnapshot& snapshot);
    void busyChanged(bool busy);

private:
    void post(std::function<void(EngineWorker&)> job);
    QThread thread_;
    EngineWorker* worker_;
    int pending_ = 0;
};

} // namespace fxview

Q_DECLARE_METATYPE(fxview::LoadedModel)
Q_DECLARE_METATYPE(fxview::RunSnapshot)
