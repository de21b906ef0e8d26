#include "session/SessionSettings.h"

#include <QSettings>

namespace fxview::settings {

namespace {

const char* const kGeometry = "window/geometry";
const char* const kState = "window/state";
const char* const kRecent = "recent";
const char* const kRemoteHosts = "remote/hosts";
const QString kRemoteFolders = "remote/folder/";
const char* const kWeightsAsNodes = "view/weightsAsNodes";
const char* const kOpLibraries = "engine/opLibraries";
const char* const kExportFolder = "export/folder";

QString inputsKey(const QString& source) {
    return "inputs/" + source;
}
QString seedKey(const QString& source) {
    return "seeds/" + source;
}
QString scopesKey(const QString& source) {
    return "scopes/" + source;
}
QString engineKey(const QString& source) {
    return "engines/" + source;
}

QStringList qstrings(const std::vector<std::string>& strings) {
    QStringList list;
    for (const std::string& s : strings)
        list << QString::fromStdString(s);
    return list;
}

} // namespace

QByteArray windowGeometry() {
    return QSettings().value(kGeometry).toByteArray();
}

QByteArray windowState() {
    return QSettings().value(kState).toByteArray();
}

void saveWindow(const QByteArray& geometry, const QByteArray& state) {
    QSettings settings;
    settings.setValue(kGeometry, geometry);
    settings.setValue(kState, state);
}

QStringList recentModels() {
    return QSettings().value(kRecent).toStringList();
}

void addRecentModel(const QString& source) {
    QStringList recent = recentModels();
    recent.removeAll(source);
    recent.prepend(source);
    QSettings().setValue(kRecent, recent.mid(0, 8));
}

QStringList remoteHosts() {
    return QSettings().value(kRemoteHosts).toStringList();
}

QString remoteFolder(const QString& host) {
    return QSettings().value(kRemoteFolders + QString(host).replace('/', '_')).toString();
}

void rememberRemote(const QString& host, const QString& folder) {
    QStringList hosts = remoteHosts();
    hosts.removeAll(host);
    hosts.prepend(host);
    QSettings settings;
    settings.setValue(kRemoteHosts, hosts.mid(0, 8));
    settings.setValue(kRemoteFolders + QString(host).replace('/', '_'), folder);
}

QStringList inputsFor(const QString& source) {
    return QSettings().value(inputsKey(source)).toStringList();
}

quint64 seedFor(const QString& source) {
    return QSettings().value(seedKey(source), 0).toULongLong();
}

void rememberInputs(const QString& source, const QStringList& specs, quint64 seed) {
    QSettings settings;
    settings.setValue(inputsKey(source), specs);
    settings.setValue(seedKey(source), seed);
}

void forgetInputs(const QString& source) {
    QSettings().remove(inputsKey(source));
}

std::optional<EngineChoice> engineFor(const QString& source) {
    const QVariantMap kept = QSettings().value(engineKey(source)).toMap();
    if (kept.isEmpty())
        return std::nullopt;
    EngineChoice engine;
    engine.command = kept.value("command").toStringList();
    for (const QString& module : kept.value("imports").toStringList())
        engine.imports.push_back(module.toStdString());
    engine.device = kept.value("device").toString().toStdString();
    return engine;
}

void rememberEngine(const QString& source, const EngineChoice& engine) {
    QSettings settings;
    if (engine == EngineChoice{})
        return settings.remove(engineKey(source));
    settings.setValue(engineKey(source),
                      QVariantMap{{"command", engine.command},
                                  {"imports", qstrings(engine.imports)},
                                  {"device", QString::fromStdString(engine.device)}});
}

std::optional<std::set<std::string>> scopesFor(const QString& source) {
    QSettings settings;
    if (!settings.contains(scopesKey(source)))
        return std::nullopt;
    std::set<std::string> open;
    for (const QString& s : settings.value(scopesKey(source)).toStringList())
        open.insert(s.toStdString());
    return open;
}

void rememberScopes(const QString& source, const std::set<std::string>& open) {
    QSettings().setValue(scopesKey(source), qstrings({open.begin(), open.end()}));
}

bool weightsAsNodes() {
    return QSettings().value(kWeightsAsNodes).toBool();
}

void setWeightsAsNodes(bool on) {
    QSettings().setValue(kWeightsAsNodes, on);
}

QStringList opLibraries() {
    return QSettings().value(kOpLibraries).toStringList();
}

void addOpLibrary(const QString& path) {
    QStringList libraries = opLibraries();
    if (!libraries.contains(path))
        QSettings().setValue(kOpLibraries, libraries << path);
}

QString exportFolder(const QString& fallback) {
    return QSettings().value(kExportFolder, fallback).toString();
}

void setExportFolder(const QString& folder) {
    QSettings().setValue(kExportFolder, folder);
}

} // namespace fxview::settings
