#include "MainWindow.h"

#include "dataset/LeRobotDataset.h"
#include "dialogs/SettingsDialog.h"
#include "ledger/Ledger.h"
#include "media/RolloutExport.h"
#include "models/RunsModel.h"
#include "player/FramePlayer.h"
#include "queries/SameStart.h"
#include "run/RunController.h"
#include "util/Error.h"
#include "views/CompareView.h"
#include "views/EvaluationView.h"
#include "views/RunsView.h"
#include "workspaces/DatasetWorkspace.h"
#include "workspaces/ReviewWorkspace.h"
#include "workspaces/RunWorkspace.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>

#include <algorithm>
#include <functional>

#include <opencv2/core/version.hpp>
#include <sqlite3.h>

extern "C" {
#include <libavcodec/version.h>
#include <libavformat/version.h>
}

namespace kosmos::ui {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent), m_compare(new CompareView(this))
{
    setWindowTitle(tr("Kosmos Workstation"));
    setAcceptDrops(true);
    buildWorkspaces();

    buildFileMenu();
    auto *view = menuBar()->addMenu(tr("&View"));
    view->addActions(m_workspaces->actions());
    view->addSeparator();
    view->addActions(m_review->dockActions());
    view->addSeparator();
    view->addAction(tr("&Label clips blind..."), QKeySequence(Qt::CTRL | Qt::Key_L), m_review,
                    &ReviewWorkspace::labelClipsBlind);
    view->addAction(tr("&Compare the selected runs"),
                    QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this,
                    &MainWindow::compareSelected);
    view->addAction(tr("Compare with the same start in another &world"), this,
                    &MainWindow::compareWithTheSameStart);
    menuBar()->addMenu(m_runMenu);
    menuBar()->addMenu(tr("&Help"))->addAction(tr("&About Kosmos"), this, &MainWindow::showAbout);

    connect(m_evaluation, &EvaluationView::runActivated, this, [this](qint64 runId) {
        setWorkspace(Workspace::Review);
        selectRun(runId);
    });
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
    m_review->restoreLayout(settings);
    setWorkspace(static_cast<Workspace>(
        std::clamp(settings.value(QStringLiteral("window/workspace"), 0).toInt(), 0, 3)));
    fitToScreen(restored);
    rebuildRecentMenu();
    statusBar()->showMessage(tr("Open a ledger or a LeRobot dataset: File > Open, drag a "
                                "NAME.kosmos or dataset folder here, or pass it on the command "
                                "line."));
}

void MainWindow::buildWorkspaces()
{
    // Review: runs, player and traces, verdicts, provenance, bookmarks and events.
    m_review = new ReviewWorkspace(this);
    m_review->setStartFolder([this] { return startFolder(); });
    m_review->setRunController([this] { return runController(); });
    connect(m_review, &ReviewWorkspace::message, this,
            [this](const QString &text) { statusBar()->showMessage(text); });
    connect(m_review, &ReviewWorkspace::failed, this,
            [this](const QString &error) { m_lastError = error; });
    connect(m_review, &ReviewWorkspace::compareRequested, this, &MainWindow::compareSelected);
    connect(m_review, &ReviewWorkspace::runWorkspaceRequested, this,
            [this] { setWorkspace(Workspace::Run); });
    connect(m_review, &ReviewWorkspace::labelsChanged, this,
            [this] { m_evaluation->setLedger(m_ledger.get()); });

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
    connect(m_run, &RunWorkspace::retryRequested, m_review, &ReviewWorkspace::retrySelectedFailed);
    connect(m_run, &RunWorkspace::message, this,
            [this](const QString &text) { statusBar()->showMessage(text); });

    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_review->page());
    m_stack->addWidget(m_compare);
    m_stack->addWidget(m_evaluationScroll);
    m_stack->addWidget(m_run->page());
    // Dataset: a LeRobot dataset's episodes, read in place.
    m_dataset = new DatasetWorkspace(this);
    connect(m_dataset, &DatasetWorkspace::message, this,
            [this](const QString &text) { statusBar()->showMessage(text); });
    m_stack->addWidget(m_dataset->page());
    // Review's docks as last seen: a hidden Review is not laid out again when the window
    // changes, so quitting in another workspace saves this, not the hidden one's state.
    connect(m_stack, &QStackedWidget::currentChanged, this, [this](int index) {
        if (m_shownPage == static_cast<int>(Workspace::Review) &&
            index != static_cast<int>(Workspace::Review))
            m_review->rememberLayout();
        m_shownPage = index;
    });
    setCentralWidget(m_stack);
    buildWorkspaceBar();
}

