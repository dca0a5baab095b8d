#pragma once

#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>

#include <functional>
#include <memory>

class QActionGroup;
class QDockWidget;
class QLabel;
class QScrollArea;
class QSplitter;
class QStackedWidget;
class QTimer;

namespace kosmos {
class Ledger;
struct ExportOptions;
} // namespace kosmos

namespace kosmos::ui {

class BookmarksPanel;
class CompareView;
class DatasetWorkspace;
class EvaluationView;
class EventsPanel;
class FramePlayer;
class PluginCatalog;
class ProgressPanel;
class ProvenancePanel;
class ReviewWorkspace;
class RunController;
class RunWorkspace;
class RunsModel;
class RunsView;
class TracesPlot;
class VerdictPanel;

// Composes the workspaces; owns the read-only ledger connection they read. Computes nothing
// itself. Five workspaces, each with the whole window (a mode bar, Ctrl+1..5, remembered): Review
// (its controller: workspaces/ReviewWorkspace), Compare, Evaluate, Run (workspaces/RunWorkspace)
// and Dataset (a LeRobot dataset read in place: workspaces/DatasetWorkspace). The window holds the
// menus, the status bar, opening and creating ledgers, and the wiring between workspaces. Opening a
// ledger resets every view; finished runs refresh every view that depends on them.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    enum class Workspace
    {
        Review,
        Compare,
        Evaluate,
        Run,
        Dataset
    };
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens a bundle (or its ledger.sqlite) read-only. On failure the window stays usable, shows
    // why, and lastError() says it.
    // A LeRobot dataset folder given here opens in the Dataset workspace instead (openDataset).
    bool openLedger(const QString &path);
    // Opens a LeRobot dataset (v3.0 or v2.1) for review in place, read-only, in the Dataset
    // workspace; the ledger open stays open. False with lastError() when it cannot be read.
    bool openDataset(const QString &path);
    // Creates an empty ledger bundle (File > New ledger...) and opens it; never overwrites one.
    bool createLedger(const QString &path);
    QString lastError() const { return m_lastError; }
    // Dock positions, the player/traces splitter and the runs table's columns, kept in
    // QSettings on close and restored by the next window.
    void saveLayout() const;
    // Extra lines for Help > About (e.g. which plugins use libtorch), computed when asked.
    void setAboutExtras(std::function<QStringList()> extras) { m_aboutExtras = std::move(extras); }
    QString aboutText() const;
    void selectRun(qint64 runId);
    // Bookmarks the player's current frame; written through a separate writable connection
    // (annotations are the only records the workstation writes). False, with lastError(), when
    // the ledger cannot be written.
    bool addBookmark(const QString &text);
    // Exports the current run's frames (PNG), actions (CSV) and optionally a video with an
    // overlay, showing progress; false with lastError() on failure.
    bool exportCurrentRun(const QString &directory, bool video);
    // The chosen outputs of one run into `directory`, or of several, one folder each (run-N).
    bool exportRun(qint64 runId, const QString &directory, const ExportOptions &options);
    int exportRuns(const QList<qint64> &runs, const QString &directory,
                   const ExportOptions &options);
    // Shows two runs side by side on one timeline in the Compare workspace.
    void compareRuns(qint64 runA, qint64 runB);
    // The runs selected in the runs table, in table order.
    QList<qint64> selectedRuns() const;
    // Compare from the runs table: two selected runs side by side, or one with its best
    // candidate (another policy from the same start).
    void compareSelected();
    // Judges the selected runs' rollouts again with another judge configuration (JSON) in the
    // background (kosmos-cli judge); the status bar says when done. False when it cannot start.
    bool rejudgeSelected(const QString &judgeConfig);
    // Copies the selected runs' keys (one per line) to the clipboard; returns them.
    QString copySelectedRunKeys();
    void setWorkspace(Workspace workspace);
    Workspace workspace() const;
    QMainWindow *reviewWorkspace() const;
    ReviewWorkspace *review() const { return m_review; }
    DatasetWorkspace *datasetWorkspace() const { return m_dataset; }
    QWidget *workspaceWidget(Workspace workspace) const;
    // The ledger's run and artifact counts in the status bar (kept current after batches).
    QLabel *ledgerSummary() const { return m_ledgerSummary; }
    CompareView *compareView() const { return m_compare; }
    EvaluationView *evaluation() const { return m_evaluation; }
    BookmarksPanel *bookmarks() const;
    EventsPanel *events() const;

    RunsModel *runsModel() const;
    RunsView *runsView() const;
    FramePlayer *player() const;
    TracesPlot *traces() const;
    VerdictPanel *verdicts() const;
    ProvenancePanel *provenance() const;

    // Running rollouts (Run menu): kosmos-cli is the engine; without its path the menu says
    // why it is disabled.
    void setCliPath(const QString &cliPath);
    RunController *runController() const;
    PluginCatalog *pluginCatalog();
    ProgressPanel *progressPanel() const;
    enum class CloseChoice
    {
        CancelRuns,
        LeaveRunning,
        KeepOpen
    };
    // Asked on close while a batch is active (default: a message box); tests replace it.
    void setCloseQuestion(std::function<CloseChoice()> ask) { m_askOnClose = std::move(ask); }

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void releaseLedgerUsers(); // frame players let go of the ledger before it changes or goes
    void resetViews();         // nothing of the previous ledger stays shown
    void refreshAfterRuns();   // runs finished: every view that depends on them
    void updateLedgerSummary();
    void fitToScreen(bool restored);
    QString startFolder() const; // for file dialogs: the open ledger's folder, else home
    void rememberRecent(const QString &path);
    void rebuildRecentMenu();
    void showAbout();
    void buildWorkspaces();
    void buildWorkspaceBar();
    void buildFileMenu();
    void compareWithTheSameStart();

    std::unique_ptr<Ledger> m_ledger;
    ReviewWorkspace *m_review = nullptr; // the Review workspace's controller
    CompareView *m_compare;
    QStackedWidget *m_stack = nullptr;
    QActionGroup *m_workspaces = nullptr;
    EvaluationView *m_evaluation = nullptr;
    QScrollArea *m_evaluationScroll = nullptr;
    QLabel *m_ledgerSummary = nullptr;
    QTimer *m_refreshTimer = nullptr;
    bool m_laidOut = false; // Review's docks sized once, after the first show
    QMenu *m_recentMenu = nullptr;
    QString m_lastError;
    QPointer<QMessageBox> m_openError; // the last "Cannot open ledger", while it is shown
    QString m_openedMessage;
    int m_shownPage = 0; // the status bar's message of the opening, until something replaces it
    std::function<QStringList()> m_aboutExtras;
    std::function<CloseChoice()> m_askOnClose;
    QMenu *m_runMenu = nullptr;
    RunWorkspace *m_run = nullptr;         // the Run workspace's controller
    DatasetWorkspace *m_dataset = nullptr; // the Dataset workspace's controller
};

} // namespace kosmos::ui
