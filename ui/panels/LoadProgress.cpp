#include "panels/LoadProgress.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

namespace fxview {

LoadProgress::LoadProgress(QWidget* parent)
    : QWidget(parent), stage_(new QLabel), bar_(new QProgressBar), cancel_(new QToolButton) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(stage_);
    bar_->setRange(0, 100);
    bar_->setMaximumWidth(180);
    bar_->setTextVisible(false);
    layout->addWidget(bar_);
    cancel_->setText("Cancel");
    cancel_->setToolTip("Stop opening this model and keep the one that is open (Esc)");
    cancel_->setShortcut(QKeySequence(Qt::Key_Escape));
    layout->addWidget(cancel_);
    connect(cancel_, &QToolButton::clicked, this, &LoadProgress::cancelRequested);
    setVisible(false);
}

void LoadProgress::start(int load, const QString& source) {
    load_ = load;
    cancel_->setToolTip("Stop opening this model and keep the one that is open (Esc)");
    stage_->setText("Opening " + QFileInfo(source).fileName() + "…");
    bar_->setValue(0);
    setVisible(true);
}

void LoadProgress::advance(int load, const QString& stage, int percent) {
    if (load != load_)
        return; // a load that was cancelled or replaced still reporting
    stage_->setText(stage + "…");
    bar_->setValue(percent);
}

void LoadProgress::startWork(const QString& stage) {
    load_ = kWork;
    cancel_->setToolTip("Stop and keep the picture as it is (Esc)");
    stage_->setText(stage + "…");
    bar_->setValue(0);
    setVisible(true);
}

void LoadProgress::advanceWork(int percent) {
    if (load_ == kWork)
        bar_->setValue(percent);
}

void LoadProgress::finish() {
    load_ = 0;
    setVisible(false);
}

QString LoadProgress::stage() const {
    return isVisible() ? stage_->text() : QString();
}

} // namespace fxview
