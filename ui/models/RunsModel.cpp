#include "models/RunsModel.h"

#include "Vocabulary.h"

#include <QColor>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>

#include "queries/ComponentLabels.h"

namespace kosmos::ui {

namespace {

// The schema's run_latest view: which attempt, judgment and labels count is defined there, for
// every reader alike (core/ledger/schema.sql, "Views").
const char *const kSelect = R"sql(
    SELECT run_id, task, policy_label AS policy, world_model,
           judge_outcome || COALESCE(' (' || judge_unknown_reason || ')', '') AS judge,
           validation, reference, human, status, duration_ms, instruction, protocol_sha256
      FROM run_latest)sql";

const char *const kSortKeys[RunsModel::ColumnCount] = {
    "run_id",     "task",      "policy", "world_model", "judge",
    "validation", "reference", "human",  "status",      "duration_ms"};

} // namespace

RunsModel::RunsModel(QObject *parent)
    : QAbstractTableModel(parent),
      m_connection(QStringLiteral("kosmos-runs-") + QUuid::createUuid().toString())
{
}

RunsModel::~RunsModel()
{
    close();
}

bool RunsModel::open(const QString &databasePath)
{
    close();
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
        db.setDatabaseName(databasePath);
        db.setConnectOptions(
            QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_OPEN_URI;QSQLITE_BUSY_TIMEOUT=5000"));
        if (!db.open()) {
            m_error = db.lastError().text();
            return false;
        }
        QSqlQuery probe(db);
        if (!probe.exec(QStringLiteral("SELECT COUNT(*) FROM runs"))) {
            m_error = probe.lastError().text();
            return false;
        }
    }
    reloadLabels();
    reload();
    return true;
}

QList<QPair<QString, QString>> RunsModel::protocols() const
{
    QList<QPair<QString, QString>> out;
    if (!QSqlDatabase::contains(m_connection))
        return out;
    QSqlQuery q(QSqlDatabase::database(m_connection));
    if (q.exec(QStringLiteral("SELECT name, protocol_sha256 FROM protocols ORDER BY protocol_id")))
        while (q.next())
            out.append({q.value(0).toString(), q.value(1).toString()});
    return out;
}

namespace {

QStringList distinctStrings(const QString &connection, const char *sql)
{
    QStringList out;
    if (!QSqlDatabase::contains(connection))
        return out;
    QSqlQuery q(QSqlDatabase::database(connection));
    if (q.exec(QString::fromUtf8(sql)))
        while (q.next())
            out << q.value(0).toString();
    return out;
}

} // namespace

// The ledger's components of a family (a component is registered by the runs that use it): the
// components table, not a scan of every run.
QStringList RunsModel::policies() const
{
    return distinctStrings(m_connection, "SELECT DISTINCT label FROM component_labels WHERE "
                                         "family = 'policy' ORDER BY label");
}

QStringList RunsModel::worldModels() const
{
    return distinctStrings(m_connection, "SELECT DISTINCT adapter_id FROM components WHERE "
                                         "family = 'world_model' ORDER BY adapter_id");
}

void RunsModel::close()
{
    beginResetModel();
    m_rows.clear();
    m_matching = 0;
    endResetModel();
    if (QSqlDatabase::contains(m_connection)) {
        QSqlDatabase::database(m_connection, false).close();
        QSqlDatabase::removeDatabase(m_connection);
    }
}

QString RunsModel::whereClause(QVariantList &binds) const
{
    QStringList terms;
    if (!m_filter.status.isEmpty()) {
        terms << QStringLiteral("status = ?");
        binds << m_filter.status;
    }
    if (!m_filter.policy.isEmpty()) {
        terms << QStringLiteral("instr(lower(policy), lower(?)) > 0");
        binds << m_filter.policy;
    }
    if (!m_filter.judgeOutcome.isEmpty()) {
        if (m_filter.judgeOutcome == QLatin1String("none"))
            terms << QStringLiteral("judge IS NULL");
        else {
            terms << QStringLiteral("judge LIKE ?");
            binds << m_filter.judgeOutcome + QLatin1Char('%');
        }
    }
    if (!m_filter.validation.isEmpty()) {
        if (m_filter.validation == QLatin1String("none"))
            terms << QStringLiteral("validation IS NULL");
        else {
            terms << QStringLiteral("validation = ?");
            binds << m_filter.validation;
        }
    }
    if (!m_filter.worldModel.isEmpty()) {
        terms << QStringLiteral("instr(lower(COALESCE(world_model, '')), lower(?)) > 0");
        binds << m_filter.worldModel;
    }
    for (const auto &[column, value] : {std::pair{QStringLiteral("reference"), m_filter.reference},
                                        std::pair{QStringLiteral("human"), m_filter.human}}) {
        if (value.isEmpty())
            continue;
        if (value == QLatin1String("none"))
            terms << column + QStringLiteral(" IS NULL");
        else {
            terms << column + QStringLiteral(" = ?");
            binds << value;
        }
    }
    if (!m_filter.protocolSha.isEmpty()) {
        terms << QStringLiteral("protocol_sha256 = ?");
        binds << m_filter.protocolSha;
    }
    if (!m_filter.text.isEmpty()) {
        terms << QStringLiteral("(instr(lower(COALESCE(task, '')), lower(?)) > 0 OR "
                                "instr(lower(COALESCE(instruction, '')), lower(?)) > 0)");
        binds << m_filter.text << m_filter.text;
    }
    return terms.isEmpty() ? QString()
                           : QStringLiteral(" WHERE ") + terms.join(QStringLiteral(" AND "));
}

