#pragma once
// Shared by the main window's Qt Tests: waiting for the engine's answers, pressing keys, opening
// a fixture and waiting until its first state is shown.

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

#include "TestSupport.h"
#include "window/MainWindow.h"

inline bool waitFor(QObject* sender, const char* signal, int times = 1) {
    QSignalSpy spy(sender, signal);
    while (spy.count() < times)
        if (!spy.wait(60000))
            return false;
    return true;
}

// Until the engine has answered everything asked so far (its replies arrive before it says so).
inline bool settle(fxview::MainWindow& window, int ms = 60000) {
    QElapsedTimer timer;
    timer.start();
    while (window.engine()->busy() && timer.elapsed() < ms)
        QTest::qWait(5);
    return !window.engine()->busy();
}

inline void press(fxview::MainWindow& window, QKeySequence key) {
    QTest::keySequence(&window, key);
}

// Opens a fixture (or an example, or a file by its absolute path) and waits for its first run
// state.
inline bool open(fxview::MainWindow& window, const std::string& file) {
    QSignalSpy shown(&window, SIGNAL(runShown()));
    const bool asIs = file.rfind("example:", 0) == 0 || file.rfind('/', 0) == 0 ||
                      file.rfind("ssh://", 0) == 0 || file.rfind("python:", 0) == 0;
    window.openModel(QString::fromStdString(asIs ? file : fixture(file)));
    return shown.wait(60000) && settle(window);
}
