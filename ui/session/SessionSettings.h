#pragma once
// Every setting fxview remembers between starts (QSettings), in one place: which keys there are,
// what each holds, and for which model file.

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>
#include <set>
#include <string>

#include "session/SessionTypes.h"

namespace fxview::settings {

// The window's size and dock layout as the person left them.
QByteArray windowGeometry();
QByteArray windowState();
void saveWindow(const QByteArray& geometry, const QByteArray& state);

// File ▸ Open Recent: most recent first, eight at most.
QStringList recentModels();
void addRecentModel(const QString& source);

// File ▸ Open Remote…: the machines models were opened on ("user@host:port"), most recent
// first, eight at most; and the folder last listed on each.
QStringList remoteHosts();
QString remoteFolder(const QString& host);
void rememberRemote(const QString& host, const QString& folder);

// The inputs last applied to a model file and their seed, used again when it is opened without
// inputs; forgotten when they could not be made.
QStringList inputsFor(const QString& source);
quint64 seedFor(const QString& source);
void rememberInputs(const QString& source, const QStringList& specs, quint64 seed);
void forgetInputs(const QString& source);

// The engine a model file was last opened with (File ▸ Open uses it again, unless the command
// line names one); fxview-engine with nothing asked of it is not kept.
std::optional<EngineChoice> engineFor(const QString& source);
void rememberEngine(const QString& source, const EngineChoice& engine);

// The module scopes last drawn open for a model file, if it was opened before.
std::optional<std::set<std::string>> scopesFor(const QString& source);
void rememberScopes(const QString& source, const std::set<std::string>& open);

// View ▸ Weights as Nodes.
bool weightsAsNodes();
void setWeightsAsNodes(bool on);

// File ▸ Load Op Library: libraries loaded before every model.
QStringList opLibraries();
void addOpLibrary(const QString& path);

// The folder File ▸ Export offers, the last one exported to.
QString exportFolder(const QString& fallback);
void setExportFolder(const QString& folder);

} // namespace fxview::settings
