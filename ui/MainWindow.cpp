#include "MainWindow.h"

#include "Vocabulary.h"
#include "dialogs/ExportDialog.h"
#include "dialogs/LabelingDialog.h"
#include "dialogs/SettingsDialog.h"
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
#include "queries/SameStart.h"
#include "run/RunController.h"
#include "util/Error.h"
#include "views/CompareView.h"
#include "views/EvaluationView.h"
#include "views/RunsView.h"
#include "workspaces/RunWorkspace.h"

#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressDialog>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>

#include <algorithm>
#include <functional>
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
    buildWorkspaces();
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
    view->addActions(m_workspaces->actions());
    view->addSeparator();
    for (QDockWidget *dock : m_review->findChildren<QDockWidget *>())
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("&Label clips blind..."), QKeySequence(Qt::CTRL | Qt::Key_L), this,
                    &MainWindow::labelClipsBlind);
    view->addAction(tr("&Compare the selected runs"),
                    QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this,
                    &MainWindow::compareSelected);
    view->addAction(tr("Compare with the same start in another &world"), this,
                    &MainWindow::compareWithTheSameStart);
    menuBar()->addMenu(m_runMenu);
    menuBar()->addMenu(tr("&Help"))->addAction(tr("&About Kosmos"), this, &MainWindow::showAbout);

    connect(m_runsView, &RunsView::runSelected, this, &MainWindow::showRun);
    connect(m_player, &FramePlayer::positionChanged, m_traces, &TracesPlot::setCursor);
    connect(m_traces, &TracesPlot::seekRequested, m_player, &FramePlayer::seek);
    connect(m_verdicts, &VerdictPanel::seekRequested, m_player, &FramePlayer::seek);
    connect(m_evaluation, &EvaluationView::runActivated, this, [this](qint64 runId) {
        setWorkspace(Workspace::Review);
        selectRun(runId);
    });
    m_runsView->table()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_runsView->table(), &QWidget::customContextMenuRequested, this,
            &MainWindow::showRunsMenu);
    addPlaybackShortcuts();
    // Finished runs refresh the views that depend on them, at most once a second.
    m_refreshTimer = new QTimer(this);
    m_refreshTimer->setSingleShot(true);
    m_refreshTimer->setInterval(1000);
    connect(m_refreshTimer, &QTimer::timeout, this, &MainWindow::refreshAfterRuns);
    connect(m_run, &RunWorkspace::runsFinished, m_refreshTimer, qOverload<>(&QTimer::start));

    m_ledgerSummary = new QLabel(this);
    m_ledgerSummary->setObjectName(QStringLiteral("ledgerSummary"));
    statusBar()->addPermanentWidget(m_ledgerSummary);
    QSettings settings;
    const QByteArray geometry = settings.value(QStringLiteral("window/geometry")).toByteArray();
    const bool restored = !geometry.isEmpty() && restoreGeometry(geometry);
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    // Review's saved docks are restored once the window is shown and laid out at its size (a
    // state restored before that keeps the docks' proportions, not their sizes); with none
    // saved, the first layout.
    if (const QByteArray reviewState =
            settings.value(QStringLiteral("window/reviewState")).toByteArray();
        !reviewState.isEmpty())
        m_firstLayout = [this, reviewState] {
            layout()->activate(); // Review at the window's size before its docks are sized
            m_review->resize(m_stack->size());
            m_review->restoreState(reviewState); // unreadable: the default layout stays
        };
    m_centre->restoreState(settings.value(QStringLiteral("window/playerSplitter")).toByteArray());
    m_runsView->table()->horizontalHeader()->restoreState(
        settings.value(QStringLiteral("window/runsColumns")).toByteArray());
    setWorkspace(static_cast<Workspace>(
        std::clamp(settings.value(QStringLiteral("window/workspace"), 0).toInt(), 0, 3)));
    fitToScreen(restored);
    rebuildRecentMenu();
    statusBar()->showMessage(tr("Open a ledger: File > Open, drag a NAME.kosmos folder here, or "
                                "pass it on the command line."));
}