void MainWindow::buildWorkspaceBar()
{
    auto *bar = new QToolBar(tr("Workspaces"), this);
    bar->setObjectName(QStringLiteral("workspaceBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    addToolBar(Qt::TopToolBarArea, bar);
    m_workspaces = new QActionGroup(this);
    m_workspaces->setExclusive(true);
    const QString names[] = {tr("&Review"), tr("&Compare"), tr("&Evaluate"), tr("R&un"),
                             tr("&Dataset")};
    const QString tips[] = {
        tr("Runs, frames and traces, verdicts, provenance, bookmarks and events"),
        tr("Two runs side by side on one timeline"),
        tr("Judge calibration, paired audit, policy ranking, fidelity"),
        tr("Batch progress: workers, shards, resources"),
        tr("A LeRobot dataset's episodes, cameras and traces, read in place (File > Open "
           "dataset...)")};
    for (int i = 0; i < 5; ++i) {
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
                !m_review->runsToActOn().isEmpty()) {
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

void MainWindow::buildFileMenu()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open ledger..."), QKeySequence::Open, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Open a ledger bundle (NAME.kosmos)"), startFolder());
        if (!dir.isEmpty())
            openLedger(dir);
    });
    file->addAction(tr("Open &dataset..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this,
                    [this] {
                        const QString dir = QFileDialog::getExistingDirectory(
                            this, tr("Open a LeRobot dataset (a folder with meta/info.json)"),
                            m_dataset->isOpen() ? QFileInfo(m_dataset->folder()).absolutePath()
                                                : startFolder());
                        if (!dir.isEmpty())
                            openDataset(dir);
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
        // In the Dataset workspace the same key exports the episode shown.
        if (workspace() == Workspace::Dataset)
            m_dataset->exportEpisodeDialog();
        else
            m_review->exportCurrentRunDialog();
    });
    file->addAction(tr("Export the &selected runs..."), m_review,
                    &ReviewWorkspace::exportSelectedDialog);
    file->addAction(tr("Export the shown e&pisode..."), m_dataset,
                    &DatasetWorkspace::exportEpisodeDialog);
    file->addSeparator();
    file->addAction(tr("&Settings..."), QKeySequence::Preferences, this,
                    [this] { SettingsDialog(this).exec(); });
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

QList<qint64> MainWindow::selectedRuns() const
{
    return m_review->selectedRuns();
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
    const qint64 run = runs.isEmpty() ? m_review->currentRun() : runs.front();
    if (run <= 0)
        return;
    try {
        m_compare->compareWithBest(*m_ledger, run);
    } catch (const std::exception &e) {
        statusBar()->showMessage(tr("Cannot compare: %1").arg(QString::fromUtf8(e.what())));
    }
    setWorkspace(Workspace::Compare);
}

bool MainWindow::rejudgeSelected(const QString &judgeConfig)
{
    return m_review->rejudgeSelected(judgeConfig);
}

QString MainWindow::copySelectedRunKeys()
{
    return m_review->copySelectedRunKeys();
}

void MainWindow::compareWithTheSameStart()
{
    const qint64 current = m_review->currentRun();
    if (!m_ledger || current <= 0)
        return;
    try {
        const auto matches = runsFromTheSameStart(*m_ledger, current);
        if (matches.empty()) {
            statusBar()->showMessage(
                tr("No completed run of the same instruction from the same start in another "
                   "world model."));
            return;
        }
        compareRuns(current, matches.front().runId);
        statusBar()->showMessage(tr("Run %1 beside run %2 in %3 (the same %4)")
                                     .arg(current)
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
    m_review->clear();
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
    m_review->refresh();
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
}

bool MainWindow::openDataset(const QString &path)
{
    if (!m_dataset->open(path)) {
        m_lastError = m_dataset->lastError();
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(path, m_lastError));
        if (QGuiApplication::platformName() != QLatin1String("offscreen")) {
            delete m_openError;
            m_openError = new QMessageBox(QMessageBox::Warning, tr("Cannot open dataset"),
                                          QStringLiteral("%1\n\n%2").arg(path, m_lastError),
                                          QMessageBox::Ok, this);
            m_openError->setAttribute(Qt::WA_DeleteOnClose);
            m_openError->open();
        }
        return false;
    }
    m_lastError.clear();
    const LeRobotDataset &d = *m_dataset->dataset();
    setWindowTitle(tr("%1 (dataset) - Kosmos Workstation")
                       .arg(QString::fromStdString(d.root().filename().string())));
    m_openedMessage =
        tr("%1: LeRobot %2 dataset, %3 episodes; read in place, read-only (import "
           "episodes to evaluate them)")
            .arg(m_dataset->folder(), QString::fromStdString(d.info().codebaseVersion))
            .arg(static_cast<qint64>(d.episodes().size()));
    statusBar()->showMessage(m_openedMessage);
    rememberRecent(path);
    setWorkspace(Workspace::Dataset);
    return true;
}

bool MainWindow::openLedger(const QString &path)
{
    // A LeRobot dataset folder opens as a dataset, read in place.
    if (LeRobotDataset::isDataset(path.toStdString()))
        return openDataset(path);
    try {
        // Everything that can refuse the new ledger before any view changes: a ledger that fails
        // to open leaves the one shown intact (title, runs, player, verdicts), never a mix.
        auto ledger =
            std::make_unique<Ledger>(Ledger::open(path.toStdString(), {OpenMode::ReadOnly}));
        ledger->info(); // reads every table the summary counts
        RunsModel *runs = m_review->runsModel();
        if (!runs->open(QString::fromStdString(ledger->readerUri()))) {
            const std::string why = runs->errorString().toStdString();
            if (m_ledger) // the runs model reads the previous ledger again
                runs->open(QString::fromStdString(m_ledger->readerUri()));
            throw Error(ErrorCode::Database, why);
        }
        releaseLedgerUsers(); // before the ledger they read is replaced
        resetViews();         // nothing of the previous ledger stays on screen
        m_ledger = std::move(ledger);
        m_review->setLedger(m_ledger.get());
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
        if (runs->rowCount() > 0)
            m_review->runsView()->table()->selectRow(0);
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
    m_review->selectRun(runId);
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
    return m_review->exportRun(m_review->currentRun(), directory,
                               ExportOptions{true, true, video, true});
}

int MainWindow::exportRuns(const QList<qint64> &runs, const QString &directory,
                           const ExportOptions &options)
{
    return m_review->exportRuns(runs, directory, options);
}

bool MainWindow::exportRun(qint64 runId, const QString &directory, const ExportOptions &options)
{
    return m_review->exportRun(runId, directory, options);
}

bool MainWindow::addBookmark(const QString &text)
{
    return m_review->addBookmark(text);
}

QMainWindow *MainWindow::reviewWorkspace() const
{
    return m_review->page();
}

RunsModel *MainWindow::runsModel() const
{
    return m_review->runsModel();
}

RunsView *MainWindow::runsView() const
{
    return m_review->runsView();
}

FramePlayer *MainWindow::player() const
{
    return m_review->player();
}

TracesPlot *MainWindow::traces() const
{
    return m_review->traces();
}

VerdictPanel *MainWindow::verdicts() const
{
    return m_review->verdicts();
}

ProvenancePanel *MainWindow::provenance() const
{
    return m_review->provenance();
}

BookmarksPanel *MainWindow::bookmarks() const
{
    return m_review->bookmarks();
}

EventsPanel *MainWindow::events() const
{
    return m_review->events();
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
    m_review->saveLayout(settings, workspace() == Workspace::Review);
    settings.setValue(QStringLiteral("window/workspace"), static_cast<int>(workspace()));
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
    if (!m_laidOut)
        QTimer::singleShot(0, this, [this] {
            if (m_laidOut)
                return;
            m_laidOut = true;
            layout()->activate(); // Review at the window's size before its docks are sized
            m_review->applyFirstLayout(m_stack->size());
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
