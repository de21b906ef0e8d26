#include "panels/InputBar.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFontMetrics>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>

namespace fxview {

namespace {

// "1x3x224x224" without the dtype, or "file:PATH": the dtype has its own box.
QString shapeText(const InputSpec& spec) {
    if (spec.example) // a .pt2's own example input, or the arguments a live model was shown with
        return "example";
    if (!spec.file.empty())
        return QString::fromStdString("file:" + spec.file);
    QStringList sizes;
    for (std::int64_t size : spec.shape)
        sizes << QString::number(size);
    return sizes.join('x');
}

bool isFile(const QString& text) {
    return text.trimmed().startsWith("file:");
}

} // namespace

InputBar::InputBar(QWidget* parent) : QToolBar("Input", parent) {
    setObjectName("inputToolbar");
    seed_ = new QSpinBox;
    seed_->setRange(0, 1'000'000);
    seed_->setPrefix("seed ");
    seed_->setToolTip("Seed of the random input: the same seed gives the same tensors");
    seedAction_ = addWidget(seed_);
    QAction* apply =
        addAction("Apply input", this, [this] { emit applyRequested(specs(), seed()); });
    apply->setToolTip("Make the input from these specs and reset the run");
    note_ = new QLabel;
    note_->setObjectName("inputNote");
    note_->setForegroundRole(QPalette::PlaceholderText);
    addWidget(note_);
}

void InputBar::setInputs(const QStringList& placeholders, const std::vector<InputSpec>& specs,
                         const QString& note, const QStringList& defaults) {
    qDeleteAll(fieldActions_); // each takes its widget with it
    fieldActions_.clear();
    fields_.clear();
    for (int i = 0; i < placeholders.size(); ++i)
        addField(placeholders[i],
                 static_cast<std::size_t>(i) < specs.size() ? &specs[static_cast<std::size_t>(i)]
                                                            : nullptr,
                 i < defaults.size() ? defaults[i] : QString());
    setNote(note);
}

void InputBar::setNote(const QString& note) {
    // A long file: path would push everything after it out of the bar: the tooltip has it whole.
    note_->setText("  " + QFontMetrics(note_->font()).elidedText(note, Qt::ElideMiddle, 420));
    note_->setToolTip(note);
}

void InputBar::addField(const QString& placeholder, const InputSpec* spec,
                        const QString& defaultText) {
    auto place = [this](QWidget* widget) {
        fieldActions_.append(insertWidget(seedAction_, widget));
    };
    place(new QLabel(" " + placeholder + " "));
    Field field{new QLineEdit(spec ? shapeText(*spec) : QString()), new QComboBox};
    field.spec->setPlaceholderText(defaultText.isEmpty() ? "1x3x224x224 or file:…"
                                                         : "default: " + defaultText);
    field.spec->setToolTip(
        "Shape of a random input (sizes joined by x), or file:PATH of what torch.save wrote: a "
        "tensor, a list of tensors, or a tuple of all the inputs (in the first field)" +
        QString(defaultText.isEmpty() ? "" : "; leave empty for the default, " + defaultText));
    field.spec->setMaximumWidth(200);
    field.spec->setObjectName("inputSpec");
    for (const std::string& dtype : supportedDtypes())
        field.dtype->addItem(QString::fromStdString(dtype));
    field.dtype->setCurrentText(spec ? QString::fromStdString(spec->dtype) : "float32");
    field.dtype->setToolTip("dtype of the random input (a file's tensor keeps its own)");
    field.dtype->setEnabled(!isFile(field.spec->text()));
    // "2x8:int64" typed in full moves its dtype to the box.
    connect(field.spec, &QLineEdit::editingFinished, this, [field] {
        QString text = field.spec->text().trimmed();
        int colon = static_cast<int>(text.lastIndexOf(':'));
        if (!isFile(text) && colon > 0 && field.dtype->findText(text.mid(colon + 1)) >= 0) {
            field.dtype->setCurrentText(text.mid(colon + 1));
            field.spec->setText(text.left(colon));
        }
    });
    // Enter applies, as in any form.
    connect(field.spec, &QLineEdit::returnPressed, this,
            [this] { emit applyRequested(specs(), seed()); });
    connect(field.spec, &QLineEdit::textChanged, field.dtype,
            [field](const QString& text) { field.dtype->setEnabled(!isFile(text)); });
    place(field.spec);
    place(field.dtype);
    auto* browse = new QToolButton;
    browse->setText("…");
    browse->setToolTip("Use a tensor saved with torch.save");
    connect(browse, &QToolButton::clicked, this, [this, field] { this->browse(field); });
    place(browse);
    fields_.append(field);
}

void InputBar::browse(const Field& field) {
    QString path =
        QFileDialog::getOpenFileName(this, "Input tensor", QString(),
                                     "Tensors saved with torch.save (*.pt *.pth);;All files (*)");
    if (!path.isEmpty())
        field.spec->setText("file:" + path);
}

QStringList InputBar::specs() const {
    // Empty fields at the end are left out: their inputs take forward's defaults, or, after a
    // file holding a tuple of all the inputs, come from it.
    int used = static_cast<int>(fields_.size());
    while (used > 0 && fields_[used - 1].spec->text().trimmed().isEmpty())
        --used;
    QStringList out;
    for (const Field& f : fields_.mid(0, used)) {
        QString text = f.spec->text().trimmed();
        QString dtype = f.dtype->currentText();
        out << (isFile(text) || dtype == "float32" || text.contains(':') ? text
                                                                         : text + ":" + dtype);
    }
    return out;
}

quint64 InputBar::seed() const {
    return static_cast<quint64>(seed_->value());
}

void InputBar::setSeed(quint64 seed) {
    seed_->setValue(static_cast<int>(seed));
}

} // namespace fxview
