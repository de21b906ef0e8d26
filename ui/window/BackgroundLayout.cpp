#include "window/BackgroundLayout.h"

namespace fxview {

BackgroundLayout::~BackgroundLayout() {
    cancel();
    join();
}

void BackgroundLayout::join() {
    if (thread_.joinable())
        thread_.join();
}

void BackgroundLayout::start(std::function<GraphLayout(const LayoutOptions&)> layOut,
                             std::function<void(GraphLayout)> done) {
    cancel();
    join();
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    cancelled_ = cancelled;
    const int ticket = ++ticket_;
    running_ = true;
    // The thread touches this object only through queued calls, which the destructor's join
    // keeps from outliving it.
    thread_ =
        std::thread([this, layOut = std::move(layOut), done = std::move(done), cancelled, ticket] {
            LayoutOptions options;
            options.piecesDone = [this, cancelled](int piece, int pieces) {
                QMetaObject::invokeMethod(
                    this, [this, piece, pieces] { emit progressed(piece, pieces); },
                    Qt::QueuedConnection);
                return !*cancelled;
            };
            GraphLayout layout = layOut(options);
            QMetaObject::invokeMethod(
                this,
                [this, done, ticket, cancelled, layout = std::move(layout)]() mutable {
                    if (ticket != ticket_ || *cancelled)
                        return;
                    running_ = false;
                    join(); // it has returned, or is returning
                    done(std::move(layout));
                },
                Qt::QueuedConnection);
        });
}

bool BackgroundLayout::cancel() {
    if (!running_)
        return false;
    running_ = false;
    *cancelled_ = true;
    return true;
}

} // namespace fxview
