#include "workspaces/DatasetWorkspace.h"

#include "dataset/LeRobotDataset.h"
#include "media/LeRobotFrames.h"
#include "models/EpisodesModel.h"
#include "player/FramePlayer.h"
#include "player/TracesPlot.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QPointer>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <mutex>

namespace kosmos::ui {

// The episode shown: its rows and the frame cache over them. Shared with the player's frame
// source, so a decode in flight never outlives what it reads.
struct DatasetWorkspace::Shown
{
    std::shared_ptr<const LeRobotDataset> dataset;
    LeRobotEpisodeData data;
    RolloutView view; // what the player and traces show of it
    std::unique_ptr<LeRobotFrameCache> cache;
    std::mutex errorMutex;
    std::string error; // the first frame that could not be decoded
};

namespace {

QImage toImage(const cv::Mat &rgb)
{
    if (rgb.empty() || rgb.type() != CV_8UC3)
        return {};
    return QImage(rgb.data, rgb.cols, rgb.rows, static_cast<qsizetype>(rgb.step),
                  QImage::Format_RGB888)
        .copy();
}

// Every camera's frame of a row side by side, scaled to the first one's height.
cv::Mat sideBySide(const std::vector<cv::Mat> &frames)
{
    if (frames.size() == 1)
        return frames.front();
    const int height = frames.front().rows;
    std::vector<cv::Mat> row;
    for (const cv::Mat &f : frames) {
        if (f.rows == height) {
            row.push_back(f);
            continue;
        }
        cv::Mat scaled;
        cv::resize(f, scaled, cv::Size(std::max(1, f.cols * height / std::max(1, f.rows)), height),
                   0, 0, cv::INTER_AREA);
        row.push_back(scaled);
    }
    cv::Mat out;
    cv::hconcat(row, out);
    return out;
}

} // namespace

DatasetWorkspace::DatasetWorkspace(QWidget *window) : QObject(window), m_window(window)
{
    buildPage();
}

DatasetWorkspace::~DatasetWorkspace() = default;

void DatasetWorkspace::buildPage()
{
    m_page = new QMainWindow(m_window);
    m_page->setObjectName(QStringLiteral("datasetWorkspace"));
    m_page->setWindowFlags(Qt::Widget);
    m_page->setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    // The centre: what the dataset is (recorded, read in place), the camera, frames, traces.
    auto *centre = new QWidget(m_page);
    auto *layout = new QVBoxLayout(centre);
    layout->setContentsMargins(4, 4, 4, 0);
    auto *bar = new QHBoxLayout;
    m_note = new QLabel(centre);
    m_note->setObjectName(QStringLiteral("datasetNote"));
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(m_note, 1);
    bar->addWidget(new QLabel(tr("Camera:"), centre));
    m_cameras = new QComboBox(centre);
    m_cameras->setObjectName(QStringLiteral("datasetCamera"));
    m_cameras->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    bar->addWidget(m_cameras);
    layout->addLayout(bar);
    m_player = new FramePlayer(centre);
    m_traces = new TracesPlot(centre);
    m_centre = new QSplitter(Qt::Vertical, centre);
    m_centre->addWidget(m_player);
    m_centre->addWidget(m_traces);
    m_centre->setStretchFactor(0, 3);
    m_centre->setStretchFactor(1, 2);
    m_centre->setChildrenCollapsible(false);
    layout->addWidget(m_centre, 1);
    m_page->setCentralWidget(centre);
    connect(m_player, &FramePlayer::positionChanged, m_traces, &TracesPlot::setCursor);
    connect(m_traces, &TracesPlot::seekRequested, m_player, &FramePlayer::seek);
    connect(m_cameras, &QComboBox::currentIndexChanged, this, [this] { showFrames(); });

    // The episodes, with a filter over every column (task text, index, outcome).
    auto *episodes = new QWidget(m_page);
    auto *list = new QVBoxLayout(episodes);
    list->setContentsMargins(2, 2, 2, 2);
    m_filter = new QLineEdit(episodes);
    m_filter->setObjectName(QStringLiteral("episodeFilter"));
    m_filter->setPlaceholderText(tr("Filter episodes (task, index, outcome)"));
    m_filter->setClearButtonEnabled(true);
    list->addWidget(m_filter);
    m_model = new EpisodesModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(EpisodesModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table = new QTableView(episodes);
    m_table->setObjectName(QStringLiteral("episodesTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(0, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    list->addWidget(m_table, 1);
    m_count = new QLabel(episodes);
    list->addWidget(m_count);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_proxy->setFilterFixedString(text);
        m_count->setText(tr("%1 of %2 episodes").arg(m_proxy->rowCount()).arg(m_model->rowCount()));
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    showEpisode(current.data(Qt::UserRole).toLongLong());
            });
    auto *episodesDock = m_episodesDock = new QDockWidget(tr("Episodes"), m_page);
    episodesDock->setObjectName(QStringLiteral("episodesDock"));
    episodesDock->setWidget(episodes);
    episodesDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    m_page->addDockWidget(Qt::LeftDockWidgetArea, episodesDock);

    m_summary = new QLabel(m_page);
    m_summary->setObjectName(QStringLiteral("datasetSummary"));
    m_summary->setWordWrap(true);
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setMargin(6);
    auto *summaryDock = m_summaryDock = new QDockWidget(tr("Dataset"), m_page);
    summaryDock->setObjectName(QStringLiteral("datasetDock"));
    summaryDock->setWidget(m_summary);
    summaryDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    m_page->addDockWidget(Qt::RightDockWidgetArea, summaryDock);
    m_page->installEventFilter(this);

    m_player->addPlaybackKeys({m_table, m_centre});
    m_note->setText(tr("No dataset open: File > Open dataset..., or drop a LeRobot dataset "
                       "folder on the window."));
}

bool DatasetWorkspace::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_page && (event->type() == QEvent::Show || event->type() == QEvent::Resize) &&
        !m_fitted && m_page->isVisible())
        QTimer::singleShot(0, this, &DatasetWorkspace::fitDocks);
    return QObject::eventFilter(watched, event);
}

