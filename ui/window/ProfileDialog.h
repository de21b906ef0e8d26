#pragma once
// Run ▸ Profile…: how many timed runs (after one to warm up), and whether one run under
// torch.profiler comes first (the Python engine: each node's operators with their own time, and
// the profiler's trace).

#include <QDialog>

class QCheckBox;
class QSpinBox;

namespace fxview {

class ProfileDialog : public QDialog {
    Q_OBJECT
public:
    ProfileDialog(int runs, bool operators, QWidget* parent = nullptr);
    int runs() const;
    bool operators() const;
    QSpinBox* runsBox() const { return runs_; }
    QCheckBox* operatorsBox() const { return operators_; }

private:
    QSpinBox* runs_;
    QCheckBox* operators_;
};

} // namespace fxview
