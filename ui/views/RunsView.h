#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace kosmos::ui {

class RunsModel;

// The runs table with its filter bar (status, judge outcome, validation, policy, text) and the
// count of what is shown. Up/Down and PgUp/PgDn move between runs; runSelected follows.
class RunsView : public QWidget
{
    Q_OBJECT
public:
    explicit RunsView(RunsModel *model, QWidget *parent = nullptr);
    QTableView *table() const { return m_table; }
    void updateCount();
    // Refills the protocol filter from the opened ledger (after RunsModel::open).
    void reloadProtocols();

signals:
    void runSelected(qint64 runId);

private:
    void applyFilter();

    RunsModel *m_model;
    QTableView *m_table;
    QComboBox *m_status;
    QComboBox *m_judge;
    QComboBox *m_validation;
    QLineEdit *m_policy;
    QLineEdit *m_text;
    QLineEdit *m_worldModel;
    QComboBox *m_reference;
    QComboBox *m_human;
    QComboBox *m_protocol;
    QLabel *m_count;
};

} // namespace kosmos::ui
