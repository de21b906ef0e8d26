#include "window/OpenRemoteDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

#include "engineclient/RemoteEngine.h"
#include "session/SessionSettings.h"

namespace fxview {

namespace {
// A listing's output past this is no listing.
constexpr qint64 kLargestListing = 8 << 20;
// Entries' roles: whether an item is a folder, and its name.
constexpr int kIsFolder = Qt::UserRole, kName = Qt::UserRole + 1;
} // namespace

OpenRemoteDialog::OpenRemoteDialog(QWidget* parent, const QString& current) : QDialog(parent) {
    setWindowTitle("Open Remote Model");
    host_ = new QComboBox;
    host_->setEditable(true);
    host_->addItems(settings::remoteHosts());
    host_->lineEdit()->setPlaceholderText("user@host:port, or a Host of ~/.ssh/config");
    folder_ = new QLineEdit(settings::remoteFolder(host_->currentText()));
    folder_->setPlaceholderText("~ (the home folder there), or /path/to/models");
    if (folder_->text().isEmpty())
        folder_->setText("~");
    listButton_ = new QPushButton("&List");
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(folder_);
    folderRow->addWidget(listButton_);
    auto* form = new QFormLayout;
    form->addRow("&Machine:", host_);
    auto* folderLabel = new QLabel("&Folder:");
    folderLabel->setBuddy(folder_);
    form->addRow(folderLabel, folderRow);
    entries_ = new QListWidget;
    status_ = new QLabel("The model runs there, on that machine's Python and PyTorch; only its "
                         "graph and the values you look at cross the connection.");
    status_->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(entries_, 1);
    layout->addWidget(status_);
    layout->addWidget(buttons);
    resize(560, 420);

    // The model open now, if it is on another machine: its machine and folder first.
    QString ignored;
    if (const auto where =
            isRemoteSource(current) ? parseRemoteSource(current, ignored) : std::nullopt) {
        host_->setEditText(where->shown());
        folder_->setText(where->path.section('/', 0, -2));
    }

    connect(listButton_, &QPushButton::clicked, this, &OpenRemoteDialog::list);
    connect(folder_, &QLineEdit::returnPressed, this, &OpenRemoteDialog::list);
    connect(host_, &QComboBox::currentTextChanged, this, [this](const QString& host) {
        const QString folder = settings::remoteFolder(host);
        if (!folder.isEmpty())
            folder_->setText(folder);
    });
    connect(entries_, &QListWidget::itemActivated, this, &OpenRemoteDialog::activate);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (QListWidgetItem* item = entries_->currentItem())
            activate(item);
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

OpenRemoteDialog::~OpenRemoteDialog() {
    if (listing_)
        listing_->kill();
}

QString OpenRemoteDialog::machine() const {
    return "ssh://" + host_->currentText().trimmed();
}

QString OpenRemoteDialog::source() const {
    return chosen_;
}

void OpenRemoteDialog::list() {
    QString error;
    const std::optional<RemoteLocation> where = parseRemoteSource(machine(), error);
    const QStringList command =
        where ? remoteListCommand(*where, folder_->text().trimmed(), error) : QStringList();
    if (command.isEmpty()) {
        status_->setText(error.replace("ssh://", "") + ".");
        emit listed();
        return;
    }
    if (listing_) {
        listing_->disconnect(this);
        listing_->kill();
        listing_->deleteLater();
    }
    entries_->clear();
    status_->setText("Listing " + folder_->text() + " on " + where->shown() + "…");
    listing_ = new QProcess(this);
    listing_->setStandardInputFile(QProcess::nullDevice());
    connect(listing_, &QProcess::readyReadStandardOutput, this, [this] {
        if (listing_->bytesAvailable() > kLargestListing)
            listing_->kill();
    });
    connect(listing_, &QProcess::finished, this, &OpenRemoteDialog::finished);
    connect(listing_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            status_->setText("ssh could not be started (" + listing_->errorString() +
                             "): install OpenSSH's client, or name one in FXVIEW_SSH.");
            emit listed();
        }
    });
    listing_->start(command.front(), command.mid(1));
}

void OpenRemoteDialog::finished(int code, QProcess::ExitStatus status) {
    const QByteArray output = listing_->readAllStandardOutput();
    const QString said = QString::fromUtf8(listing_->readAllStandardError()).trimmed();
    listing_->deleteLater();
    listing_ = nullptr;
    QString error;
    std::optional<RemoteFolder> folder;
    if (status == QProcess::NormalExit && code == 0)
        folder = parseRemoteListing(output, error);
    if (!folder) {
        const QString why = said.isEmpty() ? error : said.split('\n').last();
        status_->setText(code == 3
                             ? "There is no folder " + folder_->text() + " there (" + why + ")."
                             : "The folder could not be listed: " + why + ".");
        emit listed();
        return;
    }
    listedFolder_ = folder->path;
    folder_->setText(folder->path);
    auto add = [this](const QString& shown, const QString& name, bool isFolder) {
        auto* item = new QListWidgetItem(shown, entries_);
        item->setData(kIsFolder, isFolder);
        item->setData(kName, name);
        item->setIcon(style()->standardIcon(isFolder ? QStyle::SP_DirIcon : QStyle::SP_FileIcon));
    };
    if (folder->path != "/")
        add("..", "..", true);
    for (const QString& name : folder->folders)
        add(name + "/", name, true);
    for (const QString& name : folder->models)
        add(name, name, false);
    status_->setText(QString("%1 model files in %2.").arg(folder->models.size()).arg(folder->path));
    emit listed();
}

void OpenRemoteDialog::activate(QListWidgetItem* item) {
    const QString name = item->data(kName).toString();
    const QString base = listedFolder_ == "/" ? QString() : listedFolder_;
    if (item->data(kIsFolder).toBool()) {
        folder_->setText(name == ".."
                             ? base.section('/', 0, -2, QString::SectionSkipEmpty).prepend('/')
                             : base + "/" + name);
        return list();
    }
    chosen_ = machine() + base + "/" + name;
    accept();
}

void OpenRemoteDialog::accept() {
    if (chosen_.isEmpty())
        return;
    settings::rememberRemote(host_->currentText().trimmed(), listedFolder_);
    QDialog::accept();
}

} // namespace fxview
