#include "session/ComparisonRun.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>

#include "session/ComparisonJson.h"

namespace fxview {

ComparisonRun::ComparisonRun(QObject* parent) : QObject(parent) {}

ComparisonRun::~ComparisonRun() {
    cancel();
}

QStringList ComparisonRun::arguments(const ComparisonRequest& r, const QString& jsonFile) {
    QStringList args = {"compare", r.modelA};
    if (!r.modelB.isEmpty())
        args << r.modelB;
    for (const QString& spec : r.inputs)
        args << "--input" << spec;
    args << "--seed" << QString::number(r.seed);
    if (!r.dtype.isEmpty())
        args << "--dtype" << r.dtype;
    for (const QString& spec : r.inputsB)
        args << "--input-b" << spec;
    if (r.hasSeedB)
        args << "--seed-b" << QString::number(r.seedB);
    if (r.local)
        args << "--local";
    args << "--json" << jsonFile;
    return args;
}

QString ComparisonRun::fxtracePath() {
    QString given = qEnvironmentVariable("FXTRACE");
    if (!given.isEmpty())
        return given;
    QString beside = QCoreApplication::applicationDirPath() + "/fxtrace";
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QStringLiteral(FXTRACE_BUILT);
}

void ComparisonRun::start(const ComparisonRequest& request) {
    cancel();
    dir_ = std::make_unique<QTemporaryDir>();
    if (!dir_->isValid()) {
        emit failed(tr("The comparison could not start: no temporary folder (%1).")
                        .arg(dir_->errorString()));
        return;
    }
    process_ = new QProcess(this);
    process_->setProgram(fxtracePath());
    process_->setArguments(arguments(request, dir_->filePath("comparison.json")));
    connect(process_, &QProcess::finished, this, &ComparisonRun::ended);
    connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return; // a crash is a finish with its exit status
        QString program = process_->program();
        process_->deleteLater();
        process_ = nullptr;
        emit failed(tr("The comparison could not start %1; reinstall fxview, or set FXTRACE to "
                       "fxtrace's path.")
                        .arg(program));
    });
    process_->start();
}

void ComparisonRun::cancel() {
    if (!process_)
        return;
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(2000);
    process_->deleteLater();
    process_ = nullptr;
}

bool ComparisonRun::running() const {
    return process_ != nullptr;
}

void ComparisonRun::ended(int exitCode, QProcess::ExitStatus status) {
    QString errors = QString::fromUtf8(process_->readAllStandardError()).trimmed();
    process_->deleteLater();
    process_ = nullptr;
    // fxtrace's own sentences (a model that cannot be loaded, a bad input) say what to do; the
    // guessed-input note on stderr is no failure.
    QFile file(dir_->filePath("comparison.json"));
    if (status != QProcess::NormalExit || !file.open(QIODevice::ReadOnly)) {
        emit failed(errors.isEmpty() ? tr("The comparison ended without a result (fxtrace "
                                          "exited with code %1).")
                                           .arg(exitCode)
                                     : errors.section('\n', -1));
        return;
    }
    // At most 256 MB: a comparison row is a few hundred bytes, a model a million nodes.
    QByteArray json = file.read(256 << 20);
    if (QString error = readComparison(json, report_, metric_, threshold_); !error.isEmpty()) {
        emit failed(error);
        return;
    }
    emit finished();
}

} // namespace fxview
