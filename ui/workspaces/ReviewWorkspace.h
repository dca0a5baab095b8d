#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QAction;
class QDockWidget;
class QMainWindow;
class QPoint;
class QSettings;
class QSize;
class QSplitter;
class QWidget;

namespace kosmos {
class Ledger;
struct ExportOptions;
} // namespace kosmos

namespace kosmos::ui {

class BookmarksPanel;
class EventsPanel;
class FramePlayer;
class ProvenancePanel;
class RunController;
class RunsModel;
class RunsView;
class TracesPlot;
class VerdictPanel;

// The Review workspace's controller: its page (a main window of its own inside the window's
// stack: the player and traces in the middle, runs, verdicts, provenance, bookmarks and events
// as docks with their own saved layout), the run shown and the runs selected, the playback keys,
// bookmarks (the only records review writes, through a writable connection opened on the first
// one), blind labeling, exports, and the runs table's context menu. Reads the ledger the window
// owns; computes nothing itself. Compare, retry and re-judge act on its selection through the
// window and the run controller.
class ReviewWorkspace : public QObject
{
    Q_OBJECT
public:
    // `window` parents the page's widgets and the dialogs, and holds the window-wide shortcuts.
    explicit ReviewWorkspace(QWidget *window);
    ~ReviewWorkspace() override;

    QMainWindow *page() const { return m_page; }
    // The ledger now shown (owned by the window; nullptr: none). Every view is cleared first and
    // the writable connection of the previous ledger is dropped.
    void setLedger(Ledger *ledger);
    void clear(); // nothing of a ledger stays shown
    // Batches ended: the runs table and the run shown are read again.
    void refresh();
    // Where file dialogs start (the window's choice: the open ledger's folder, else recent).
    void setStartFolder(std::function<QString()> folder) { m_startFolder = std::move(folder); }
    // The run controller retry and re-judge go through (nullptr until kosmos-cli is found).
    void setRunController(std::function<RunController *()> controller)
    {
        m_controller = std::move(controller);
    }

    void selectRun(qint64 runId);
    void showRun(qint64 runId);
    qint64 currentRun() const { return m_currentRun; }
    QList<qint64> selectedRuns() const; // in table order
    // The selected runs, or the run shown when none is selected.
    QList<qint64> runsToActOn() const;

    bool addBookmark(const QString &text);
    bool exportRun(qint64 runId, const QString &directory, const ExportOptions &options);
    int exportRuns(const QList<qint64> &runs, const QString &directory,
                   const ExportOptions &options);
    void exportCurrentRunDialog();
    void exportSelectedDialog();
    void labelClipsBlind();
    QString copySelectedRunKeys();
    void retrySelectedFailed();
    bool rejudgeSelected(const QString &judgeConfig);
    QString lastError() const { return m_lastError; }

    // The docks' show/hide actions (for the View menu).
    QList<QAction *> dockActions() const;
    // Layout: the docks and the player/traces splitter, restored once the window is laid out at
    // its size (applyFirstLayout, from the window's first show), saved with the window's.
    void restoreLayout(const QSettings &settings);
    void applyFirstLayout(const QSize &size);
    void saveLayout(QSettings &settings, bool shown) const;
    void rememberLayout(); // when Review is left: a hidden page is not laid out again

    RunsModel *runsModel() const { return m_runsModel; }
    RunsView *runsView() const { return m_runsView; }
    FramePlayer *player() const { return m_player; }
    TracesPlot *traces() const { return m_traces; }
    VerdictPanel *verdicts() const { return m_verdicts; }
    ProvenancePanel *provenance() const { return m_provenance; }
    BookmarksPanel *bookmarks() const { return m_bookmarks; }
    EventsPanel *events() const { return m_events; }
    Ledger *writer(); // the writable connection, opened on first use

signals:
    void message(const QString &text); // for the status bar
    void failed(const QString &error); // what lastError() now says
    void compareRequested();           // compare the selection (the window's Compare workspace)
    void runWorkspaceRequested();      // failed runs were queued: show their progress
    void labelsChanged();              // human labels were added: evaluations read them again

private:
    void buildPage();
    QDockWidget *addDock(const QString &title, const char *objectName, QWidget *widget, int area);
    void addPlaybackShortcuts();
    void showRunsMenu(const QPoint &pos);
    void refreshMarkers();
    void fail(const QString &error);
    QString startFolder() const; // where file dialogs start

    QWidget *m_window;
    Ledger *m_ledger = nullptr;
    std::unique_ptr<Ledger> m_writer;
    std::function<RunController *()> m_controller;
    std::function<QString()> m_startFolder;
    qint64 m_currentRun = 0;
    QList<int> m_judgeFrames; // of the shown run, read once in showRun()
    QList<int> m_failureFrames;
    QMainWindow *m_page = nullptr;
    QSplitter *m_centre = nullptr;
    RunsModel *m_runsModel;
    RunsView *m_runsView;
    FramePlayer *m_player;
    TracesPlot *m_traces;
    VerdictPanel *m_verdicts;
    ProvenancePanel *m_provenance;
    BookmarksPanel *m_bookmarks;
    EventsPanel *m_events;
    std::function<void()> m_firstLayout; // the default dock sizes, or the saved ones, until shown
    QByteArray m_leftState;              // the docks when Review was last left
    QString m_lastError;
};

} // namespace kosmos::ui
