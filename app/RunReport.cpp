#include "RunReport.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QObject>
#include <cstdio>

#include "engineclient/EngineClient.h"
#include "session/DebugSession.h"
#include "window/MainWindow.h"

namespace fxview {

namespace {

class RunReporter : public QObject {
public:
    explicit RunReporter(MainWindow& window) : window_(window) {
        connect(window.session(), &DebugSession::modelLoaded, this,
                [this](const LoadedModel& model) {
                    if (!model.drawnAhead && !started_)
                        start();
                });
        connect(window.engine(), &EngineClient::loadFailed, this, [](const QString& sentence) {
            std::fprintf(stderr, "%s\n", sentence.toUtf8().constData());
            QApplication::exit(1);
        });
    }

private:
    void start() {
        started_ = true;
        connect(window_.engine(), &EngineClient::runUpdated, this, [this](const RunSnapshot& run) {
            if ((!run.finished && !run.failed && run.last.empty()) || ms_ >= 0)
                return; // the model at its start (the open's reset), not the Continue
            ms_ = clock_.nsecsElapsed() / 1e6;
            verdict_ = run.outputCheck.verdict;
            failed_ = run.failed || !run.finished;
        });
        // The status line is the window's once it has shown the run.
        connect(&window_, &MainWindow::runShown, this, [this] {
            if (ms_ < 0 || reported_)
                return;
            reported_ = true;
            std::printf("run: %.0f ms, %s\n", ms_, window_.statusText().toUtf8().constData());
            std::fflush(stdout);
            const bool wrong = failed_ || verdict_ == OutputCheck::Verdict::Differs ||
                               verdict_ == OutputCheck::Verdict::ForwardFailed;
            QApplication::exit(wrong ? 1 : 0);
        });
        clock_.start();
        window_.engine()->command(RunCommand::RunToEnd);
    }

    MainWindow& window_;
    QElapsedTimer clock_;
    bool started_ = false, reported_ = false, failed_ = false;
    double ms_ = -1;
    OutputCheck::Verdict verdict_ = OutputCheck::Verdict::NotChecked;
};

} // namespace

void reportRun(MainWindow& window) {
    (new RunReporter(window))->setParent(&window);
}

} // namespace fxview
