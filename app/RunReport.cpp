#include "RunReport.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
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
        // A model that does not open, or an engine that dies during the run: its sentence.
        auto fail = [](const QString& sentence) {
            std::fprintf(stderr, "%s\n", sentence.toUtf8().constData());
            QApplication::exit(1);
        };
        connect(window.engine(), &EngineClient::loadFailed, this, fail);
        connect(window.engine(), &EngineClient::engineFailed, this, fail);
    }

private:
    void start() {
        started_ = true;
        connect(window_.engine(), &EngineClient::runUpdated, this, [this](const RunSnapshot& run) {
            if ((!run.finished && !run.failed && run.last.empty()) || ms_ >= 0)
                return; // the model at its start (the open's reset), not the Continue
            ms_ = clock_.nsecsElapsed() / 1e6;
            wrong_ = run.failed || !run.finished ||
                     run.outputCheck.verdict == OutputCheck::Verdict::Differs ||
                     run.outputCheck.verdict == OutputCheck::Verdict::ForwardFailed;
            report();
        });
        // The status line is final once the engine has ended the request (its Done may come
        // after the run's state) and the window has taken both.
        connect(window_.engine(), &EngineClient::busyChanged, this, [this](bool busy) {
            if (!busy && ms_ >= 0)
                report();
        });
        clock_.start();
        window_.engine()->command(RunCommand::RunToEnd);
    }

    // Once the engine is idle and the window has taken what it sent; a request the window makes
    // after the run (the Values dock's) is waited for too: busyChanged(false) comes again.
    void report() {
        if (reported_ || window_.engine()->busy())
            return;
        QTimer::singleShot(0, this, [this] {
            if (reported_ || window_.engine()->busy())
                return;
            reported_ = true;
            std::printf("run: %.0f ms, %s\n", ms_, window_.statusText().toUtf8().constData());
            std::fflush(stdout);
            QApplication::exit(wrong_ ? 1 : 0);
        });
    }

    MainWindow& window_;
    QElapsedTimer clock_;
    bool started_ = false, reported_ = false, wrong_ = false;
    double ms_ = -1;
};

} // namespace

void reportRun(MainWindow& window) {
    (new RunReporter(window))->setParent(&window);
}

} // namespace fxview
