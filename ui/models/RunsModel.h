#pragma once

#include <QAbstractTableModel>
#include <QHash>
#include <QSqlDatabase>
#include <QString>
#include <QVector>

namespace kosmos::ui {

// Filters of the runs view; empty members do not filter.
struct RunsFilter
{
    QString status;       // queued | running | completed | failed | cancelled
    QString policy;       // substring of the policy adapter id + config
    QString judgeOutcome; // success | failure | unknown | none
    QString validation;   // valid | invalid | unknown | none
    QString worldModel;   // substring of the world-model adapter id
    QString reference;    // latest reference label's completion: met | not_met | ... | none
    QString human;        // latest human label's completion, likewise
    QString protocolSha;  // exact
    QString text;         // substring of task or instruction
};

// The runs of a ledger as a lazy table: rows are fetched a page at a time (canFetchMore /
// fetchMore) from a read-only Qt Sql connection, so a ledger of 100,000 runs opens at once.
// Sorting and filtering are done by SQLite; matchingCount() is the number of runs shown.
class RunsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Run,
        Task,
        Policy,
        WorldModel,
        JudgeOutcome,
        Validation,
        Reference,
        Human,
        Status,
        Duration,
        ColumnCount
    };
    static constexpr int kPageSize = 256;
    enum Role
    {
        RunIdRole = Qt::UserRole + 1
    };

    explicit RunsModel(QObject *parent = nullptr);
    ~RunsModel() override;

    // Opens the ledger's database read-only; returns false with errorString() on failure.
    bool open(const QString &databasePath);
    void close();
    QString errorString() const { return m_error; }

    void setFilter(const RunsFilter &filter);
    // The ledger's frozen protocols, (name, SHA-256), oldest first: for the protocol filter.
    QList<QPair<QString, QString>> protocols() const;
    // The policies and world models that runs of the ledger name (full identity text), for the
    // filters' value lists.
    QStringList policies() const;
    QStringList worldModels() const;
    // The policy column's short label for a full identity (what tells it apart from the others).
    QString policyLabel(const QString &policy) const
    {
        return m_policyLabels.value(policy, policy);
    }
    const RunsFilter &filter() const { return m_filter; }
    int matchingCount() const { return m_matching; }
    qint64 runIdAt(int row) const;
    int rowOfRun(qint64 runId) const; // -1 when not loaded
    // Re-reads from the ledger (after another process wrote), keeping the filter and sort.
    void refresh();

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex &parent = {}) const override;
    void fetchMore(const QModelIndex &parent = {}) override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    // clang-tidy 14 reports the loop index of the implicit copy of the array member below.
    // NOLINTNEXTLINE(bugprone-reserved-identifier)
    struct Row
    {
        qint64 runId = 0;
        QVariant cells[ColumnCount];
    };
    QString whereClause(QVariantList &binds) const;
    void reload();
    void reloadLabels(); // the short policy labels (on open and refresh, not per filter)

    QString m_connection;
    QString m_error;
    RunsFilter m_filter;
    int m_sortColumn = Run;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
    int m_matching = 0;
    QVector<Row> m_rows;
    QHash<QString, QString> m_policyLabels;
};

} // namespace kosmos::ui
