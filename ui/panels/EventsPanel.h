#pragma once

#include <QWidget>

class QTableWidget;
class QTimer;

namespace kosmos {
class Ledger;
}

namespace kosmos::ui {

// A run's events, followed live while another process writes them: a cheap poll of the ledger's
// data version every half second, then only the new events are read.
class EventsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit EventsPanel(QWidget *parent = nullptr);
    void showRun(Ledger *ledger, qint64 runId);
    void clear() { showRun(nullptr, 0); }
    int eventCount() const;
    QTableWidget *table() const { return m_table; }
    // Reads what was committed since the last look (called by the timer; public for tests).
    void poll();

private:
    Ledger *m_ledger = nullptr;
    qint64 m_runId = 0;
    qint64 m_lastSeq = 0;
    qint64 m_lastVersion = -1;
    QTableWidget *m_table;
    QTimer *m_timer;
};

} // namespace kosmos::ui
