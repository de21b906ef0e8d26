#pragma once
// A layout made off the GUI thread, in pieces, that can be stopped between two of them: opening
// every scope of a big model (tens of thousands of nodes) must leave the window responsive, with
// the status bar's progress and Cancel (Esc). One runs at a time; starting one cancels the last.

#include <QObject>
#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include "GraphLayout.h"

namespace fxview {

class BackgroundLayout : public QObject {
    Q_OBJECT
public:
    explicit BackgroundLayout(QObject* parent = nullptr) : QObject(parent) {}
    ~BackgroundLayout() override; // cancels the layout running and waits for its thread

    // Runs `layOut` (given options whose piecesDone reports and stops it) on a thread of its
    // own; `done` gets the layout on this object's thread, unless it was cancelled first.
    void start(std::function<GraphLayout(const LayoutOptions&)> layOut,
               std::function<void(GraphLayout)> done);
    // Stops the layout running (its result is dropped); false when none was.
    bool cancel();
    bool running() const { return running_; }

signals:
    void progressed(int done, int total);

private:
    void join();

    std::thread thread_;
    std::shared_ptr<std::atomic<bool>> cancelled_;
    int ticket_ = 0; // a result whose ticket is not the last one started is dropped
    bool running_ = false;
};

} // namespace fxview
