#include "MainWindow.h"

#include "dialogs/LabelingDialog.h"
#include "dialogs/SettingsDialog.h"
#include "ledger/Ledger.h"
#include "media/RolloutExport.h"
#include "models/RunsModel.h"
#include "panels/BookmarksPanel.h"
#include "panels/EventsPanel.h"
#include "panels/ProvenancePanel.h"
#include "panels/VerdictPanel.h"
#include "pipeline/Rejudge.h"
#include "player/FramePlayer.h"
#include "player/TracesPlot.h"
#include "queries/JudgmentQuery.h"
#include "queries/RolloutQuery.h"
#include "queries/SameStart.h"
#include "run/LauncherDialog.h"
#include "run/PluginCatalog.h"
#include "run/PluginManagerDialog.h"
#include "run/ProgressPanel.h"
#include "run/RunController.h"
#include "util/Error.h"
#include "views/CompareView.h"
#include "views/EvaluationView.h"
#include "views/RunsView.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>

#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <limits>
#include <random>

#include <opencv2/core/version.hpp>
#include <sqlite3.h>

extern "C" {
#include <libavcodec/version.h>
#include <libavformat/version.h>
}

namespace kosmos::ui {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_runsModel(new RunsModel(this)),
      m_runsView(new RunsView(m_runsModel, this)), m_player(new FramePlayer(this)),
      m_traces(new TracesPlot(this)), m_verdicts(new VerdictPanel(this)),
      m_provenance(new ProvenancePanel(this)), m_bookmarks(new BookmarksPanel(this)),
      m_events(new EventsPanel(this)), m_compare(new CompareView(this))
{
    setWindowTitle(tr("Kosmos Workstation"));
    setAcceptDrops(true);
    m_centre = new QSplitter(Qt::Vertical, this);
    m_centre->setObjectName(QStringLiteral("playerSplitter"));
    m_centre->addWidget(m_player);
    m_centre->addWidget(m_traces);
    m_centre->setStretchFactor(0, 3);
    m_centre->setStretchFactor(1, 2);
    setCentralWidget(m_centre);

    QDockWidget *runsDock = addDock(tr("Runs"), "runsDock", m_runsView, Qt::LeftDockWidgetArea);
    QDockWidget *verdictDock =
        addDock(tr("Verdicts"), "verdictDock", m_verdicts, Qt::RightDockWidgetArea);
    QDockWidget *provenanceDock =
        addDock(tr("Provenance"), "provenanceDock", m_provenance, Qt::RightDockWidgetArea);
    QDockWidget *bookmarksDock =
        addDock(tr("Bookmarks"), "bookmarksDock", m_bookmarks, Qt::LeftDockWidgetArea);
    QDockWidget *eventsDock =
        addDock(tr("Events"), "eventsDock", m_events, Qt::BottomDockWidgetArea);
    tabifyDockWidget(bookmarksDock, eventsDock);
    m_compareDock = addDock(tr("Compare"), "compareDock", m_compare, Qt::BottomDockWidgetArea);
    m_compareDock->hide();
    m_evaluation = new EvaluationView(this);
    m_evaluationDock =
        addDock(tr("Evaluation"), "evaluationDock", m_evaluation, Qt::BottomDockWidgetArea);
    m_evaluationDock->hide();
    connect(m_evaluation, &EvaluationView::runActivated, this, &MainWindow::selectRun);
    auto *bookmark = new QAction(tr("Bookmark this frame"), this);
    bookmark->setShortcut(QKeySequence(Qt::Key_B));
    connect(bookmark, &QAction::triggered, this, [this] {
        bool ok = false;
        const QString text = QInputDialog::getText(this, tr("Bookmark"), tr("Name:"),
                                                   QLineEdit::Normal, QString(), &ok);
        if (ok)
            addBookmark(text);
    });
    addAction(bookmark);
    connect(m_bookmarks, &BookmarksPanel::seekRequested, m_player, &FramePlayer::seek);
    connect(m_bookmarks, &BookmarksPanel::removeRequested, this, [this](qint64 id) {
        try {
            if (Ledger *w = writer())
                w->removeBookmark(id);
            refreshMarkers();
        } catch (const std::exception &e) {
            statusBar()->showMessage(QString::fromUtf8(e.what()));
        }
    });

    buildFileMenu();
    auto *view = menuBar()->addMenu(tr("&View"));
    view->addAction(runsDock->toggleViewAction());
    view->addAction(verdictDock->toggleViewAction());
    view->addAction(provenanceDock->toggleViewAction());
    view->addAction(bookmarksDock->toggleViewAction());
    view->addAction(eventsDock->toggleViewAction());
    view->addAction(tr("&Label clips blind..."), QKeySequence(Qt::CTRL | Qt::Key_L), this,
                    &MainWindow::labelClipsBlind);
    QAction *evaluationAction = m_evaluationDock->toggleViewAction();
    evaluationAction->setText(tr("&Evaluation (calibration, audit, ranking)"));
    view->addAction(evaluationAction);
    view->addAction(tr("&Compare with run..."), this, [this] {
        bool ok = false;
        const int other = QInputDialog::getInt(this, tr("Compare"),
                                               tr("Compare run %1 with run:").arg(m_currentRun), 1,
                                               1, std::numeric_limits<int>::max(), 1, &ok);
        if (ok)
            compareRuns(m_currentRun, other);
    });
    view->addAction(tr("Compare with the same start in another &world"), this,
                    &MainWindow::compareWithTheSameStart);
    m_runMenu = menuBar()->addMenu(tr("&Run"));
    m_runMenu->setEnabled(false);
    m_runMenu->setToolTip(tr("kosmos-cli, the engine that runs rollouts, was not found"));
    menuBar()->addMenu(tr("&Help"))->addAction(tr("&About Kosmos"), this, &MainWindow::showAbout);

    connect(m_runsView, &RunsView::runSelected, this, &MainWindow::showRun);
    connect(m_player, &FramePlayer::positionChanged, m_traces, &TracesPlot::setCursor);
    connect(m_traces, &TracesPlot::seekRequested, m_player, &FramePlayer::seek);
    connect(m_verdicts, &VerdictPanel::seekRequested, m_player, &FramePlayer::seek);

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_centre->restoreState(settings.value(QStringLiteral("window/playerSplitter")).toByteArray());
    m_runsView->table()->horizontalHeader()->restoreState(
        settings.value(QStringLiteral("window/runsColumns")).toByteArray());
    rebuildRecentMenu();
    statusBar()->showMessage(tr("Open a ledger: File > Open, drag a NAME.kosmos folder here, or "
                                "pass it on the command line."));
}

QDockWidget *MainWindow::addDock(const QString &title, const char *objectName, QWidget *widget,
                                 Qt::DockWidgetArea area)
{
    auto *dock = new QDockWidget(title, this);
    dock->setObjectName(QString::fromLatin1(objectName));
    dock->setWidget(widget);
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::buildFileMenu()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open ledger..."), QKeySequence::Open, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Open a ledger bundle (NAME.kosmos)"));
        if (!dir.isEmpty())
            openLedger(dir);
    });
    file->addAction(tr("&New ledger..."), this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("New ledger bundle (a folder NAME.kosmos)"),
                                         QString(), tr("Kosmos ledgers (*.kosmos)"));
        if (!path.isEmpty())
            createLedger(
                path.endsWith(QStringLiteral(".kosmos")) ? path : path + QStringLiteral(".kosmos"));
    });
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(tr("&Export current run..."), QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Export frames, actions and video to"));
        if (!dir.isEmpty())
            exportCurrentRun(dir, true);
    });
    file->addSeparator();
    file->addAction(tr("&Settings..."), QKeySequence::Preferences, this,
                    [this] { SettingsDialog(this).exec(); });
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

