#include "panels/EventsPanel.h"

#include "ledger/Ledger.h"

#include <QDateTime>
#include <QHash>
#include <QHeaderView>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace kosmos::ui {

EventsPanel::EventsPanel(QWidget *parent)
    : QWidget(parent), m_table(new QTableWidget(0, 5, this)), m_timer(new QTimer(this))
{
    m_table->setHorizontalHeaderLabels(
        {tr("Seq"), tr("Time (UTC)"), tr("Attempt"), tr("Type"), tr("Payload")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_table);
    connect(m_timer, &QTimer::timeout, this, &EventsPanel::poll);
    m_timer->start(500);
}

void EventsPanel::showRun(Ledger *ledger, qint64 runId)
{
    m_ledger = ledger;
    m_runId = runId;
    m_lastSeq = 0;
    m_lastVersion = -1;
    m_table->setRowCount(0);
    poll();
}

int EventsPanel::eventCount() const
{
    return m_table->rowCount();
}

void EventsPanel::poll()
{
    if (!m_ledger || m_runId == 0)
        return;
    try {
        const qint64 version = m_ledger->dataVersion();
        if (version == m_lastVersion && m_lastSeq > 0)
            return;
        m_lastVersion = version;
        // The attempt's number (what payloads call attempt_no), its id in the tooltip.
        QHash<qint64, int> attemptNo;
        for (const AttemptRecord &a : m_ledger->attempts(m_runId))
            attemptNo.insert(a.attemptId, a.attemptNo);
        for (const EventRecord &e : m_ledger->events(m_runId, m_lastSeq, 5000)) {
            const int row = m_table->rowCount();
            m_table->insertRow(row);
            m_table->setItem(row, 0, new QTableWidgetItem(QString::number(e.seq)));
            m_table->setItem(
                row, 1,
                new QTableWidgetItem(QDateTime::fromMSecsSinceEpoch(e.createdAtMs, Qt::UTC)
                                         .toString(QStringLiteral("yyyy-MM-dd hh:mm:ss.zzz"))));
            auto *attempt = new QTableWidgetItem(
                e.attemptId ? QString::number(attemptNo.value(*e.attemptId, 0)) : tr("run"));
            if (e.attemptId)
                attempt->setToolTip(tr("attempt id %1").arg(*e.attemptId));
            m_table->setItem(row, 2, attempt);
            m_table->setItem(row, 3, new QTableWidgetItem(QString::fromStdString(e.type)));
            m_table->setItem(row, 4, new QTableWidgetItem(QString::fromStdString(e.payloadJson)));
            m_lastSeq = e.seq;
        }
    } catch (const std::exception &) {
        // The ledger went away or is busy: try again at the next tick.
    }
}

} // namespace kosmos::ui