void DatasetWorkspace::fitDocks()
{
    if (m_fitted || !m_page->isVisible())
        return;
    m_fitted = true;
    // The episodes wide enough for their columns, the summary for its lines.
    const int width = m_page->width();
    m_page->resizeDocks({m_episodesDock, m_summaryDock},
                        {std::clamp(width * 3 / 10, 260, 480), std::clamp(width / 5, 200, 320)},
                        Qt::Horizontal);
}

QString DatasetWorkspace::folder() const
{
    return m_dataset ? QString::fromStdString(m_dataset->root().string()) : QString();
}

QString DatasetWorkspace::importCommand() const
{
    if (!m_dataset)
        return {};
    return QStringLiteral("kosmos-cli import --lerobot %1 --ledger NAME.kosmos").arg(folder());
}

void DatasetWorkspace::fail(const QString &error)
{
    m_lastError = error;
    emit message(error);
}

bool DatasetWorkspace::open(const QString &folder)
{
    std::shared_ptr<const LeRobotDataset> dataset;
    try {
        dataset =
            std::make_shared<const LeRobotDataset>(LeRobotDataset::open(folder.toStdString()));
    } catch (const std::exception &e) {
        fail(QString::fromUtf8(e.what()));
        return false;
    }
    close();
    m_dataset = dataset;
    m_lastError.clear();
    const LeRobotInfo &info = m_dataset->info();
    m_model->setDataset(m_dataset);
    m_table->resizeColumnsToContents();
    m_count->setText(tr("%1 episodes").arg(m_model->rowCount()));

    m_cameras->blockSignals(true);
    m_cameras->clear();
    const std::vector<std::string> cameras = info.cameras();
    for (const std::string &c : cameras)
        m_cameras->addItem(QString::fromStdString(c), QString::fromStdString(c));
    if (cameras.size() > 1) {
        m_cameras->addItem(tr("All cameras, side by side"), QString());
        // Side by side where the window is wide enough for them.
        if (m_page->width() >= 1000 && cameras.size() <= 3)
            m_cameras->setCurrentIndex(m_cameras->count() - 1);
    }
    m_cameras->setEnabled(!cameras.empty());
    m_cameras->blockSignals(false);

    QStringList features;
    for (const LeRobotFeature &f : info.features) {
        QStringList shape;
        for (std::int64_t d : f.shape)
            shape << QString::number(d);
        features << QStringLiteral("%1 (%2, [%3])")
                        .arg(QString::fromStdString(f.key), QString::fromStdString(f.dtype),
                             shape.join(QLatin1Char(',')));
    }
    m_summary->setText(
        tr("<b>%1</b><br>LeRobot %2, robot %3, %4 fps<br>%5 episodes, %6 frames, %7 tasks<br>"
           "Cameras: %8<br><br><b>Features</b><br>%9<br><br>Recorded data, read in place: "
           "nothing is written. To judge, label, evaluate or train on these episodes, import "
           "them as recorded runs:<br><tt>%10</tt>")
            .arg(folder.toHtmlEscaped(), QString::fromStdString(info.codebaseVersion),
                 QString::fromStdString(info.robotType.value_or("-")))
            .arg(info.fps)
            .arg(static_cast<qint64>(m_dataset->episodes().size()))
            .arg(info.totalFrames)
            .arg(static_cast<qint64>(m_dataset->tasks().size()))
            .arg(cameras.empty() ? tr("none") : QString::fromStdString([&] {
                std::string all;
                for (const std::string &c : cameras)
                    all += (all.empty() ? "" : ", ") + c;
                return all;
            }()))
            .arg(features.join(QStringLiteral("<br>"))
                     .toHtmlEscaped()
                     .replace(QStringLiteral("&lt;br&gt;"), QStringLiteral("<br>")),
                 importCommand().toHtmlEscaped()));
    emit opened(this->folder());
    if (m_proxy->rowCount() > 0)
        m_table->selectRow(0); // shows it (currentRowChanged)
    return true;
}

