#include "RunReport.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include "engineclient/EngineClient.h"
#include "session/DebugSession.h"
#include "window/MainWindow.h"

namespace fxview {

namespace {

class RunReporter : public QObject {
public:
    RunReporter(MainWindow& window, int steps) : window_(window), steps_(steps) {
        connect(window.session(), &DebugSession::modelLoaded, this,
                [this](const LoadedModel& model) {
                    if (!model.drawnAhead && !started_)
                        opened();
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
    // What crossed since the last call, as "wire: PHASE: N bytes from the engine, M to it".
    void printWire(const char* phase) {
        const auto [in, out] = window_.engine()->wireBytes();
        std::printf("wire: %s: %lld bytes from the engine, %lld to it\n", phase,
                    static_cast<long long>(in - in_), static_cast<long long>(out - out_));
        std::fflush(stdout);
        in_ = in;
        out_ = out;
    }

    void opened() {
        started_ = true;
        // The open's Done and the window's first requests (the Values dock's) go first.
        QTimer::singleShot(0, this, [this] { settled([this] { stepOrRun(); }); });
    }

    // `then`, once the engine is idle.
    void settled(std::function<void()> then) {
        if (!window_.engine()->busy())
            return then();
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection = connect(window_.engine(), &EngineClient::busyChanged, this,
                              [this, connection, then](bool busy) {
                                  if (busy)
                                      return;
                                  disconnect(*connection);
                                  QTimer::singleShot(0, this, [this, then] { settled(then); });
                              });
    }

    void stepOrRun() {
        if (!wired_) {
            wired_ = true;
            printWire("open");
        }
        if (static_cast<int>(stepTimes_.size()) < steps_) {
            clock_.start();
            auto connection = std::make_shared<QMetaObject::Connection>();
            *connection = connect(window_.engine(), &EngineClient::runUpdated, this,
                                  [this, connection](const RunSnapshot& run) {
                                      if (run.last.empty() && !run.failed)
                                          return;
                                      disconnect(*connection);
                                      stepTimes_.push_back(clock_.nsecsElapsed() / 1e6);
                                      settled([this] { stepOrRun(); });
                                  });
            window_.engine()->command(RunCommand::Step);
            return;
        }
        if (steps_ > 0 && !stepsReported_) {
            stepsReported_ = true;
            std::vector<double> t = stepTimes_;
            std::sort(t.begin(), t.end());
            std::printf("steps: %zu, median %.2f ms (min %.2f, max %.2f)\n", t.size(),
                        t[t.size() / 2], t.front(), t.back());
            printWire("steps");
            window_.engine()->command(RunCommand::Reset);
            return settled([this] { start(); });
        }
        start();
    }

    void start() {
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
            printWire("run");
            QApplication::exit(wrong_ ? 1 : 0);
        });
    }

    MainWindow& window_;
    const int steps_;
    QElapsedTimer clock_;
    bool started_ = false, reported_ = false, wrong_ = false, wired_ = false,
         stepsReported_ = false;
    double ms_ = -1;
    std::vector<double> stepTimes_;
    qint64 in_ = 0, out_ = 0; // wireBytes at the last printWire
};

} // namespace

void reportRun(MainWindow& window, int steps) {
    (new RunReporter(window, steps))->setParent(&window);
}

} // namespace fxview
