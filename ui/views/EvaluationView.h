#pragma once

#include <QWidget>

#include <string>
#include <utility>
#include <vector>

class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace kosmos {
class Ledger;
}

namespace kosmos::ui {

class FidelityPanel;

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
    QCustomPlot *ratesPlot() const { return m_ratesPlot; }
    QTableWidget *pairsTable() const { return m_pairs; }
    QComboBox *outcomeSource() const { return m_outcomeSource; }
    QTableWidget *cellsTable() const { return m_cells; }
    QLabel *agreementSummary() const { return m_agreementText; }
    QComboBox *annotatorA() const { return m_annotatorA; }
    QComboBox *annotatorB() const { return m_annotatorB; }
    QLabel *referenceSummary() const { return m_referenceText; }
    FidelityPanel *fidelity() const { return m_fidelity; }
    // kosmos-cli, for the Fidelity tab's open-loop frame comparison.
    void setCliPath(const QString &cliPath);

    // Reads reference success rates ("policy,rate" lines) for the ranking's comparison; false
    // with the reason shown when the file is wrong.
    bool loadReferenceRates(const QString &path);
    // The evaluation record of the chosen protocol with the figures chosen here (outcome
    // source, judge, gate, audit pair, reference rates) as HTML and, when pdfPath is not empty,
    // PDF. Returns an empty string or the reason it failed.
    QString exportReport(const QString &htmlPath, const QString &pdfPath);

public slots:
    void updateCalibration();
    void updateAudit();
    void updateRanking();
    void updateAgreement();
    void chooseReferenceRates();
    void chooseReportFile();

signals:
    void runActivated(qint64 runId);

protected:
    void showEvent(QShowEvent *event) override;

private:
    QWidget *buildCalibrationTab();
    QWidget *buildAuditTab();
    QWidget *buildRankingTab();
    FidelityPanel *m_fidelity = nullptr;
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
    QComboBox *m_annotatorA;
    QComboBox *m_annotatorB;
    QComboBox *m_agreementSplit;
    QLabel *m_agreementText;
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
    QTableWidget *m_cells;
    QPushButton *m_referenceButton;
    QLabel *m_referenceText;
    QCustomPlot *m_referencePlot;
    std::vector<std::pair<std::string, double>> m_referenceRates;
    QString m_referenceName;
    QPushButton *m_exportButton;
};

} // namespace kosmos::ui