void MainWindow::buildWorkspaces()
{
    // Review: its own main window (docks of its own, saved with its own state) inside the stack.
    m_review = new QMainWindow(nullptr);
    m_review->setWindowFlags(Qt::Widget);
    m_review->setObjectName(QStringLiteral("reviewWorkspace"));
    m_review->setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks |
                             QMainWindow::AllowNestedDocks);
    m_centre = new QSplitter(Qt::Vertical, m_review);
    m_centre->setObjectName(QStringLiteral("playerSplitter"));
    m_centre->addWidget(m_player);
    m_centre->addWidget(m_traces);
    m_centre->setStretchFactor(0, 3);
    m_centre->setStretchFactor(1, 2);
    m_centre->setChildrenCollapsible(false);
    m_review->setCentralWidget(m_centre);
    QDockWidget *runsDock = addDock(tr("Runs"), "runsDock", m_runsView, Qt::LeftDockWidgetArea);
    QDockWidget *verdictDock =
        addDock(tr("Verdicts"), "verdictDock", m_verdicts, Qt::RightDockWidgetArea);
    QDockWidget *provenanceDock =
        addDock(tr("Provenance"), "provenanceDock", m_provenance, Qt::RightDockWidgetArea);
    m_review->tabifyDockWidget(verdictDock, provenanceDock);
    verdictDock->raise();
    QDockWidget *bookmarksDock =
        addDock(tr("Bookmarks"), "bookmarksDock", m_bookmarks, Qt::LeftDockWidgetArea);
    QDockWidget *eventsDock = addDock(tr("Events"), "eventsDock", m_events, Qt::LeftDockWidgetArea);
    m_review->tabifyDockWidget(bookmarksDock, eventsDock);
    bookmarksDock->raise();
    // The first layout (no saved one): the player and traces get the middle and most of the
    // width; applied once the window is shown and laid out.
    m_firstLayout = [this, runsDock, verdictDock, bookmarksDock] {
        const int width = m_review->width();
        m_review->resizeDocks({runsDock, verdictDock}, {width * 34 / 100, width * 24 / 100},
                              Qt::Horizontal);
        m_review->resizeDocks({runsDock, bookmarksDock},
                              {m_review->height() * 3 / 4, m_review->height() / 4}, Qt::Vertical);
    };

    // Evaluate: scrolls instead of forcing its height on the window.
    m_evaluation = new EvaluationView(this);
    m_evaluationScroll = new QScrollArea(this);
    m_evaluationScroll->setObjectName(QStringLiteral("evaluateWorkspace"));
    m_evaluationScroll->setWidgetResizable(true);
    m_evaluationScroll->setFrameShape(QFrame::NoFrame);
    m_evaluationScroll->setWidget(m_evaluation);
    m_compare->setObjectName(QStringLiteral("compareWorkspace"));

    // Run: the batch progress, and what starts a batch (its controller: workspaces/RunWorkspace).
    m_runMenu = new QMenu(tr("&Run"), this);
    m_run = new RunWorkspace(this, m_runMenu);
    m_run->setLedgerBundle([this] {
        return m_ledger ? QString::fromStdString(m_ledger->bundle().string()) : QString();
    });
    connect(m_run, &RunWorkspace::showRequested, this, [this] { setWorkspace(Workspace::Run); });
    connect(m_run, &RunWorkspace::runActivated, this, [this](qint64 runId) {
        setWorkspace(Workspace::Review);
        selectRun(runId);
    });
    connect(m_run, &RunWorkspace::retryRequested, this, &MainWindow::retrySelectedFailed);
    connect(m_run, &RunWorkspace::message, this,
            [this](const QString &text) { statusBar()->showMessage(text); });

    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_review);
    m_stack->addWidget(m_compare);
    m_stack->addWidget(m_evaluationScroll);
    m_stack->addWidget(m_run->page());
    // Review's docks as last seen: a hidden Review is not laid out again when the window
    // changes, so quitting in another workspace saves this, not the hidden one's state.
    connect(m_stack, &QStackedWidget::currentChanged, this, [this](int index) {
        if (m_shownPage == static_cast<int>(Workspace::Review) &&
            index != static_cast<int>(Workspace::Review))
            m_reviewState = m_review->saveState();
        m_shownPage = index;
    });
    setCentralWidget(m_stack);

    auto *bar = new QToolBar(tr("Workspaces"), this);
    bar->setObjectName(QStringLiteral("workspaceBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    addToolBar(Qt::TopToolBarArea, bar);
    m_workspaces = new QActionGroup(this);
    m_workspaces->setExclusive(true);
    const QString names[] = {tr("&Review"), tr("&Compare"), tr("&Evaluate"), tr("R&un")};
    const QString tips[] = {
        tr("Runs, frames and traces, verdicts, provenance, bookmarks and events"),
        tr("Two runs side by side on one timeline"),
        tr("Judge calibration, paired audit, policy ranking, fidelity"),
        tr("Batch progress: workers, shards, resources")};
    for (int i = 0; i < 4; ++i) {
        QAction *a = bar->addAction(names[i]);
        a->setCheckable(true);
        a->setData(i);
        a->setToolTip(tips[i]);
        a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
        m_workspaces->addAction(a);
        // Switched by click or Ctrl+1..4: no focus frame that reads as a second checked tab.
        if (QWidget *button = bar->widgetForAction(a))
            button->setFocusPolicy(Qt::NoFocus);
        connect(a, &QAction::triggered, this, [this, i] {
            // Compare opened with a run chosen in Review shows that run (#35: it stayed empty,
            // "Choose a run in Review", with one chosen); a comparison already on screen stays.
            if (static_cast<Workspace>(i) == Workspace::Compare && m_compare->runA() == 0 &&
                (m_currentRun > 0 || !selectedRuns().isEmpty())) {
                compareSelected();
                return;
            }
            setWorkspace(static_cast<Workspace>(i));
        });
    }
}

void MainWindow::setWorkspace(Workspace workspace)
{
    const int index = static_cast<int>(workspace);
    m_stack->setCurrentIndex(index);
    m_workspaces->actions().at(index)->setChecked(true);
}

MainWindow::Workspace MainWindow::workspace() const
{
    return static_cast<Workspace>(m_stack->currentIndex());
}

QWidget *MainWindow::workspaceWidget(Workspace workspace) const
{
    return m_stack->widget(static_cast<int>(workspace));
}

void MainWindow::fitToScreen(bool restored)
{
    const QScreen *screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    if (!screen)
        return;
    const QRect available = screen->availableGeometry();
    if (!restored) {
        // First start: most of the screen, centred.
        resize(available.size() * 0.9);
        move(available.center() - rect().center());
        return;
    }
    // A geometry saved on a larger screen (or another monitor) must not push the window off.
    const QSize size = this->size().boundedTo(available.size());
    if (size != this->size())
        resize(size);
    if (!available.contains(frameGeometry().topLeft()) ||
        !available.contains(frameGeometry().bottomRight()))
        move(std::clamp(x(), available.left(),
                        std::max(available.left(), available.right() - width())),
             std::clamp(y(), available.top(),
                        std::max(available.top(), available.bottom() - height())));
}

QString MainWindow::startFolder() const
{
    if (m_ledger)
        return QString::fromStdString(m_ledger->bundle().parent_path().string());
    const QStringList recent = QSettings().value(QStringLiteral("recentLedgers")).toStringList();
    if (!recent.isEmpty())
        return QFileInfo(recent.first()).absolutePath();
    return QDir::homePath();
}

void MainWindow::addPlaybackShortcuts()
{
    // Playback keys work whenever the runs table, the player or the traces have focus (a widget
    // shortcut context over those), not only after clicking the frame. Typing in a filter box
    // keeps its keys: line edits claim them first.
    struct Key
    {
        QKeySequence key;
        std::function<void()> run;
    };
    const QList<Key> keys = {
        {QKeySequence(Qt::Key_Space), [this] { m_player->togglePlay(); }},
        {QKeySequence(Qt::Key_Right), [this] { m_player->step(1); }},
        {QKeySequence(Qt::Key_Left), [this] { m_player->step(-1); }},
        {QKeySequence(Qt::SHIFT | Qt::Key_Right), [this] { m_player->step(10); }},
        {QKeySequence(Qt::SHIFT | Qt::Key_Left), [this] { m_player->step(-10); }},
        {QKeySequence(Qt::Key_Home), [this] { m_player->seek(0); }},
        {QKeySequence(Qt::Key_End), [this] { m_player->seek(m_player->frameCount() - 1); }},
    };
    for (const Key &k : keys) {
        auto *action = new QAction(this);
        action->setShortcut(k.key);
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(action, &QAction::triggered, this, k.run);
        m_runsView->table()->addAction(action);
        m_centre->addAction(action);
    }
}

QDockWidget *MainWindow::addDock(const QString &title, const char *objectName, QWidget *widget,
                                 Qt::DockWidgetArea area)
{
    auto *dock = new QDockWidget(title, m_review);
    dock->setObjectName(QString::fromLatin1(objectName));
    dock->setWidget(widget);
    m_review->addDockWidget(area, dock);
    return dock;
}

void MainWindow::buildFileMenu()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open ledger..."), QKeySequence::Open, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Open a ledger bundle (NAME.kosmos)"), startFolder());
        if (!dir.isEmpty())
            openLedger(dir);
    });
    file->addAction(tr("&New ledger..."), this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("New ledger bundle (a folder NAME.kosmos)"),
                                         startFolder(), tr("Kosmos ledgers (*.kosmos)"));
        if (!path.isEmpty())
            createLedger(
                path.endsWith(QStringLiteral(".kosmos")) ? path : path + QStringLiteral(".kosmos"));
    });
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(tr("&Export current run..."), QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] {
        if (!m_ledger || m_currentRun == 0)
            return;
        ExportDialog dialog(1, startFolder(), this);
        if (dialog.exec() == QDialog::Accepted)
            exportRun(m_currentRun, dialog.folder(), dialog.options());
    });
    file->addAction(tr("Export the &selected runs..."), this, &MainWindow::exportSelected);
    file->addSeparator();
    file->addAction(tr("&Settings..."), QKeySequence::Preferences, this,
                    [this] { SettingsDialog(this).exec(); });
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

