#include "models/EpisodesModel.h"

#include "dataset/LeRobotDataset.h"

namespace kosmos::ui {

namespace {
// Episode, frames, seconds, one column per outcome field, then the task (the widest, last).
enum Column
{
    Episode,
    Frames,
    Seconds,
    FirstOutcome
};

QString taskText(const LeRobotEpisode &e)
{
    QStringList tasks;
    for (const std::string &t : e.tasks)
        tasks << QString::fromStdString(t);
    return tasks.join(QStringLiteral("; "));
}

bool isSuccess(const std::string &key)
{
    return key.find("success") != std::string::npos;
}
} // namespace

EpisodesModel::EpisodesModel(QObject *parent) : QAbstractTableModel(parent) {}

void EpisodesModel::setDataset(std::shared_ptr<const LeRobotDataset> dataset)
{
    beginResetModel();
    m_dataset = std::move(dataset);
    m_outcomes = m_dataset ? m_dataset->outcomeKeys() : std::vector<std::string>{};
    endResetModel();
}

int EpisodesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_dataset ? 0 : static_cast<int>(m_dataset->episodes().size());
}

int EpisodesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FirstOutcome + static_cast<int>(m_outcomes.size()) + 1;
}

int EpisodesModel::rowOf(qint64 episodeIndex) const
{
    if (!m_dataset)
        return -1;
    const auto &episodes = m_dataset->episodes();
    for (std::size_t i = 0; i < episodes.size(); ++i)
        if (episodes[i].index == episodeIndex)
            return static_cast<int>(i);
    return -1;
}

QVariant EpisodesModel::data(const QModelIndex &index, int role) const
{
    if (!m_dataset || !index.isValid() || index.row() >= rowCount())
        return {};
    const LeRobotEpisode &e = m_dataset->episodes()[static_cast<std::size_t>(index.row())];
    if (role == Qt::UserRole)
        return QVariant::fromValue<qint64>(e.index);
    const double fps = m_dataset->info().fps;
    const int column = index.column();
    const int task = FirstOutcome + static_cast<int>(m_outcomes.size());
    if (role == Qt::TextAlignmentRole)
        return column == task ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                              : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    if (column == task)
        return taskText(e);
    switch (column) {
    case Episode:
        return QVariant::fromValue<qint64>(e.index);
    case Frames:
        return QVariant::fromValue<qint64>(e.length);
    case Seconds:
        if (role == SortRole)
            return fps > 0 ? static_cast<double>(e.length) / fps : 0.0;
        return fps > 0 ? QString::number(static_cast<double>(e.length) / fps, 'f', 1) : QString();
    default:
        break;
    }
    const std::string &key = m_outcomes[static_cast<std::size_t>(column - FirstOutcome)];
    const auto found = e.outcomes.find(key);
    if (found == e.outcomes.end()) {
        if (role == Qt::ToolTipRole)
            return tr("The dataset keeps no per-episode statistics for %1")
                .arg(QString::fromStdString(key));
        return role == SortRole ? QVariant(-1e300) : QVariant(QStringLiteral("-"));
    }
    if (role == SortRole)
        return found->second;
    if (isSuccess(key))
        return found->second > 0 ? tr("yes") : tr("no");
    return QString::number(found->second, 'g', 4);
}

QVariant EpisodesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    if (section == FirstOutcome + static_cast<int>(m_outcomes.size()))
        return tr("Task");
    switch (section) {
    case Episode:
        return tr("Episode");
    case Frames:
        return tr("Frames");
    case Seconds:
        return tr("Seconds");
    default:
        break;
    }
    if (section - FirstOutcome >= static_cast<int>(m_outcomes.size()))
        return {};
    const QString key =
        QString::fromStdString(m_outcomes[static_cast<std::size_t>(section - FirstOutcome)]);
    if (role == Qt::ToolTipRole)
        return tr("%1: its maximum over the episode, from the dataset's own statistics").arg(key);
    return key;
}

} // namespace kosmos::ui
