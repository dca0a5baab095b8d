#include "workspaces/ReviewWorkspace.h"

#include "Vocabulary.h"
#include "dialogs/ExportDialog.h"
#include "dialogs/LabelingDialog.h"
#include "ledger/Ledger.h"
#include "media/RolloutExport.h"
#include "models/RunsModel.h"
#include "panels/BookmarksPanel.h"
#include "panels/EventsPanel.h"
#include "panels/ProvenancePanel.h"
#include "panels/VerdictPanel.h"
#include "player/FramePlayer.h"
#include "player/TracesPlot.h"
#include "queries/JudgmentQuery.h"
#include "queries/LatestRuns.h"
#include "queries/RolloutQuery.h"
#include "run/RunController.h"
#include "views/RunsView.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QInputDialog>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QProgressDialog>
#include <QSettings>
#include <QSplitter>
#include <QTableView>

#include <algorithm>
#include <random>

namespace kosmos::ui {

ReviewWorkspace::ReviewWorkspace(QWidget *window)
    : QObject(window), m_window(window), m_runsModel(new RunsModel(window)),
      m_runsView(new RunsView(m_runsModel, window)), m_player(new FramePlayer(window)),
      m_traces(new TracesPlot(window)), m_verdicts(new VerdictPanel(window)),
      m_provenance(new ProvenancePanel(window)), m_bookmarks(new BookmarksPanel(window)),
      m_events(new EventsPanel(window))
{
    buildPage();
    auto *bookmark = new QAction(tr("Bookmark this frame"), window);
    bookmark->setShortcut(QKeySequence(Qt::Key_B));
    connect(bookmark, &QAction::triggered, this, [this] {
        bool ok = false;
        const QString text = QInputDialog::getText(m_window, tr("Bookmark"), tr("Name:"),
                                                   QLineEdit::Normal, QString(), &ok);
        if (ok)
            addBookmark(text);
    });
    window->addAction(bookmark);
    connect(m_bookmarks, &BookmarksPanel::seekRequested, m_player, &FramePlayer::seek);
    connect(m_bookmarks, &BookmarksPanel::removeRequested, this, [this](qint64 id) {
        try {
            if (Ledger *w = writer())
                w->removeBookmark(id);
            refreshMarkers();
        } catch (const std::exception &e) {
            emit message(QString::fromUtf8(e.what()));
        }
    });
    connect(m_runsView, &RunsView::runSelected, this, &ReviewWorkspace::showRun);
    connect(m_player, &FramePlayer::positionChanged, m_traces, &TracesPlot::setCursor);
    connect(m_traces, &TracesPlot::seekRequested, m_player, &FramePlayer::seek);
    connect(m_verdicts, &VerdictPanel::seekRequested, m_player, &FramePlayer::seek);
    m_runsView->table()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_runsView->table(), &QWidget::customContextMenuRequested, this,
            &ReviewWorkspace::showRunsMenu);
    addPlaybackShortcuts();
}

ReviewWorkspace::~ReviewWorkspace() = default;

void ReviewWorkspace::buildPage()
{
    // A main window of its own (docks of its own, saved with its own state) inside the stack.
    m_page = new QMainWindow(nullptr);
    m_page->setWindowFlags(Qt::Widget);
    m_page->setObjectName(QStringLiteral("reviewWorkspace"));
    m_page->setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks |
                           QMainWindow::AllowNestedDocks);
    m_centre = new QSplitter(Qt::Vertical, m_page);
    m_centre->setObjectName(QStringLiteral("playerSplitter"));
    m_centre->addWidget(m_player);
    m_centre->addWidget(m_traces);
    m_centre->setStretchFactor(0, 3);
    m_centre->setStretchFactor(1, 2);
    m_centre->setChildrenCollapsible(false);
    m_page->setCentralWidget(m_centre);
    QDockWidget *runsDock = addDock(tr("Runs"), "runsDock", m_runsView, Qt::LeftDockWidgetArea);
    QDockWidget *verdictDock =
        addDock(tr("Verdicts"), "verdictDock", m_verdicts, Qt::RightDockWidgetArea);
    QDockWidget *provenanceDock =
        addDock(tr("Provenance"), "provenanceDock", m_provenance, Qt::RightDockWidgetArea);
    m_page->tabifyDockWidget(verdictDock, provenanceDock);
    verdictDock->raise();
    QDockWidget *bookmarksDock =
        addDock(tr("Bookmarks"), "bookmarksDock", m_bookmarks, Qt::LeftDockWidgetArea);
    QDockWidget *eventsDock = addDock(tr("Events"), "eventsDock", m_events, Qt::LeftDockWidgetArea);
    m_page->tabifyDockWidget(bookmarksDock, eventsDock);
    bookmarksDock->raise();
    // The first layout (no saved one): the player and traces get the middle and most of the
    // width; applied once the window is shown and laid out.
    m_firstLayout = [this, runsDock, verdictDock, bookmarksDock] {
        const int width = m_page->width();
        m_page->resizeDocks({runsDock, verdictDock}, {width * 34 / 100, width * 24 / 100},
                            Qt::Horizontal);
        m_page->resizeDocks({runsDock, bookmarksDock},
                            {m_page->height() * 3 / 4, m_page->height() / 4}, Qt::Vertical);
    };
}

