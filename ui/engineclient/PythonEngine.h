#pragma once
// Private to engineclient/: the Python engine as a process (python3 -m fxview.engine, the
// person's own PyTorch), the command lines fxview --engine and --python name, and the Python a
// window built without LibTorch finds on PATH.

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace fxview {

// `PYTHON -m fxview.engine`.
QStringList pythonEngineCommand(const QString& python);

// fxview --engine "COMMAND": split into words as sh splits them ('...', "...", \ quoting; no
// expansions), a leading ~/ made the home folder. Empty with `error` set when there is no
// program to start or a quote is never closed; `option` names where the command came from.
QStringList engineCommandLine(const QString& command, QString& error,
                              const QString& option = "--engine");

// The first python3 on PATH whose import system finds torch (without importing it: a few ms
// each), or "" with `error` saying which Pythons were looked at.
QString findPythonWithTorch(QString& error);

// Where fxview's own Python package is (its folder holds fxview/): $FXVIEW_PYTHON_PACKAGE,
// share/fxview/python beside an installed fxview, or the checkout's python/.
QString pythonPackageDir();

// An engine command's environment: this process's, with fxview's package first on PYTHONPATH
// so that `-m fxview.engine` runs in a Python that never installed it (a venv), and nothing
// buffered on its stdout.
QProcessEnvironment pythonEngineEnvironment();

} // namespace fxview
