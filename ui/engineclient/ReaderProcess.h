#pragma once
// Private to engineclient/: one run of fxview-reader, the confined process that reads a model file
// for the window (app/fxview-reader.cpp), so that the window parses none itself. Lives on the
// engine thread; its answer comes back through `done`, at most once, never after kill().

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <functional>
#include <optional>
#include <string>

#include "ProgramReading.h"

namespace fxview {

class ReaderProcess : public QObject {
public:
    // The reading, or nullopt and why there is none (the reader crashed, overran its time or
    // answered past kLargestReading, or could not be started): the engine draws the file then.
    using Done = std::function<void(std::optional<ProgramReading>, const QString& why)>;

    explicit ReaderProcess(QObject* parent = nullptr);
    ~ReaderProcess() override;

    // `schemas`, when not empty, is a Python engine's schema table, which the reader walks the
    // program with before its built-in one (fxview-reader --schemas).
    void start(const std::string& path, Done done, const std::string& schemas = {});
    // A program whose file is on another machine: the JSON `member` a remote engine sent,
    // zlib-compressed (OpenedModel::program), walked with its `schemas` (fxview-reader --program).
    void startSent(const std::string& member, const std::string& program,
                   const std::string& schemas, Done done);
    // Ends the reader, and with it its answer.
    void kill();
    bool running() const { return process_ != nullptr; }

    // Where fxview-reader is: $FXVIEW_READER, beside this executable, or the build tree's.
    static QString readerPath();
    // Past this a reader is killed: the 26,893-node program takes it 1.5 s.
    static constexpr int kTimeLimitMs = 10000;

private:
    void launch(const QStringList& args, const std::string& input, Done done);
    QProcess* process_ = nullptr;
    QTimer timer_;
    QByteArray answer_;
    Done done_;
    void finish(std::optional<ProgramReading> reading, const QString& why);
};

} // namespace fxview