QList<qint64> MainWindow::selectedRuns() const
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

void MainWindow::compareSelected()
{
    if (!m_ledger)
        return;
    const QList<qint64> runs = selectedRuns();
    if (runs.size() >= 2) {
        compareRuns(runs[0], runs[1]);
        if (runs.size() > 2)
            statusBar()->showMessage(
                tr("Compare shows two runs: the first two of the %1 selected").arg(runs.size()));
        return;
    }
    const qint64 run = runs.isEmpty() ? m_currentRun : runs.front();
    if (run <= 0)
        return;
    try {
        m_compare->compareWithBest(*m_ledger, run);
    } catch (const std::exception &e) {
        statusBar()->showMessage(tr("Cannot compare: %1").arg(QString::fromUtf8(e.what())));
    }
    setWorkspace(Workspace::Compare);
}

void MainWindow::retrySelectedFailed()
{
    if (!runController())
        return;
    const int requeued = runController()->retryFailed(selectedRuns(), 1);
    QString message =
        tr("%1 failed run(s) queued for a new attempt (their failed attempts stay recorded)")
            .arg(requeued);
    if (!runController()->error().isEmpty())
        message += QStringLiteral(" - ") + runController()->error();
    statusBar()->showMessage(message);
    if (requeued > 0)
        setWorkspace(Workspace::Run);
}

