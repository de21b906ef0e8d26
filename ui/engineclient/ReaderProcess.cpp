#include "engineclient/ReaderProcess.h"

#include "Confinement.h"
#include "Wire.h"
#include "engineclient/EngineProcess.h"

namespace fxview {

ReaderProcess::ReaderProcess(QObject* parent) : QObject(parent) {
    timer_.setSingleShot(true);
    QObject::connect(&timer_, &QTimer::timeout, this, [this] {
        finish(std::nullopt, QString("it took longer than %1 s").arg(kTimeLimitMs / 1000));
    });
}

ReaderProcess::~ReaderProcess() {
    kill();
}

QString ReaderProcess::readerPath() {
    return EngineProcess::programPath("FXVIEW_READER", "fxview-reader",
                                      QStringLiteral(FXVIEW_READER_BUILT));
}

void ReaderProcess::start(const std::string& path, Done done, const std::string& schemas) {
    if (schemas.empty())
        return launch({QString::fromStdString(path)}, {}, std::move(done));
    launch({"--schemas", QString::fromStdString(path)}, schemas, std::move(done));
}

void ReaderProcess::startSent(const std::string& member, const std::string& program,
                              const std::string& schemas, Done done) {
    std::string input(8, '\0');
    for (std::size_t i = 0; i < 8; ++i)
        input[i] = static_cast<char>(static_cast<std::uint64_t>(schemas.size()) >> (8 * i));
    input += schemas;
    input += program;
    launch({"--program", QString::fromStdString(member)}, input, std::move(done));
}

void ReaderProcess::launch(const QStringList& args, const std::string& input, Done done) {
    kill();
    done_ = std::move(done);
    answer_.clear();
    process_ = new QProcess(this);
    process_->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QObject::connect(process_, &QProcess::readyReadStandardOutput, this, [this] {
        answer_ += process_->readAllStandardOutput();
        if (static_cast<std::size_t>(answer_.size()) > kLargestReading + kFrameHeaderSize)
            finish(std::nullopt,
                   "its answer ran past " + QString::number(kLargestReading >> 20) + " MB");
    });
    QObject::connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            finish(std::nullopt, "it could not be started (" + process_->errorString() + ")");
    });
    QObject::connect(
        process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
            answer_ += process_->readAllStandardOutput();
            if (status == QProcess::CrashExit)
                return finish(
                    std::nullopt,
                    QString("it crashed (%1)").arg(QString::fromStdString(signalName(code))));
            std::string bytes = answer_.toStdString();
            Frame frame;
            try {
                ProgramReading reading;
                if (!takeFrame(bytes, frame) || frame.kind != kReadingFrame)
                    return finish(std::nullopt, "it gave no answer");
                decode(frame.payload, reading);
                finish(std::move(reading), {});
            } catch (const WireError& e) {
                finish(std::nullopt,
                       QString("its answer does not read (%1)").arg(QString::fromUtf8(e.what())));
            }
        });
    timer_.start(kTimeLimitMs);
    process_->start(readerPath(), args);
    if (input.empty())
        return;
    process_->write(input.data(), static_cast<qint64>(input.size()));
    process_->closeWriteChannel();
}

void ReaderProcess::finish(std::optional<ProgramReading> reading, const QString& why) {
    Done done = std::move(done_);
    done_ = nullptr;
    kill();
    if (done)
        done(std::move(reading), why);
}

void ReaderProcess::kill() {
    timer_.stop();
    done_ = nullptr;
    if (!process_)
        return;
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(1000); // reaped here: a SIGKILLed reader ends at once
    process_->deleteLater();
    process_ = nullptr;
}

} // namespace fxview
