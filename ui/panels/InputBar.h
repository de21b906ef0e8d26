#pragma once
// The input bar: one field per placeholder with the shape spec ("1x3x224x224", or file:… with a
// browse button), its dtype, the seed, Apply, and a note saying where the input came from (the
// core's guess, the command line, or what was applied last to this model).

#include <QStringList>
#include <QToolBar>
#include <vector>

#include "InputSpec.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace fxview {

class InputBar : public QToolBar {
    Q_OBJECT
public:
    explicit InputBar(QWidget* parent = nullptr);

    // `defaults`: per placeholder, the default forward gives it ("None"), or "" for none; a
    // field with a default may be left empty.
    void setInputs(const QStringList& placeholders, const std::vector<InputSpec>& specs,
                   const QString& note, const QStringList& defaults = {});
    void setNote(const QString& note); // where the input in use came from
    // Each field's spec in fxtrace's syntax, the dtype appended when it is not float32.
    QStringList specs() const;
    quint64 seed() const;
    void setSeed(quint64 seed);

signals:
    void applyRequested(const QStringList& specs, quint64 seed);

private:
    struct Field {
        QLineEdit* spec;
        QComboBox* dtype;
    };
    void addField(const QString& placeholder, const InputSpec* spec, const QString& defaultText);
    void browse(const Field& field);

    QList<Field> fields_;
    QList<QAction*> fieldActions_; // this model's fields, before the seed
    QAction* seedAction_;
    QSpinBox* seed_;
    QLabel* note_;
};

} // namespace fxview