bool MainWindow::rejudgeSelected(const QString &judgeConfig)
{
    const QList<qint64> runs = selectedRuns();
    if (!runController() || !runController()->rejudge(runs, judgeConfig)) {
        statusBar()->showMessage(
            tr("Cannot judge again: %1")
                .arg(runController() ? runController()->error() : tr("kosmos-cli was not found")));
        return false;
    }
    statusBar()->showMessage(
        tr("Judging %1 run(s) again with %2...").arg(runs.size()).arg(judgeConfig));
    return true;
}

QString MainWindow::copySelectedRunKeys()
{
    if (!m_ledger)
        return {};
    QStringList keys;
    for (qint64 run : selectedRuns())
        if (const auto record = m_ledger->run(run))
            keys << QString::fromStdString(record->runKey);
    QString text = keys.join(QLatin1Char('\n'));
    QGuiApplication::clipboard()->setText(text);
    statusBar()->showMessage(tr("%1 run key(s) copied").arg(keys.size()));
    return text;
}

void MainWindow::exportSelected()
{
    QList<qint64> runs = selectedRuns();
    if (runs.isEmpty() && m_currentRun > 0)
        runs << m_currentRun;
    if (!m_ledger || runs.isEmpty())
        return;
    ExportDialog dialog(static_cast<int>(runs.size()), startFolder(), this);
    if (dialog.exec() == QDialog::Accepted)
        exportRuns(runs, dialog.folder(), dialog.options());
}

