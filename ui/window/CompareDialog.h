#pragma once
// Run ▸ Compare Runs…: what run B is (the same model in another precision, on another input, on
// another device for a live model, or another model file) and whether each of its nodes is fed
// A's values (local). Run A is the model open, on the input it runs on.

#include <QDialog>

#include "Comparison.h"

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace fxview {

class CompareDialog : public QDialog {
    Q_OBJECT
public:
    enum class Kind { Precision, Input, Device, File };

    // `runA` says what run A is ("tinynet.pt on 3x4, seed 0"); `seed` is A's seed, `live` whether
    // the model runs in the person's Python (B may then run on another device, not another file).
    CompareDialog(const QString& runA, quint64 seed, bool live, QWidget* parent = nullptr);

    // Run B as chosen.
    CompareRequest request() const;
    void choose(Kind kind);
    QComboBox* dtypeBox() const { return dtype_; }
    QSpinBox* seedBox() const { return seedB_; }
    QLineEdit* inputsEdit() const { return inputsB_; }
    QLineEdit* fileEdit() const { return file_; }
    QLineEdit* deviceEdit() const { return device_; }
    QCheckBox* localBox() const { return local_; }
    QLabel* errorLabel() const { return error_; }
    void setStartFolder(const QString& folder) { folder_ = folder; } // where Browse… opens
    void accept() override; // refuses input specs that do not parse, with the sentence

private:
    void browse();
    void updateEnabled();
    QString folder_; // where Browse… starts
    QButtonGroup* kind_;
    QComboBox* dtype_;
    QSpinBox* seedB_;
    QLineEdit* inputsB_;
    QLineEdit* file_;
    QLineEdit* device_;
    QCheckBox* local_;
    QLabel* error_;
};

} // namespace fxview
