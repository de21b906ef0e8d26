#pragma once
// A comparison of two runs (Run ▸ Compare Runs…) as the window starts it: `fxtrace compare` in a
// child process (which confines itself as every engine does, so a model that crashes or loops
// ends in a sentence), its JSON read back into a ComparisonReport. One comparison at a time.

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <memory>

#include "Comparison.h"

namespace fxview {

// What run B changes and how the runs are judged: fxtrace compare's options.
struct ComparisonRequest {
    QString modelA;
    QStringList inputs; // A's input specs; empty: guessed
    quint64 seed = 0;
    QString modelB;      // another file, or "" for A itself
    QString dtype;       // B's floating weights and inputs cast to it, or ""
    QStringList inputsB; // B's input specs instead of A's
    bool hasSeedB = false;
    quint64 seedB = 0;
    bool local = false;
};

class ComparisonRun : public QObject {
    Q_OBJECT
public:
    explicit ComparisonRun(QObject* parent = nullptr);
    ~ComparisonRun() override;

    // fxtrace's arguments for `request`, writing its JSON to `jsonFile`.
    static QStringList arguments(const ComparisonRequest& request, const QString& jsonFile);
    // Where fxtrace is: $FXTRACE, beside this executable, or the build tree's.
    static QString fxtracePath();

    void start(const ComparisonRequest& request);
    void cancel(); // stops a running comparison; neither signal follows
    bool running() const;
    const ComparisonReport& report() const { return report_; }
    Metric metric() const { return metric_; }
    double threshold() const { return threshold_; }

signals:
    void finished(); // report() holds the comparison (report().failure if a run failed)
    void failed(const QString& sentence);

private:
    void ended(int exitCode, QProcess::ExitStatus status);
    QProcess* process_ = nullptr;
    std::unique_ptr<QTemporaryDir> dir_;
    ComparisonReport report_;
    Metric metric_ = Metric::RelL2;
    double threshold_ = defaultThreshold(Metric::RelL2);
};

} // namespace fxview
