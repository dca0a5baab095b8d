#pragma once

#include <QObject>
#include <QString>

#include <memory>

class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMainWindow;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QWidget;

namespace kosmos {
class LeRobotDataset;
struct LeRobotEpisodeData;
class LeRobotFrameCache;
} // namespace kosmos

namespace kosmos::ui {

class EpisodesModel;
class FramePlayer;
class TracesPlot;

// The Dataset workspace's controller: a LeRobot dataset (v3.0 or v2.1) opened for review in
// place, read-only, without importing it (File > Open dataset..., a folder dropped on the
// window, `kosmos DIR`). Its page: the episodes (index, task, length, outcome fields) with a
// filter as a dock; the chosen camera, or every camera side by side, in the player; `action` and
// every other numeric feature (observation.state ...) in the traces, named from info.json; the
// same cursor, playback keys and export as a run's. Episodes are read when shown (core/dataset),
// frames decoded in blocks around the playhead (core/media/LeRobotFrames.h). Nothing here is a
// run: recorded data is labelled as such, and evaluating it goes through an import.
class DatasetWorkspace : public QObject
{
    Q_OBJECT
public:
    explicit DatasetWorkspace(QWidget *window);
    ~DatasetWorkspace() override;

    QMainWindow *page() const { return m_page; }
    // Reads the dataset's metadata and shows its first episode; false with lastError() (the
    // dataset shown before stays) when it cannot be read.
    bool open(const QString &folder);
    void close(); // nothing of a dataset stays shown
    bool isOpen() const { return m_dataset != nullptr; }
    QString folder() const;
    const LeRobotDataset *dataset() const { return m_dataset.get(); }
    QString lastError() const { return m_lastError; }

    // Shows an episode by its index in the dataset; false with lastError() when it cannot be
    // read (the table keeps it selected, the player and traces are cleared).
    bool showEpisode(qint64 episodeIndex);
    qint64 currentEpisode() const { return m_currentEpisode; }
    // A camera key, or "" for every camera side by side.
    void setCamera(const QString &camera);
    QString camera() const;
    // Writes the shown episode: frames as PNG (the camera shown), values as CSV (row, timestamp,
    // every numeric feature's values by name) and optionally an H.264 video.
    bool exportEpisode(const QString &directory, bool video);
    void exportEpisodeDialog();
    // The import command that makes the shown dataset's episodes into recorded runs.
    QString importCommand() const;

    EpisodesModel *episodesModel() const { return m_model; }
    QTableView *episodesTable() const { return m_table; }
    QLineEdit *filter() const { return m_filter; }
    QComboBox *cameraBox() const { return m_cameras; }
    FramePlayer *player() const { return m_player; }
    TracesPlot *traces() const { return m_traces; }
    QLabel *summary() const { return m_summary; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

signals:
    void message(const QString &text); // for the status bar
    void opened(const QString &folder);

private:
    struct Shown;
    void buildPage();
    void fail(const QString &error);
    void showFrames();
    void fitDocks(); // the episodes and the summary sized to the page, once it is shown

    QWidget *m_window;
    QMainWindow *m_page = nullptr;
    EpisodesModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
    QLineEdit *m_filter = nullptr;
    QLabel *m_count = nullptr;
    QComboBox *m_cameras = nullptr;
    QLabel *m_note = nullptr;
    QSplitter *m_centre = nullptr;
    FramePlayer *m_player = nullptr;
    TracesPlot *m_traces = nullptr;
    QLabel *m_summary = nullptr;
    QDockWidget *m_episodesDock = nullptr;
    QDockWidget *m_summaryDock = nullptr;
    bool m_fitted = false;
    std::shared_ptr<const LeRobotDataset> m_dataset;
    std::shared_ptr<Shown> m_shown; // the episode shown and its frames
    qint64 m_currentEpisode = -1;
    QString m_lastError;
};

} // namespace kosmos::ui
