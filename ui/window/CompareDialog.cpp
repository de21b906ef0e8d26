#include "window/CompareDialog.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace fxview {

CompareDialog::CompareDialog(const ComparisonRequest& a, QWidget* parent) : QDialog(parent), a_(a) {
    setWindowTitle(tr("Compare Runs"));
    auto* intro = new QLabel(
        tr("Run A is %1 on %2 (seed %3). Run B runs beside it; each node both have is compared.")
            .arg(QFileInfo(a.modelA).fileName(),
                 a.inputs.isEmpty() ? tr("its guessed input") : a.inputs.join(" "))
            .arg(a.seed),
        this);
    intro->setWordWrap(true);
    kind_ = new QButtonGroup(this);
    auto* precision = new QRadioButton(tr("The same model in another &precision"), this);
    auto* input = new QRadioButton(tr("The same model on another &input"), this);
    auto* file = new QRadioButton(tr("Another model &file (nodes matched by name, then by module "
                                     "scope and order)"),
                                  this);
    kind_->addButton(precision, static_cast<int>(Kind::Precision));
    kind_->addButton(input, static_cast<int>(Kind::Input));
    kind_->addButton(file, static_cast<int>(Kind::File));
    dtype_ = new QComboBox(this);
    dtype_->addItems({"bfloat16", "float16", "float64"});
    dtype_->setToolTip(tr("B's floating weights and inputs are cast to it, as model.to(dtype)"));
    seedB_ = new QSpinBox(this);
    seedB_->setRange(0, 1 << 30);
    seedB_->setValue(static_cast<int>(a.seed + 1));
    inputsB_ = new QLineEdit(this);
    inputsB_->setPlaceholderText(tr("A's input specs (or e.g. 1x3x224x224, file:x.pt)"));
    file_ = new QLineEdit(this);
    file_->setPlaceholderText(tr("another .pt or .pt2"));
    auto* browse = new QPushButton(tr("Browse…"), this);
    local_ = new QCheckBox(tr("&Local: feed each of B's nodes A's values, so that its error is its "
                              "own, not what it was given"),
                           this);

    auto* form = new QFormLayout;
    form->addRow(precision);
    form->addRow(tr("    dtype"), dtype_);
    form->addRow(input);
    form->addRow(tr("    seed"), seedB_);
    form->addRow(tr("    input"), inputsB_);
    form->addRow(file);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(file_, 1);
    fileRow->addWidget(browse);
    form->addRow(tr("    model"), fileRow);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Compare"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(local_);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, &CompareDialog::browse);
    connect(kind_, &QButtonGroup::idClicked, this, [this] { updateEnabled(); });
    connect(file_, &QLineEdit::textChanged, this, [this] { updateEnabled(); });
    choose(Kind::Precision);
}

void CompareDialog::choose(Kind kind) {
    kind_->button(static_cast<int>(kind))->setChecked(true);
    updateEnabled();
}

void CompareDialog::updateEnabled() {
    auto kind = static_cast<Kind>(kind_->checkedId());
    dtype_->setEnabled(kind == Kind::Precision);
    seedB_->setEnabled(kind == Kind::Input);
    inputsB_->setEnabled(kind == Kind::Input);
    file_->setEnabled(kind == Kind::File);
    auto* ok = findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    ok->setEnabled(kind != Kind::File || !file_->text().trimmed().isEmpty());
}

void CompareDialog::browse() {
    QString path =
        QFileDialog::getOpenFileName(this, tr("Run B's model"), QFileInfo(a_.modelA).absolutePath(),
                                     tr("PyTorch models (*.pt *.pth *.zip *.pt2);;All files (*)"));
    if (!path.isEmpty()) {
        file_->setText(path);
        choose(Kind::File);
    }
}

ComparisonRequest CompareDialog::request() const {
    ComparisonRequest r = a_;
    r.local = local_->isChecked();
    switch (static_cast<Kind>(kind_->checkedId())) {
    case Kind::Precision:
        r.dtype = dtype_->currentText();
        break;
    case Kind::Input:
        r.hasSeedB = true;
        r.seedB = static_cast<quint64>(seedB_->value());
        r.inputsB = inputsB_->text().split(' ', Qt::SkipEmptyParts);
        break;
    case Kind::File:
        r.modelB = file_->text().trimmed();
        break;
    }
    return r;
}

} // namespace fxview
