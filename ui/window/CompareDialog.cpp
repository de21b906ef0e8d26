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

CompareDialog::CompareDialog(const QString& runA, quint64 seed, bool live, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Compare Runs"));
    auto* intro = new QLabel(
        tr("Run A is %1. Run B runs beside it, both from the start; each node both have is "
           "compared. The run you are stepping stays where it is.")
            .arg(runA),
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
    auto* device = new QRadioButton(tr("The same model on another &device"), this);
    kind_->addButton(device, static_cast<int>(Kind::Device));
    device_ = new QLineEdit(this);
    device_->setPlaceholderText(tr("a torch device: cuda, cuda:1, mps, cpu"));
    dtype_ = new QComboBox(this);
    dtype_->addItems({"bfloat16", "float16", "float64"});
    dtype_->setToolTip(tr("B's floating weights and inputs are cast to it, as model.to(dtype)"));
    seedB_ = new QSpinBox(this);
    seedB_->setRange(0, 1 << 30);
    seedB_->setValue(static_cast<int>(seed + 1));
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
    // A live model lives in the person's Python: B is it on another device, never a file.
    if (live) {
        form->addRow(device);
        form->addRow(tr("    device"), device_);
        file->hide();
        file_->hide();
        browse->hide();
    } else {
        form->addRow(file);
        auto* fileRow = new QHBoxLayout;
        fileRow->addWidget(file_, 1);
        fileRow->addWidget(browse);
        form->addRow(tr("    model"), fileRow);
        device->hide();
        device_->hide();
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Compare"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(local_);
    error_ = new QLabel(this);
    error_->setWordWrap(true);
    error_->setStyleSheet("color: #b2182b");
    error_->hide();
    layout->addWidget(error_);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, &CompareDialog::browse);
    connect(kind_, &QButtonGroup::idClicked, this, [this] { updateEnabled(); });
    connect(file_, &QLineEdit::textChanged, this, [this] { updateEnabled(); });
    connect(device_, &QLineEdit::textChanged, this, [this] { updateEnabled(); });
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
    device_->setEnabled(kind == Kind::Device);
    auto* ok = findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    ok->setEnabled((kind != Kind::File || !file_->text().trimmed().isEmpty()) &&
                   (kind != Kind::Device || !device_->text().trimmed().isEmpty()));
}

void CompareDialog::accept() {
    if (static_cast<Kind>(kind_->checkedId()) == Kind::Input)
        for (const QString& text : inputsB_->text().split(' ', Qt::SkipEmptyParts)) {
            InputSpec spec;
            std::string error;
            if (!parseInputSpec(text.toStdString(), spec, error)) {
                error_->setText(QString::fromStdString(error));
                error_->show();
                inputsB_->setFocus();
                return;
            }
        }
    QDialog::accept();
}

void CompareDialog::browse() {
    QString path =
        QFileDialog::getOpenFileName(this, tr("Run B's model"), folder_,
                                     tr("PyTorch models (*.pt *.pth *.zip *.pt2);;All files (*)"));
    if (!path.isEmpty()) {
        file_->setText(path);
        choose(Kind::File);
    }
}

CompareRequest CompareDialog::request() const {
    CompareRequest r;
    r.local = local_->isChecked();
    switch (static_cast<Kind>(kind_->checkedId())) {
    case Kind::Precision:
        r.dtype = dtype_->currentText().toStdString();
        break;
    case Kind::Input: {
        r.hasSeedB = true;
        r.seedB = static_cast<quint64>(seedB_->value());
        for (const QString& text : inputsB_->text().split(' ', Qt::SkipEmptyParts)) {
            InputSpec spec;
            std::string error; // accept() refused the dialog while any spec had one
            if (parseInputSpec(text.toStdString(), spec, error))
                r.inputsB.push_back(spec);
        }
        break;
    }
    case Kind::Device:
        r.device = device_->text().trimmed().toStdString();
        break;
    case Kind::File:
        r.modelB = file_->text().trimmed().toStdString();
        break;
    }
    return r;
}

} // namespace fxview
