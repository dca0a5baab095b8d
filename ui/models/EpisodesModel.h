#pragma once

#include <QAbstractTableModel>
#include <QStringList>

#include <memory>
#include <string>
#include <vector>

namespace kosmos {
class LeRobotDataset;
}

namespace kosmos::ui {

// The episodes of a LeRobot dataset opened for review (read in place, never imported): episode
// index, frames, seconds, each outcome field the dataset keeps per episode (success as
// yes/no, reward as a number; "-" where the dataset has no statistics for it). Sorts by value
// (kosmos::ui::EpisodesModel::SortRole), then the task; the episode index is the UserRole of
// every cell.
class EpisodesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    static constexpr int SortRole = Qt::UserRole + 1;
    explicit EpisodesModel(QObject *parent = nullptr);
    // The dataset shown (nullptr: none); it must outlive the model's use of it.
    void setDataset(std::shared_ptr<const LeRobotDataset> dataset);
    const LeRobotDataset *dataset() const { return m_dataset.get(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    // The row of a dataset episode index; -1 when it has none.
    int rowOf(qint64 episodeIndex) const;

private:
    std::shared_ptr<const LeRobotDataset> m_dataset;
    std::vector<std::string> m_outcomes; // outcome feature keys, one column each
};

} // namespace kosmos::ui
