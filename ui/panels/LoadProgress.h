#pragma once
// What the status bar shows while a model opens: the stage ("Tracing ResNet", "Laying out 491
// nodes"), a progress bar, and Cancel (also Escape), which keeps the open model.

#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;

namespace fxview {

class LoadProgress : public QWidget {
    Q_OBJECT
public:
    explicit LoadProgress(QWidget* parent = nullptr);

    void start(int load, const QString& source);
    // From the engine: ignored unless `load` is the one started last.
    void advance(int load, const QString& stage, int percent);
    // Work on the open model that Cancel stops without closing anything (a big layout).
    void startWork(const QString& stage);
    void advanceWork(int percent);
    void finish();
    QString stage() const;

signals:
    void cancelRequested();

private:
    QLabel* stage_;
    QProgressBar* bar_;
    QToolButton* cancel_;
    static constexpr int kWork = -1; // no load's number: startWork's
    int load_ = 0;
};

} // namespace fxview
