#pragma once
// File ▸ Open Remote…: a model on another machine. The person names the machine as ssh would
// (user@host:port, or an alias of ~/.ssh/config; the ones used before are offered) and a folder
// there; List shows the folder's subfolders and model files, read through ssh by the host's own
// shell. The result is the model's source, ssh://host/path, which the window opens with an
// engine on that machine (engineclient/RemoteEngine.h).

#include <QDialog>
#include <QProcess>
#include <QString>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace fxview {

class OpenRemoteDialog : public QDialog {
    Q_OBJECT
public:
    // `current`: the model open now (its machine and folder are offered when it is remote).
    explicit OpenRemoteDialog(QWidget* parent = nullptr, const QString& current = {});
    ~OpenRemoteDialog() override;

    // ssh://host/path of the model chosen ("" until one is).
    QString source() const;
    QComboBox* hostBox() const { return host_; }
    QLineEdit* folderEdit() const { return folder_; }
    QListWidget* entries() const { return entries_; }
    QLabel* statusLabel() const { return status_; }
    // Lists the folder named now (List, Return in the folder field).
    void list();
    void accept() override; // remembers the machine and the folder

signals:
    void listed(); // a listing ended, with entries or a sentence in statusLabel()

private:
    void finished(int code, QProcess::ExitStatus status);
    void activate(QListWidgetItem* item); // a folder opens, a model is chosen
    QString machine() const;              // "ssh://" + the host field
    QComboBox* host_;
    QLineEdit* folder_;
    QListWidget* entries_;
    QLabel* status_;
    QPushButton* listButton_;
    QProcess* listing_ = nullptr;
    QString listedFolder_; // the absolute folder the entries are in
    QString chosen_;
};

} // namespace fxview
