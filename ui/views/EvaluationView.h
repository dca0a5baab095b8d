#pragma once

#include <QWidget>

class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace kosmos {
class Ledger;
}

namespace kosmos::ui {

// Judge calibration, the paired judge audit and policy rankings of the open ledger, each with
// its n and interval, computed by core/judge/Calibration and core/stats (the same figures as
// kosmos-cli calibrate / audit). Plots are QCustomPlot.
class EvaluationView : public QWidget
{
    Q_OBJECT
public:
    explicit EvaluationView(QWidget *parent = nullptr);
    // The ledger must outlive its use here (the main window owns both). Nothing is computed
    // until the view is shown: opening a large ledger stays fast.
    void setLedger(Ledger *ledger);
    void refresh();

    QTabWidget *tabs() const { return m_tabs; }
    QLabel *calibrationSummary() const { return m_calibrationText; }
    QComboBox *labelSource() const { return m_labelSource; }
    QTableWidget *auditTable() const { return m_auditTable; }
    QTableWidget *flipsTable() const { return m_flips; }
    QComboBox *auditA() const { return m_auditA; }
    QComboBox *auditB() const { return m_auditB; }
    QTableWidget *ratesTable() const { return m_rates; }
    QTableWidget *pairsTable() const { return m_pairs; }
    QComboBox *outcomeSource() const { return m_outcomeSource; }

public slots:
    void updateCalibration();
    void updateAudit();
    void updateRanking();

signals:
    void runActivated(qint64 runId);

protected:
    void showEvent(QShowEvent *event) override;

private:
    Ledger *m_ledger = nullptr;
    bool m_stale = false;
    QTabWidget *m_tabs;
    // calibration
    QComboBox *m_calibrationJudge;
    QComboBox *m_labelSource;
    QSpinBox *m_minLabels;
    QDoubleSpinBox *m_minSensitivity;
    QDoubleSpinBox *m_minSpecificity;
    QDoubleSpinBox *m_maxLeniency;
    QLabel *m_calibrationText;
    QCustomPlot *m_reliability;
    // audit
    QComboBox *m_auditA;
    QComboBox *m_auditB;
    QTableWidget *m_auditTable;
    QTableWidget *m_flips;
    QCustomPlot *m_auditPlot;
    // ranking
    QComboBox *m_protocol;
    QComboBox *m_outcomeSource;
    QTableWidget *m_rates;
    QTableWidget *m_pairs;
    QLabel *m_rankingText;
    QCustomPlot *m_ratesPlot;
};

} // namespace kosmos::ui