void MainWindow::labelClipsBlind()
{
    if (!m_ledger)
        return;
    bool ok = false;
    const QString annotator = QInputDialog::getText(
        this, tr("Blind labeling"), tr("Annotator id:"), QLineEdit::Normal,
        QSettings()
            .value(QStringLiteral("labels/annotator"), qEnvironmentVariable("USER"))
            .toString(),
        &ok);
    if (!ok || annotator.trimmed().isEmpty())
        return;
    QSettings().setValue(QStringLiteral("labels/annotator"), annotator.trimmed());
    try {
        LabelingDialog dialog(*m_ledger, *writer(), judgeableRuns(*m_ledger), annotator.trimmed(),
                              std::random_device{}(), this);
        dialog.exec();
        statusBar()->showMessage(tr("%1 human labels saved").arg(dialog.saved()));
    } catch (const std::exception &e) {
        m_lastError = QString::fromUtf8(e.what());
        statusBar()->showMessage(tr("Labeling needs a writable ledger: %1").arg(m_lastError));
    }
    m_runsModel->refresh();
    m_evaluation->setLedger(m_ledger.get());
}

void MainWindow::compareWithTheSameStart()
{
    if (!m_ledger || m_currentRun <= 0)
        return;
    try {
        const auto matches = runsFromTheSameStart(*m_ledger, m_currentRun);
        if (matches.empty()) {
            statusBar()->showMessage(
                tr("No completed run of the same instruction from the same start in another "
                   "world model."));
            return;
        }
        compareRuns(m_currentRun, matches.front().runId);
        statusBar()->showMessage(tr("Run %1 beside run %2 in %3 (the same %4)")
                                     .arg(m_currentRun)
                                     .arg(matches.front().runId)
                                     .arg(QString::fromStdString(matches.front().worldModel),
                                          matches.front().matchedBy == "seed"
                                              ? tr("episode seed")
                                              : tr("recorded start state")));
    } catch (const Error &e) {
        statusBar()->showMessage(tr("Cannot compare: %1").arg(QString::fromUtf8(e.what())));
    }
}