QDockWidget *ReviewWorkspace::addDock(const QString &title, const char *objectName, QWidget *widget,
                                      int area)
{
    auto *dock = new QDockWidget(title, m_page);
    dock->setObjectName(QString::fromLatin1(objectName));
    dock->setWidget(widget);
    m_page->addDockWidget(static_cast<Qt::DockWidgetArea>(area), dock);
    return dock;
}

QList<QAction *> ReviewWorkspace::dockActions() const
{
    QList<QAction *> actions;
    for (QDockWidget *dock : m_page->findChildren<QDockWidget *>())
        actions << dock->toggleViewAction();
    return actions;
}

void ReviewWorkspace::addPlaybackShortcuts()
{
    // Playback keys work whenever the runs table, the player or the traces have focus, not only
    // after clicking the frame. Typing in a filter box keeps its keys.
    m_player->addPlaybackKeys({m_runsView->table(), m_centre});
}

// ---- the ledger shown --------------------------------------------------------------------------

void ReviewWorkspace::setLedger(Ledger *ledger)
{
    clear();
    m_ledger = ledger;
    m_writer.reset();
    m_lastError.clear();
    if (m_ledger)
        m_runsView->ledgerOpened(QString::fromStdString(m_ledger->bundle().string()));
}

void ReviewWorkspace::clear()
{
    m_currentRun = 0;
    m_judgeFrames.clear();
    m_failureFrames.clear();
    m_player->clear();
    m_traces->clear();
    m_verdicts->clear();
    m_provenance->clear();
    m_bookmarks->setEntries({});
    m_events->clear();
}

void ReviewWorkspace::refresh()
{
    if (!m_ledger)
        return;
    const qint64 current = m_currentRun;
    m_runsModel->refresh();
    m_runsView->reloadProtocols();
    if (current != 0) {
        const int row = m_runsModel->rowOfRun(current);
        if (row >= 0 && m_runsView->table()->currentIndex().row() != row)
            m_runsView->table()->selectRow(row);
        else
            showRun(current); // its verdict or provenance may have changed
    }
}

QString ReviewWorkspace::startFolder() const
{
    return m_startFolder ? m_startFolder() : QDir::homePath();
}

void ReviewWorkspace::fail(const QString &error)
{
    m_lastError = error;
    emit failed(error);
}

void ReviewWorkspace::selectRun(qint64 runId)
{
    const int row = m_runsModel->rowOfRun(runId);
    if (row >= 0)
        m_runsView->table()->selectRow(row);
    else
        showRun(runId);
}

void ReviewWorkspace::showRun(qint64 runId)
{
    if (!m_ledger)
        return;
    try {
        const RolloutView rollout = loadRollout(*m_ledger, runId);
        m_player->setRollout(m_ledger, rollout);
        m_traces->setRollout(rollout);
        m_verdicts->showRun(*m_ledger, runId, &rollout);
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
        m_events->showRun(m_ledger, runId);
        refreshMarkers();
        emit message(
            tr("run %1: %2 frames, %3 actions%4")
                .arg(runId)
                .arg(rollout.frames.size())
                .arg(rollout.actions.size())
                .arg(rollout.validationVerdict
                         ? tr(", validation %1")
                               .arg(valueText(QString::fromStdString(*rollout.validationVerdict)))
                         : QString()));
    } catch (const std::exception &e) {
        // A damaged ledger: show what can be shown, say what could not, never crash.
        fail(QString::fromUtf8(e.what()));
        emit message(tr("run %1 cannot be shown completely: %2").arg(runId).arg(m_lastError));
    }
}

QList<qint64> ReviewWorkspace::selectedRuns() const
{
    QList<int> rows;
    for (const QModelIndex &index : m_runsView->table()->selectionModel()->selectedRows())
        rows << index.row();
    std::sort(rows.begin(), rows.end());
    QList<qint64> runs;
    for (int row : rows)
        runs << m_runsModel->runIdAt(row);
    return runs;
}

QList<qint64> ReviewWorkspace::runsToActOn() const
{
    QList<qint64> runs = selectedRuns();
    if (runs.isEmpty() && m_currentRun > 0)
        runs << m_currentRun;
    return runs;
}

// ---- bookmarks ---------------------------------------------------------------------------------

