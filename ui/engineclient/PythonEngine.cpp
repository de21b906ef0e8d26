#include "engineclient/PythonEngine.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>

namespace fxview {

QStringList pythonEngineCommand(const QString& python) {
    return {python, "-m", "fxview.engine"};
}

QStringList engineCommandLine(const QString& command, QString& error, const QString& option) {
    // The words as sh reads them (the person writes the command as at a prompt): blanks part
    // words; '...' keeps everything; "..." keeps all but \" \\ \$ \`; \ keeps the next
    // character. No expansions: the command is run, not interpreted.
    QStringList words;
    QString word;
    bool inWord = false;
    for (qsizetype i = 0; i < command.size(); ++i) {
        const QChar c = command[i];
        if (c == '\'') {
            const qsizetype end = command.indexOf('\'', i + 1);
            if (end < 0) {
                error = option + "'s command has a ' that is never closed";
                return {};
            }
            word += command.mid(i + 1, end - i - 1);
            inWord = true;
            i = end;
        } else if (c == '"') {
            qsizetype j = i + 1;
            for (; j < command.size() && command[j] != '"'; ++j) {
                if (command[j] == '\\' && j + 1 < command.size() &&
                    QStringLiteral("\"\\$`").contains(command[j + 1]))
                    ++j;
                word += command[j];
            }
            if (j >= command.size()) {
                error = option + "'s command has a \" that is never closed";
                return {};
            }
            inWord = true;
            i = j;
        } else if (c == '\\' && i + 1 < command.size()) {
            word += command[++i];
            inWord = true;
        } else if (c.isSpace()) {
            if (inWord)
                words << word;
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord)
        words << word;
    if (words.isEmpty()) {
        error = option + " names no command to start";
        return {};
    }
    if (words.front().startsWith("~/"))
        words.front() = QDir::homePath() + words.front().mid(1);
    return words;
}

QString findPythonWithTorch(QString& error) {
    QStringList looked;
    const QStringList folders =
        qEnvironmentVariable("PATH").split(QLatin1Char(':'), Qt::SkipEmptyParts);
    for (const QString& folder : folders) {
        const QString python = folder + "/python3";
        if (!QFileInfo(python).isExecutable() || looked.contains(python))
            continue;
        looked << python;
        QProcess probe;
        probe.start(python, {"-c", "import importlib.util, sys; "
                                   "sys.exit(importlib.util.find_spec('torch') is None)"});
        if (probe.waitForFinished(10000) && probe.exitStatus() == QProcess::NormalExit &&
            probe.exitCode() == 0)
            return python;
    }
    error = looked.isEmpty() ? QString("there is no python3 on PATH")
                             : "no python3 on PATH has PyTorch (" + looked.join(", ") + ")";
    return {};
}

QString pythonPackageDir() {
    const QString given = qEnvironmentVariable("FXVIEW_PYTHON_PACKAGE");
    if (!given.isEmpty())
        return given;
    const QString installed = QCoreApplication::applicationDirPath() + "/../share/fxview/python";
    if (QFileInfo(installed + "/fxview/engine.py").isFile())
        return QDir(installed).canonicalPath();
    return QStringLiteral(FXVIEW_PYTHON_SOURCE);
}

QProcessEnvironment pythonEngineEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString path = env.value("PYTHONPATH");
    env.insert("PYTHONPATH", path.isEmpty() ? pythonPackageDir() : pythonPackageDir() + ":" + path);
    env.insert("PYTHONUNBUFFERED", "1");
    return env;
}

} // namespace fxview
