#include "window/ProfileDialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include "EngineProtocol.h"

namespace fxview {

ProfileDialog::ProfileDialog(int runs, bool operators, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Profile"));
    runs_ = new QSpinBox(this);
    runs_->setRange(1, static_cast<int>(kMaxProfileRuns));
    runs_->setValue(runs);
    operators_ = new QCheckBox(tr("First, one run under torch.profiler: each node's operators "
                                  "and their own time, and the profiler's trace (the Python "
                                  "engine)"),
                               this);
    operators_->setChecked(operators);
    auto* note = new QLabel(tr("One run warms up first; breakpoints do not stop the runs, Pause "
                               "does. Each node's time is its median over the timed runs."),
                            this);
    note->setWordWrap(true);
    auto* form = new QFormLayout;
    form->addRow(tr("Timed runs:"), runs_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(operators_);
    layout->addWidget(note);
    layout->addWidget(buttons);
}

int ProfileDialog::runs() const {
    return runs_->value();
}

bool ProfileDialog::operators() const {
    return operators_->isChecked();
}

} // namespace fxview