Ledger *ReviewWorkspace::writer()
{
    if (!m_writer && m_ledger)
        m_writer =
            std::make_unique<Ledger>(Ledger::open(m_ledger->bundle(), {OpenMode::ReadWrite}));
    return m_writer.get();
}

bool ReviewWorkspace::addBookmark(const QString &text)
{
    if (!m_ledger || m_currentRun == 0)
        return false;
    try {
        writer()->addBookmark(m_currentRun, m_player->position(), text.toStdString(),
                              qEnvironmentVariable("USER").toStdString());
        refreshMarkers();
        return true;
    } catch (const std::exception &e) {
        fail(tr("The bookmark was not saved (the ledger cannot be written): %1")
                 .arg(QString::fromUtf8(e.what())));
        emit message(m_lastError);
        return false;
    }
}

void ReviewWorkspace::refreshMarkers()
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
    m_player->setMarkers(bookmarkFrames, m_judgeFrames, m_failureFrames);
}

// ---- what acts on the selected runs ------------------------------------------------------------

void ReviewWorkspace::showRunsMenu(const QPoint &pos)
{
    const QList<qint64> runs = selectedRuns();
    RunController *controller = m_controller ? m_controller() : nullptr;
    QMenu menu(m_window);
    QAction *compare = menu.addAction(runs.size() >= 2 ? tr("Compare the first two selected")
                                                       : tr("Compare with the same start"),
                                      this, &ReviewWorkspace::compareRequested);
    compare->setEnabled(!runs.isEmpty());
    menu.addAction(tr("Export %1 run(s)...").arg(runs.size()), this,
                   &ReviewWorkspace::exportSelectedDialog)
        ->setEnabled(!runs.isEmpty());
    QAction *retry =
        menu.addAction(tr("Retry the failed ones"), this, &ReviewWorkspace::retrySelectedFailed);
    retry->setEnabled(controller && !runs.isEmpty());
    menu.addAction(tr("Label blind..."), this, &ReviewWorkspace::labelClipsBlind)
        ->setEnabled(!runs.isEmpty());
    QAction *rejudge = menu.addAction(tr("Judge again with another judge..."), this, [this] {
        const QString config = QFileDialog::getOpenFileName(
            m_window, tr("A judge configuration (as kosmos-cli judge --judge takes)"),
            startFolder(), tr("Judge configurations (*.json)"));
        if (!config.isEmpty())
            rejudgeSelected(config);
    });
    rejudge->setEnabled(controller && !runs.isEmpty() && !controller->rejudging());
    menu.addAction(tr("Copy run keys"), this, &ReviewWorkspace::copySelectedRunKeys)
        ->setEnabled(!runs.isEmpty());
    menu.exec(m_runsView->table()->viewport()->mapToGlobal(pos));
}

void ReviewWorkspace::retrySelectedFailed()
{
    RunController *controller = m_controller ? m_controller() : nullptr;
    if (!controller)
        return;
    const int requeued = controller->retryFailed(selectedRuns(), 1);
    QString text =
        tr("%1 failed run(s) queued for a new attempt (their failed attempts stay recorded)")
            .arg(requeued);
    if (!controller->error().isEmpty())
        text += QStringLiteral(" - ") + controller->error();
    emit message(text);
    if (requeued > 0)
        emit runWorkspaceRequested();
}

bool ReviewWorkspace::rejudgeSelected(const QString &judgeConfig)
{
    const QList<qint64> runs = selectedRuns();
    RunController *controller = m_controller ? m_controller() : nullptr;
    if (!controller || !controller->rejudge(runs, judgeConfig)) {
        emit message(tr("Cannot judge again: %1")
                         .arg(controller ? controller->error() : tr("kosmos-cli was not found")));
        return false;
    }
    emit message(tr("Judging %1 run(s) again with %2...").arg(runs.size()).arg(judgeConfig));
    return true;
}

QString ReviewWorkspace::copySelectedRunKeys()
{
    if (!m_ledger)
        return {};
    QStringList keys;
    for (qint64 run : selectedRuns())
        if (const auto record = m_ledger->run(run))
            keys << QString::fromStdString(record->runKey);
    QString text = keys.join(QLatin1Char('\n'));
    QGuiApplication::clipboard()->setText(text);
    emit message(tr("%1 run key(s) copied").arg(keys.size()));
    return text;
}