void MainWindow::showRunsMenu(const QPoint &pos)
{
    const QList<qint64> runs = selectedRuns();
    QMenu menu(this);
    QAction *compare = menu.addAction(runs.size() >= 2 ? tr("Compare the first two selected")
                                                       : tr("Compare with the same start"),
                                      this, &MainWindow::compareSelected);
    compare->setEnabled(!runs.isEmpty());
    menu.addAction(tr("Export %1 run(s)...").arg(runs.size()), this, &MainWindow::exportSelected)
        ->setEnabled(!runs.isEmpty());
    QAction *retry =
        menu.addAction(tr("Retry the failed ones"), this, &MainWindow::retrySelectedFailed);
    retry->setEnabled(runController() && !runs.isEmpty());
    menu.addAction(tr("Label blind..."), this, &MainWindow::labelClipsBlind)
        ->setEnabled(!runs.isEmpty());
    QAction *rejudge = menu.addAction(tr("Judge again with another judge..."), this, [this] {
        const QString config = QFileDialog::getOpenFileName(
            this, tr("A judge configuration (as kosmos-cli judge --judge takes)"), startFolder(),
            tr("Judge configurations (*.json)"));
        if (!config.isEmpty())
            rejudgeSelected(config);
    });
    rejudge->setEnabled(runController() && !runs.isEmpty() && !runController()->rejudging());
    menu.addAction(tr("Copy run keys"), this, &MainWindow::copySelectedRunKeys)
        ->setEnabled(!runs.isEmpty());
    menu.exec(m_runsView->table()->viewport()->mapToGlobal(pos));
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
        // Several runs selected in the runs table: label those (the judgeable ones among them).
        std::vector<std::int64_t> runs = judgeableRuns(*m_ledger);
        const QList<qint64> selected = selectedRuns();
        if (selected.size() > 1)
            std::erase_if(runs, [&](std::int64_t r) { return !selected.contains(r); });
        LabelingDialog dialog(*m_ledger, *writer(), std::move(runs), annotator.trimmed(),
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

void MainWindow::resetViews()
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
    m_compare->clear();
}

void MainWindow::updateLedgerSummary()
{
    if (!m_ledger) {
        m_ledgerSummary->clear();
        return;
    }
    try {
        const auto info = m_ledger->info();
        m_ledgerSummary->setText(
            tr("%1: %2 runs, %3 artifacts")
                .arg(QString::fromStdString(m_ledger->bundle().filename().string()))
                .arg(info.runs)
                .arg(info.artifacts));
    } catch (const std::exception &e) {
        m_ledgerSummary->setText(tr("ledger cannot be read: %1").arg(QString::fromUtf8(e.what())));
    }
}

void MainWindow::refreshAfterRuns()
{
    if (!m_ledger)
        return;
    const qint64 current = m_currentRun;
    m_runsModel->refresh();
    m_runsView->reloadProtocols();
    m_evaluation->setLedger(m_ledger.get()); // recomputed now if shown, else when next shown
    updateLedgerSummary();
    // The message of the opening counted the runs then: it says the counts of now, not "0 runs".
    if (!m_openedMessage.isEmpty() && statusBar()->currentMessage() == m_openedMessage) {
        try {
            const auto info = m_ledger->info();
            m_openedMessage = tr("%1: %2 runs, %3 artifacts, as the batch writes them; read "
                                 "here read-only")
                                  .arg(QString::fromStdString(m_ledger->bundle().string()))
                                  .arg(info.runs)
                                  .arg(info.artifacts);
            statusBar()->showMessage(m_openedMessage);
        } catch (const std::exception &) {
            statusBar()->clearMessage(); // the summary label says why it cannot be read
        }
    }
    if (current != 0) {
        const int row = m_runsModel->rowOfRun(current);
        if (row >= 0 && m_runsView->table()->currentIndex().row() != row)
            m_runsView->table()->selectRow(row);
        else
            showRun(current); // its verdict or provenance may have changed
    }
}

bool MainWindow::openLedger(const QString &path)
{
    try {
        // Everything that can refuse the new ledger before any view changes: a ledger that fails
        // to open leaves the one shown intact (title, runs, player, verdicts), never a mix.
        auto ledger =
            std::make_unique<Ledger>(Ledger::open(path.toStdString(), {OpenMode::ReadOnly}));
        ledger->info(); // reads every table the summary counts
        if (!m_runsModel->open(QString::fromStdString(ledger->readerUri()))) {
            const std::string why = m_runsModel->errorString().toStdString();
            if (m_ledger) // the runs model reads the previous ledger again
                m_runsModel->open(QString::fromStdString(m_ledger->readerUri()));
            throw Error(ErrorCode::Database, why);
        }
        releaseLedgerUsers(); // before the ledger they read is replaced
        resetViews();         // nothing of the previous ledger stays on screen
        m_ledger = std::move(ledger);
        m_writer.reset();
        m_runsView->ledgerOpened(QString::fromStdString(m_ledger->bundle().string()));
        m_evaluation->setLedger(m_ledger.get());
        if (m_run->setLedger(QString::fromStdString(m_ledger->bundle().string())))
            setWorkspace(Workspace::Run); // a batch still running from an earlier session
        m_lastError.clear();
        updateLedgerSummary();
        const auto info = m_ledger->info();
        setWindowTitle(tr("%1 - Kosmos Workstation")
                           .arg(QString::fromStdString(m_ledger->bundle().filename().string())));
        m_openedMessage =
            tr("%1: %2 runs, %3 artifacts; opened read-only (review never writes to the ledger)")
                .arg(QString::fromStdString(m_ledger->bundle().string()))
                .arg(info.runs)
                .arg(info.artifacts);
        statusBar()->showMessage(m_openedMessage);
        rememberRecent(path);
        if (m_runsModel->rowCount() > 0)
            m_runsView->table()->selectRow(0);
        return true;
    } catch (const std::exception &e) {
        m_lastError = QString::fromUtf8(e.what());
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(path, m_lastError));
        // Said once, in a window that does not block (the ledger shown stays usable behind it);
        // one at a time, however many opens fail.
        if (QGuiApplication::platformName() != QLatin1String("offscreen")) {
            delete m_openError;
            m_openError = new QMessageBox(QMessageBox::Warning, tr("Cannot open ledger"),
                                          QStringLiteral("%1\n\n%2").arg(path, m_lastError),
                                          QMessageBox::Ok, this);
            m_openError->setAttribute(Qt::WA_DeleteOnClose);
            m_openError->open();
        }
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
        m_events->showRun(m_ledger.get(), runId);
        refreshMarkers();
        statusBar()->showMessage(
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
        setWorkspace(Workspace::Compare);
    } catch (const std::exception &e) {
        m_lastError = QString::fromUtf8(e.what());
        statusBar()->showMessage(tr("Cannot compare: %1").arg(m_lastError));
    }
}

bool MainWindow::exportCurrentRun(const QString &directory, bool video)
{
    return exportRun(m_currentRun, directory, ExportOptions{true, true, video, true});
}

int MainWindow::exportRuns(const QList<qint64> &runs, const QString &directory,
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
        statusBar()->showMessage(
            tr("Exported %1 run(s) to %2, one folder each").arg(done).arg(directory));
    return done;
}

bool MainWindow::exportRun(qint64 runId, const QString &directory, const ExportOptions &options)
{
    if (!m_ledger || runId == 0)
        return false;
    QProgressDialog progress(tr("Exporting run %1...").arg(runId), tr("Cancel"), 0, 100, this);
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
    m_player->setMarkers(bookmarkFrames, m_judgeFrames, m_failureFrames);
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
    settings.setValue(QStringLiteral("window/reviewState"),
                      workspace() == Workspace::Review || m_reviewState.isEmpty()
                          ? m_review->saveState()
                          : m_reviewState);
    settings.setValue(QStringLiteral("window/workspace"), static_cast<int>(workspace()));
    settings.setValue(QStringLiteral("window/playerSplitter"), m_centre->saveState());
    settings.setValue(QStringLiteral("window/runsColumns"),
                      m_runsView->table()->horizontalHeader()->saveState());
}

void MainWindow::setCliPath(const QString &cliPath)
{
    m_evaluation->setCliPath(cliPath);
    m_run->setCliPath(cliPath);
}

RunController *MainWindow::runController() const
{
    return m_run->controller();
}

ProgressPanel *MainWindow::progressPanel() const
{
    return m_run->progress();
}

PluginCatalog *MainWindow::pluginCatalog()
{
    return m_run->pluginCatalog();
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (m_firstLayout)
        QTimer::singleShot(0, this, [this] {
            if (m_firstLayout)
                m_firstLayout();
            m_firstLayout = nullptr;
        });
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (runController() && runController()->active()) {
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
            runController()->cancelBatch();
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