void RunsModel::reloadLabels()
{
    // Short policy labels: what tells the ledger's policies apart (core's labels).
    m_policyLabels.clear();
    const QStringList full = policies();
    std::vector<std::string> texts;
    for (const QString &policy : full)
        texts.push_back(policy.toStdString());
    const auto labels = labelsOfIdentityTexts(texts);
    for (int i = 0; i < full.size(); ++i)
        m_policyLabels.insert(full[i], QString::fromStdString(labels[static_cast<std::size_t>(i)]));
}

void RunsModel::reload()
{
    beginResetModel();
    m_rows.clear();
    m_matching = 0;
    if (QSqlDatabase::contains(m_connection)) {
        QSqlQuery count(QSqlDatabase::database(m_connection));
        QVariantList binds;
        const QString where = whereClause(binds);
        count.prepare(QStringLiteral("SELECT COUNT(*) FROM (") + QString::fromUtf8(kSelect) +
                      QStringLiteral(") q0") + where);
        for (const auto &b : binds)
            count.addBindValue(b);
        if (count.exec() && count.next())
            m_matching = count.value(0).toInt();
        else
            m_error = count.lastError().text();
    }
    endResetModel();
    fetchMore();
}

void RunsModel::refresh()
{
    reloadLabels(); // a batch may have brought new policies
    reload();
}

void RunsModel::setFilter(const RunsFilter &filter)
{
    m_filter = filter;
    reload();
}

bool RunsModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && m_rows.size() < m_matching;
}

void RunsModel::fetchMore(const QModelIndex &parent)
{
    if (parent.isValid() || !QSqlDatabase::contains(m_connection) || m_rows.size() >= m_matching)
        return;
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.setForwardOnly(true);
    QVariantList binds;
    const QString where = whereClause(binds);
    const QString order =
        QString::fromLatin1(kSortKeys[m_sortColumn]) +
        (m_sortOrder == Qt::AscendingOrder ? QStringLiteral(" ASC") : QStringLiteral(" DESC")) +
        QStringLiteral(", run_id ASC");
    q.prepare(QStringLiteral("SELECT * FROM (") + QString::fromUtf8(kSelect) +
              QStringLiteral(") q0") + where + QStringLiteral(" ORDER BY ") + order +
              QStringLiteral(" LIMIT ? OFFSET ?"));
    for (const auto &b : binds)
        q.addBindValue(b);
    q.addBindValue(kPageSize);
    q.addBindValue(m_rows.size());
    if (!q.exec()) {
        m_error = q.lastError().text();
        return;
    }
    QVector<Row> page;
    while (q.next()) {
        Row row;
        row.runId = q.value(0).toLongLong();
        for (int c = 0; c < ColumnCount; ++c)
            row.cells[c] = q.value(c);
        page.push_back(row);
    }
    if (page.isEmpty()) {
        m_matching = static_cast<int>(m_rows.size()); // the ledger changed under us
        return;
    }
    beginInsertRows({}, static_cast<int>(m_rows.size()),
                    static_cast<int>(m_rows.size() + page.size() - 1));
    m_rows += page;
    endInsertRows();
}

void RunsModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= ColumnCount)
        return;
    m_sortColumn = column;
    m_sortOrder = order;
    reload();
}

int RunsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

qint64 RunsModel::runIdAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows[row].runId : 0;
}

int RunsModel::rowOfRun(qint64 runId) const
{
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].runId == runId)
            return i;
    }
    return -1;
}

QVariant RunsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row &row = m_rows[index.row()];
    if (role == RunIdRole)
        return row.runId;
    const QVariant &v = row.cells[index.column()];
    if (role == Qt::DisplayRole) {
        if (index.column() == Policy && !v.isNull())
            return policyLabel(v.toString());
        if (index.column() == Duration && !v.isNull())
            return QString::number(static_cast<double>(v.toLongLong()) / 1000.0, 'f', 1) +
                   QStringLiteral(" s");
        if (v.isNull())
            return index.column() == JudgeOutcome || index.column() == Reference ||
                           index.column() == Human || index.column() == Validation
                       ? QStringLiteral("—")
                       : QVariant();
        if (index.column() == JudgeOutcome || index.column() == Validation ||
            index.column() == Reference || index.column() == Human || index.column() == Status)
            return valueText(v.toString());
        return v;
    }
    if (role == Qt::ForegroundRole) {
        const QString s = v.toString();
        if (index.column() == Status && s == QLatin1String("failed"))
            return QColor(170, 30, 30);
        if (index.column() == Validation && s == QLatin1String("invalid"))
            return QColor(170, 30, 30);
    }
    if (role == Qt::ToolTipRole && index.column() == Policy && !v.isNull())
        return v.toString();
    if (role == Qt::ToolTipRole && index.column() == Reference && !v.isNull())
        return tr("Reference label from a world that knows its true state (synthetic). Not a human "
                  "label.");
    return {};
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Run:
        return tr("Run");
    case Task:
        return tr("Task");
    case Policy:
        return tr("Policy");
    case WorldModel:
        return tr("World model");
    case JudgeOutcome:
        return tr("Judge");
    case Validation:
        return tr("Validation");
    case Reference:
        return tr("Reference");
    case Human:
        return tr("Human");
    case Status:
        return tr("Status");
    case Duration:
        return tr("Duration");
    }
    return {};
}

} // namespace kosmos::ui