MainWindow::~MainWindow()
{
    // The players decode ahead on worker threads from the ledger's store: stop them before the
    // ledger (a member) goes, which is before the child widgets are deleted.
    releaseLedgerUsers();
}

void MainWindow::releaseLedgerUsers()
{
    for (FramePlayer *player : findChildren<FramePlayer *>())
        player->releaseLedger();
}

bool MainWindow::openLedger(const QString &path)
{
    try {
        auto ledger =
            std::make_unique<Ledger>(Ledger::open(path.toStdString(), {OpenMode::ReadOnly}));
        if (!m_runsModel->open(QString::fromStdString(ledger->databasePath().string())))
            throw Error(ErrorCode::Database, m_runsModel->errorString().toStdString());
        releaseLedgerUsers(); // before the ledger they read is replaced
        m_ledger = std::move(ledger);
        m_writer.reset();
        m_runsView->reloadProtocols();
        m_evaluation->setLedger(m_ledger.get());
        if (m_controller) {
            m_controller->setLedger(QString::fromStdString(m_ledger->bundle().string()));
            if (m_controller->active())
                m_progressDock->show(); // a batch still running from an earlier session
        }
        m_lastError.clear();
        const auto info = m_ledger->info();
        setWindowTitle(tr("%1 - Kosmos Workstation")
                           .arg(QString::fromStdString(m_ledger->bundle().filename().string())));
        statusBar()->showMessage(
            tr("%1: %2 runs, %3 artifacts; opened read-only (review never writes to the ledger)")
                .arg(QString::fromStdString(m_ledger->bundle().string()))
                .arg(info.runs)
                .arg(info.artifacts));
        rememberRecent(path);
        if (m_runsModel->rowCount() > 0)
            m_runsView->table()->selectRow(0);
        return true;
    } catch (const std::exception &e) {
        m_lastError = QString::fromUtf8(e.what());
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(path, m_lastError));
        if (QGuiApplication::platformName() != QLatin1String("offscreen"))
            QMessageBox::warning(this, tr("Cannot open ledger"), m_lastError);
        return false;
    }
}

bool MainWindow::createLedger(const QString &path)
{
    try {
        Ledger::create(path.toStdString());
    } catch (const std::exception &e) {
        m_lastError = QString::fromUtf8(e.what());
        statusBar()->showMessage(tr("Cannot create %1: %2").arg(path, m_lastError));
        return false;
    }
    return openLedger(path);
}

void MainWindow::selectRun(qint64 runId)
{
    const int row = m_runsModel->rowOfRun(runId);
    if (row >= 0)
        m_runsView->table()->selectRow(row);
    else
        showRun(runId);
}

void MainWindow::showRun(qint64 runId)
{
    if (!m_ledger)
        return;
    try {
        const RolloutView rollout = loadRollout(*m_ledger, runId);
        m_player->setRollout(m_ledger.get(), rollout);
        m_traces->setRollout(rollout);
        m_verdicts->showRun(*m_ledger, runId);
        m_provenance->showRun(*m_ledger, runId);
        m_currentRun = runId;
        m_failureFrames.clear();
        for (int f : rollout.validationFailureFrames)
            m_failureFrames << f;
        m_judgeFrames.clear();
        const auto judgments = judgmentsOfRun(*m_ledger, runId);
        if (!judgments.empty() && judgments.front().frameIndices.is_array())
            for (const auto &f : judgments.front().frameIndices)
                m_judgeFrames << f.get<int>();
        m_events->showRun(m_ledger.get(), runId);
        refreshMarkers();
        statusBar()->showMessage(
            tr("run %1: %2 frames, %3 actions%4")
                .arg(runId)
                .arg(rollout.frames.size())
                .arg(rollout.actions.size())
                .arg(rollout.validationVerdict
                         ? tr(", validation %1")
                               .arg(QString::fromStdString(*rollout.validationVerdict))
                         : QString()));
    } catch (const std::exception &e) {
        // A damaged ledger: show what can be shown, say what could not, never crash.
        m_lastError = QString::fromUtf8(e.what());
        statusBar()->showMessage(
            tr("run %1 cannot be shown completely: %2").arg(runId).arg(m_lastError));
    }
}

