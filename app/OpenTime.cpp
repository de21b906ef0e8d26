#include "OpenTime.h"

#include <QApplication>
#include <QFile>
#include <QGraphicsView>
#include <QTimer>
#include <cstdio>
#include <unistd.h>

#include "engineclient/EngineClient.h"
#include "session/DebugSession.h"
#include "window/MainWindow.h"

namespace fxview {

namespace {

// Milliseconds since this process started: /proc/self/stat's start time against /proc/uptime.
double msSinceProcessStart() {
    QFile stat("/proc/self/stat"), uptime("/proc/uptime");
    if (!stat.open(QIODevice::ReadOnly) || !uptime.open(QIODevice::ReadOnly))
        return -1;
    QByteArray fields = stat.readAll();
    fields = fields.mid(fields.lastIndexOf(')') + 2);           // the command name may hold spaces
    double startTicks = fields.split(' ').value(19).toDouble(); // field 22 of the whole line
    double now = uptime.readAll().split(' ').value(0).toDouble();
    return (now - startTicks / static_cast<double>(sysconf(_SC_CLK_TCK))) * 1000.0;
}

class FirstPaint : public QObject {
public:
    FirstPaint(MainWindow& window, bool thenStep) : window_(window), thenStep_(thenStep) {}

    bool eventFilter(QObject* watched, QEvent* event) override {
        if (shownAt_ >= 0 && event->type() == QEvent::Paint) {
            // Report once the paint has been delivered, not before it is handled.
            QTimer::singleShot(0, qApp, [this] { report(); });
            watched->removeEventFilter(this);
        }
        return false;
    }

    void modelShown() {
        shownAt_ = msSinceProcessStart();
        QWidget* viewport = window_.findChild<QGraphicsView*>()->viewport();
        viewport->installEventFilter(this);
        viewport->update();
    }

private:
    void report() {
        if (reported_)
            return;
        reported_ = true;
        std::printf("open time: %.0f ms (model shown after %.0f ms)\n", msSinceProcessStart(),
                    shownAt_);
        std::fflush(stdout);
        if (!thenStep_) {
            QApplication::exit(0);
            return;
        }
        // A .pt2 drawn ahead of its engine steps once the engine's model has come.
        if (window_.session()->model().drawnAhead) {
            QObject::connect(window_.session(), &DebugSession::modelLoaded, this,
                             [this](const LoadedModel& model) {
                                 if (!model.drawnAhead && !stepping_)
                                     step();
                             });
            return;
        }
        step();
    }

    void step() {
        stepping_ = true;
        QObject::connect(window_.engine(), &EngineClient::runUpdated, this,
                         [](const RunSnapshot& run) {
                             if (run.failed)
                                 std::fprintf(stderr, "%s\n", run.failure.c_str());
                             else if (run.last.empty())
                                 return; // a reset, not the step
                             else
                                 std::printf("first step: %.0f ms (%s)\n", msSinceProcessStart(),
                                             run.last.c_str());
                             std::fflush(stdout);
                             QApplication::exit(run.failed ? 1 : 0);
                         });
        window_.engine()->command(RunCommand::Step);
    }

    MainWindow& window_;
    const bool thenStep_;
    bool reported_ = false;
    bool stepping_ = false;
    double shownAt_ = -1;
};

} // namespace

void reportOpenTime(MainWindow& window, bool thenStep) {
    auto* watcher = new FirstPaint(window, thenStep);
    watcher->setParent(&window);
    QObject::connect(&window, &MainWindow::modelShown, watcher,
                     [watcher] { watcher->modelShown(); });
    QObject::connect(window.engine(), &EngineClient::loadFailed, &window,
                     [](const QString& sentence) {
                         std::fprintf(stderr, "%s\n", sentence.toUtf8().constData());
                         QApplication::exit(1);
                     });
}

} // namespace fxview