void ReviewWorkspace::labelClipsBlind()
{
    if (!m_ledger)
        return;
    bool ok = false;
    const QString annotator = QInputDialog::getText(
        m_window, tr("Blind labeling"), tr("Annotator id:"), QLineEdit::Normal,
        QSettings()
            .value(QStringLiteral("labels/annotator"), qEnvironmentVariable("USER"))
            .toString(),
        &ok);
    if (!ok || annotator.trimmed().isEmpty())
        return;
    QSettings().setValue(QStringLiteral("labels/annotator"), annotator.trimmed());
    try {
        // Several runs selected in the runs table: label those (the judgeable ones among them).
        std::vector<std::int64_t> runs = judgeableRuns(*m_ledger);
        const QList<qint64> selected = selectedRuns();
        if (selected.size() > 1)
            std::erase_if(runs, [&](std::int64_t r) { return !selected.contains(r); });
        LabelingDialog dialog(*m_ledger, *writer(), std::move(runs), annotator.trimmed(),
                              std::random_device{}(), m_window);
        dialog.exec();
        emit message(tr("%1 human labels saved").arg(dialog.saved()));
    } catch (const std::exception &e) {
        fail(QString::fromUtf8(e.what()));
        emit message(tr("Labeling needs a writable ledger: %1").arg(m_lastError));
    }
    m_runsModel->refresh();
    emit labelsChanged();
}

// ---- exports -----------------------------------------------------------------------------------

void ReviewWorkspace::exportCurrentRunDialog()
{
    if (!m_ledger || m_currentRun == 0)
        return;
    ExportDialog dialog(1, startFolder(), m_window);
    if (dialog.exec() == QDialog::Accepted)
        exportRun(m_currentRun, dialog.folder(), dialog.options());
}

void ReviewWorkspace::exportSelectedDialog()
{
    const QList<qint64> runs = runsToActOn();
    if (!m_ledger || runs.isEmpty())
        return;
    ExportDialog dialog(static_cast<int>(runs.size()), startFolder(), m_window);
    if (dialog.exec() == QDialog::Accepted)
        exportRuns(runs, dialog.folder(), dialog.options());
}

int ReviewWorkspace::exportRuns(const QList<qint64> &runs, const QString &directory,
                                const ExportOptions &options)
{
    if (runs.size() == 1)
        return exportRun(runs.front(), directory, options) ? 1 : 0;
    int done = 0;
    for (qint64 run : runs) {
        if (!exportRun(run, QDir(directory).filePath(QStringLiteral("run-%1").arg(run)), options))
            break;
        ++done;
    }
    if (done == runs.size())
        emit message(tr("Exported %1 run(s) to %2, one folder each").arg(done).arg(directory));
    return done;
}

bool ReviewWorkspace::exportRun(qint64 runId, const QString &directory,
                                const ExportOptions &options)
{
    if (!m_ledger || runId == 0)
        return false;
    QProgressDialog progress(tr("Exporting run %1...").arg(runId), tr("Cancel"), 0, 100, m_window);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);
    try {
        const ExportResult r = exportRollout(*m_ledger, runId, directory.toStdString(), options,
                                             [&](int done, int total) {
                                                 progress.setMaximum(total);
                                                 progress.setValue(done);
                                                 QCoreApplication::processEvents();
                                                 return !progress.wasCanceled();
                                             });
        emit message(r.cancelled ? tr("Export cancelled after %1 frames").arg(r.frames)
                                 : tr("Exported %1 frames and %2 actions to %3")
                                       .arg(r.frames)
                                       .arg(r.actions)
                                       .arg(directory));
        return !r.cancelled;
    } catch (const std::exception &e) {
        fail(QString::fromUtf8(e.what()));
        emit message(tr("Export failed: %1").arg(m_lastError));
        return false;
    }
}

// ---- layout ------------------------------------------------------------------------------------

void ReviewWorkspace::restoreLayout(const QSettings &settings)
{
    // The saved docks are restored once the window is shown and laid out at its size (a state
    // restored before that keeps the docks' proportions, not their sizes); with none saved, the
    // first layout.
    if (const QByteArray state = settings.value(QStringLiteral("window/reviewState")).toByteArray();
        !state.isEmpty())
        m_firstLayout = [this, state] {
            m_page->restoreState(state); // unreadable: the default layout stays
        };
    m_centre->restoreState(settings.value(QStringLiteral("window/playerSplitter")).toByteArray());
    m_runsView->table()->horizontalHeader()->restoreState(
        settings.value(QStringLiteral("window/runsColumns")).toByteArray());
}

void ReviewWorkspace::applyFirstLayout(const QSize &size)
{
    if (!m_firstLayout)
        return;
    m_page->resize(size); // at the window's size before its docks are sized
    m_firstLayout();
    m_firstLayout = nullptr;
}

void ReviewWorkspace::rememberLayout()
{
    m_leftState = m_page->saveState();
}

void ReviewWorkspace::saveLayout(QSettings &settings, bool shown) const
{
    settings.setValue(QStringLiteral("window/reviewState"),
                      shown || m_leftState.isEmpty() ? m_page->saveState() : m_leftState);
    settings.setValue(QStringLiteral("window/playerSplitter"), m_centre->saveState());
    settings.setValue(QStringLiteral("window/runsColumns"),
                      m_runsView->table()->horizontalHeader()->saveState());
}

} // namespace kosmos::ui