void MainWindow::compareRuns(qint64 runA, qint64 runB)
{
    if (!m_ledger)
        return;
    try {
        m_compare->compare(*m_ledger, runA, runB);
        m_compareDock->show();
    } catch (const std::exception &e) {
        m_lastError = QString::fromUtf8(e.what());
        statusBar()->showMessage(tr("Cannot compare: %1").arg(m_lastError));
    }
}

bool MainWindow::exportCurrentRun(const QString &directory, bool video)
{
    if (!m_ledger || m_currentRun == 0)
        return false;
    QProgressDialog progress(tr("Exporting run %1...").arg(m_currentRun), tr("Cancel"), 0, 100,
                             this);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);
    try {
        const ExportResult r = exportRollout(*m_ledger, m_currentRun, directory.toStdString(),
                                             video, true, [&](int done, int total) {
                                                 progress.setMaximum(total);
                                                 progress.setValue(done);
                                                 QCoreApplication::processEvents();
                                                 return !progress.wasCanceled();
                                             });
        statusBar()->showMessage(r.cancelled ? tr("Export cancelled after %1 frames").arg(r.frames)
                                             : tr("Exported %1 frames and %2 actions to %3")
                                                   .arg(r.frames)
                                                   .arg(r.actions)
                                                   .arg(directory));
        return !r.cancelled;
    } catch (const std::exception &e) {
        m_lastError = QString::fromUtf8(e.what());
        statusBar()->showMessage(tr("Export failed: %1").arg(m_lastError));
        return false;
    }
}

Ledger *MainWindow::writer()
{
    if (!m_writer && m_ledger)
        m_writer =
            std::make_unique<Ledger>(Ledger::open(m_ledger->bundle(), {OpenMode::ReadWrite}));
    return m_writer.get();
}

bool MainWindow::addBookmark(const QString &text)
{
    if (!m_ledger || m_currentRun == 0)
        return false;
    try {
        writer()->addBookmark(m_currentRun, m_player->position(), text.toStdString(),
                              qEnvironmentVariable("USER").toStdString());
        refreshMarkers();
        return true;
    } catch (const std::exception &e) {
        m_lastError = tr("The bookmark was not saved (the ledger cannot be written): %1")
                          .arg(QString::fromUtf8(e.what()));
        statusBar()->showMessage(m_lastError);
        return false;
    }
}

void MainWindow::refreshMarkers()
{
    if (!m_ledger || m_currentRun == 0)
        return;
    QList<BookmarksPanel::Entry> entries;
    QList<int> bookmarkFrames;
    // A fresh read: the writer connection may have just added or removed one.
    for (const BookmarkRecord &b : m_ledger->bookmarks(m_currentRun)) {
        entries.append({b.annotationId, static_cast<int>(b.frameIndex.value_or(0)),
                        QString::fromStdString(b.text)});
        bookmarkFrames << static_cast<int>(b.frameIndex.value_or(0));
    }
    m_bookmarks->setEntries(entries);
    m_traces->setMarkers(bookmarkFrames, m_judgeFrames, m_failureFrames);
}