void DatasetWorkspace::close()
{
    m_player->releaseLedger(); // waits for a decode in flight
    m_player->clear();
    m_traces->clear();
    m_shown.reset();
    m_currentEpisode = -1;
    m_model->setDataset(nullptr);
    m_dataset.reset();
    m_cameras->clear();
    m_summary->clear();
    m_count->clear();
    m_note->setText(tr("No dataset open: File > Open dataset..., or drop a LeRobot dataset "
                       "folder on the window."));
}

bool DatasetWorkspace::showEpisode(qint64 episodeIndex)
{
    if (!m_dataset)
        return false;
    m_player->releaseLedger(); // nothing decodes the previous episode past this point
    auto shown = std::make_shared<Shown>();
    shown->dataset = m_dataset;
    try {
        shown->data = m_dataset->readEpisode(episodeIndex);
    } catch (const std::exception &e) {
        m_shown.reset();
        m_currentEpisode = episodeIndex;
        m_player->clear();
        m_traces->clear();
        fail(tr("Episode %1: %2").arg(episodeIndex).arg(QString::fromUtf8(e.what())));
        m_note->setText(m_lastError);
        return false;
    }
    shown->cache = std::make_unique<LeRobotFrameCache>(*m_dataset, shown->data);
    m_shown = shown;
    m_currentEpisode = episodeIndex;
    const int row = m_proxy->mapFromSource(m_model->index(m_model->rowOf(episodeIndex), 0)).row();
    if (row >= 0 && m_table->currentIndex().row() != row)
        m_table->selectRow(row);
    const LeRobotEpisode &e = m_dataset->episode(episodeIndex);
    QStringList tasks;
    for (const std::string &t : e.tasks)
        tasks << QString::fromStdString(t);
    m_note->setText(tr("Episode %1 of a recorded dataset (read-only, not a generated rollout): "
                       "%2 frames, \"%3\"")
                        .arg(episodeIndex)
                        .arg(shown->data.length())
                        .arg(tasks.join(QStringLiteral("; "))));
    shown->view = episodeRolloutView(*m_dataset, shown->data);
    m_traces->setRollout(shown->view);
    showFrames();
    return true;
}

void DatasetWorkspace::setCamera(const QString &camera)
{
    const int index = m_cameras->findData(camera);
    if (index >= 0)
        m_cameras->setCurrentIndex(index);
}

QString DatasetWorkspace::camera() const
{
    return m_cameras->currentData().toString();
}

void DatasetWorkspace::showFrames()
{
    if (!m_shown)
        return;
    const int position = m_player->position();
    std::vector<std::string> cameras;
    if (!camera().isEmpty())
        cameras.push_back(camera().toStdString());
    else
        cameras = m_dataset->info().cameras();
    std::shared_ptr<Shown> shown = m_shown;
    RolloutView view = shown->view;
    if (cameras.empty())
        view.frames.clear(); // a dataset without video: the traces only
    QPointer<DatasetWorkspace> self(this);
    m_player->setFrames(view, [shown, cameras, self](int frame) -> QImage {
        try {
            std::vector<cv::Mat> frames;
            frames.reserve(cameras.size());
            for (const std::string &c : cameras)
                frames.push_back(shown->cache->frame(c, frame));
            return toImage(sideBySide(frames));
        } catch (const std::exception &e) {
            std::lock_guard<std::mutex> lock(shown->errorMutex);
            if (shown->error.empty()) {
                shown->error = e.what();
                QMetaObject::invokeMethod(
                    qApp,
                    [self, text = QString::fromUtf8(e.what())] {
                        if (self)
                            emit self->message(text);
                    },
                    Qt::QueuedConnection);
            }
            return {};
        }
    });
    if (position > 0)
        m_player->seek(position);
}

bool DatasetWorkspace::exportEpisode(const QString &directory, bool video)
{
    if (!m_shown || m_dataset->info().cameras().empty()) {
        fail(tr("No episode with frames is shown"));
        return false;
    }
    const std::string cam =
        camera().isEmpty() ? m_dataset->info().cameras().front() : camera().toStdString();
    try {
        const LeRobotEpisodeExport out =
            exportLeRobotEpisode(*m_dataset, m_shown->data, cam, directory.toStdString(), video);
        emit message(tr("Episode %1: %2 frames (%3) and values.csv written to %4%5")
                         .arg(m_currentEpisode)
                         .arg(out.frames)
                         .arg(QString::fromStdString(cam), directory,
                              out.video.empty() ? QString()
                                                : tr(", video %1")
                                                      .arg(QString::fromStdString(
                                                          out.video.filename().string()))));
        return true;
    } catch (const std::exception &e) {
        fail(tr("Cannot export episode %1: %2").arg(m_currentEpisode).arg(e.what()));
        return false;
    }
}

void DatasetWorkspace::exportEpisodeDialog()
{
    if (!m_shown) {
        fail(tr("Choose an episode first"));
        return;
    }
    const QString dir = QFileDialog::getExistingDirectory(
        m_window, tr("Export episode %1 to a folder").arg(m_currentEpisode),
        QFileInfo(folder()).absolutePath());
    if (dir.isEmpty())
        return;
    exportEpisode(QDir(dir).filePath(QStringLiteral("episode-%1").arg(m_currentEpisode)), true);
}

} // namespace kosmos::ui
