#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class QTimer;

namespace kosmos::ui {

class RunsModel;

// The runs table with its filter bar (status, judge outcome, validation, policy, text) and the
// count of what is shown. Up/Down and PgUp/PgDn move between runs; runSelected follows. Text
// filters apply as you type (debounced); policy and world-model filters offer the values present;
// the filters are remembered per ledger.
class RunsView : public QWidget
{
    Q_OBJECT
public:
    explicit RunsView(RunsModel *model, QWidget *parent = nullptr);
    QTableView *table() const { return m_table; }
    void updateCount();
    // Refills the protocol, policy and world-model value lists from the opened ledger (after
    // RunsModel::open), keeping what is chosen.
    void reloadProtocols();
    // A ledger was opened (after RunsModel::open): its value lists, and the filters last used on
    // it (keyed by `ledgerKey`, e.g. its path), applied.
    void ledgerOpened(const QString &ledgerKey);
    // Applies what the filter widgets say now (the debounce timer calls it).
    void applyFilter();
    QComboBox *policyFilter() const { return m_policy; }
    QComboBox *worldModelFilter() const { return m_worldModel; }
    QLineEdit *textFilter() const { return m_text; }
    QComboBox *statusFilter() const { return m_status; }

signals:
    void runSelected(qint64 runId);

private:
    void saveFilter() const;
    void restoreFilter();

    RunsModel *m_model;
    QTableView *m_table;
    QComboBox *m_status;
    QComboBox *m_judge;
    QComboBox *m_validation;
    QComboBox *m_policy;
    QLineEdit *m_text;
    QComboBox *m_worldModel;
    QComboBox *m_reference;
    QComboBox *m_human;
    QComboBox *m_protocol;
    QLabel *m_count;
    QTimer *m_debounce;
    QString m_ledgerKey;
    bool m_restoring = false;
};

} // namespace kosmos::ui