void MainWindow::rememberRecent(const QString &path)
{
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recentLedgers")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 8)
        recent.removeLast();
    settings.setValue(QStringLiteral("recentLedgers"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    for (const QString &path : QSettings().value(QStringLiteral("recentLedgers")).toStringList())
        m_recentMenu->addAction(path, this, [this, path] { openLedger(path); });
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

QString MainWindow::aboutText() const
{
    QString text =
        tr("<b>Kosmos Workstation %1</b><br>Auditable evaluation of robot policies through learned "
           "world models.<br><br>Qt %2<br>SQLite %3<br>OpenCV %4<br>FFmpeg libavformat %5, "
           "libavcodec %6")
            .arg(QStringLiteral(KOSMOS_VERSION), QString::fromLatin1(qVersion()),
                 QString::fromLatin1(sqlite3_libversion()), QStringLiteral(CV_VERSION),
                 QStringLiteral(AV_STRINGIFY(LIBAVFORMAT_VERSION)),
                 QStringLiteral(AV_STRINGIFY(LIBAVCODEC_VERSION)));
    const QStringList extras = m_aboutExtras ? m_aboutExtras() : QStringList();
    for (const QString &line : extras)
        text += QStringLiteral("<br>") + line.toHtmlEscaped();
    return text;
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Kosmos"), aboutText());
}

void MainWindow::saveLayout() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/playerSplitter"), m_centre->saveState());
    settings.setValue(QStringLiteral("window/runsColumns"),
                      m_runsView->table()->horizontalHeader()->saveState());
}

void MainWindow::setCliPath(const QString &cliPath)
{
    m_evaluation->setCliPath(cliPath);
    if (m_controller)
        return;
    m_controller = new RunController(cliPath, this);
    m_progress = new ProgressPanel(*m_controller, this);
    m_progressDock = new QDockWidget(tr("Batch progress"), this);
    m_progressDock->setObjectName(QStringLiteral("progressDock"));
    m_progressDock->setWidget(m_progress);
    addDockWidget(Qt::BottomDockWidgetArea, m_progressDock);
    m_progressDock->hide();
    m_runMenu->setEnabled(true);
    m_runMenu->setToolTip(QString());
    m_runMenu->addAction(tr("&New batch..."), QKeySequence::New, this, [this] {
        if (!m_ledger) {
            statusBar()->showMessage(
                tr("Open or create a ledger first (kosmos-cli init NAME.kosmos)."));
            return;
        }
        LauncherDialog dialog(*pluginCatalog(), *m_controller, this);
        if (dialog.exec() == QDialog::Accepted)
            m_progressDock->show();
    });
    m_runMenu->addAction(tr("&Plugins..."), this, [this] {
        PluginManagerDialog dialog(*pluginCatalog(), this);
        dialog.exec();
    });
    m_runMenu->addAction(m_progressDock->toggleViewAction());
    m_runMenu->addAction(tr("&Cancel batch"), this, [this] { m_controller->cancelBatch(); });
    m_runMenu->addAction(tr("&Retry selected failed runs"), this, [this] {
        QList<qint64> runIds;
        for (const QModelIndex &index : m_runsView->table()->selectionModel()->selectedRows())
            runIds << m_runsModel->runIdAt(index.row());
        const int requeued = m_controller->retryFailed(runIds, 1);
        QString message = tr("%1 failed run(s) queued for a new attempt (their failed attempts "
                             "stay recorded)")
                              .arg(requeued);
        if (!m_controller->error().isEmpty())
            message += QStringLiteral(" - ") + m_controller->error();
        statusBar()->showMessage(message);
        if (requeued > 0)
            m_progressDock->show();
    });
    connect(m_controller, &RunController::runsFinished, this, [this] {
        const qint64 current = m_currentRun;
        m_runsModel->refresh();
        if (current != 0) {
            const int row = m_runsModel->rowOfRun(current);
            if (row >= 0)
                m_runsView->table()->selectRow(row);
        }
    });
    connect(m_progress, &ProgressPanel::runActivated, this, &MainWindow::selectRun);
    if (m_ledger) {
        m_controller->setLedger(QString::fromStdString(m_ledger->bundle().string()));
        if (m_controller->active())
            m_progressDock->show();
    }
}

PluginCatalog *MainWindow::pluginCatalog()
{
    if (!m_catalog && m_controller) {
        m_catalog = new PluginCatalog(m_controller->cliPath(), this);
    }
    if (m_catalog && m_catalog->plugins().isEmpty())
        m_catalog->reload();
    return m_catalog;
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_controller && m_controller->active()) {
        const CloseChoice choice = m_askOnClose ? m_askOnClose() : [this] {
            QMessageBox box(QMessageBox::Question, tr("Runs are still going"),
                            tr("A batch is still running in worker processes. Cancel its runs, "
                               "or leave them running (the next launch shows their progress)?"),
                            QMessageBox::NoButton, this);
            auto *cancel = box.addButton(tr("Cancel the runs"), QMessageBox::DestructiveRole);
            auto *leave = box.addButton(tr("Leave them running"), QMessageBox::AcceptRole);
            box.addButton(tr("Don't close"), QMessageBox::RejectRole);
            box.exec();
            const QAbstractButton *clicked = box.clickedButton();
            return clicked == cancel  ? CloseChoice::CancelRuns
                   : clicked == leave ? CloseChoice::LeaveRunning
                                      : CloseChoice::KeepOpen;
        }();
        if (choice == CloseChoice::KeepOpen) {
            event->ignore();
            return;
        }
        if (choice == CloseChoice::CancelRuns)
            m_controller->cancelBatch();
    }
    saveLayout();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty())
        openLedger(urls.first().toLocalFile());
}

} // namespace kosmos::ui
