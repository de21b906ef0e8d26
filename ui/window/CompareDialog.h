#pragma once
// Run ▸ Compare Runs…: what run B is (the same model in another precision, on another input, or
// another model file) and whether each of its nodes is fed A's values (local). Run A is the
// model open, on the input the input bar applies.

#include <QDialog>

#include "session/ComparisonRun.h"

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace fxview {

class CompareDialog : public QDialog {
    Q_OBJECT
public:
    enum class Kind { Precision, Input, File };

    // `a`: run A's request (its model, inputs and seed); B's fields start from the last ones.
    CompareDialog(const ComparisonRequest& a, QWidget* parent = nullptr);

    // `a` with run B's fields as chosen.
    ComparisonRequest request() const;
    void choose(Kind kind);
    QComboBox* dtypeBox() const { return dtype_; }
    QSpinBox* seedBox() const { return seedB_; }
    QLineEdit* inputsEdit() const { return inputsB_; }
    QLineEdit* fileEdit() const { return file_; }
    QCheckBox* localBox() const { return local_; }

private:
    void browse();
    void updateEnabled();
    ComparisonRequest a_;
    QButtonGroup* kind_;
    QComboBox* dtype_;
    QSpinBox* seedB_;
    QLineEdit* inputsB_;
    QLineEdit* file_;
    QCheckBox* local_;
};

} // namespace fxview
