#pragma once

#include <QCoreApplication>

class QCustomPlot;

namespace kosmos {
struct CalibrationReport;
struct PairedAudit;
struct PolicyRanking;
struct ReferenceComparison;
struct FidelityReport;
struct FrameFidelityCurve;
} // namespace kosmos

namespace kosmos::ui {

// The evaluation plots (QCustomPlot), drawn the same way in the workstation's evaluation view
// and in the exported evaluation record. Each clears the plot first and replots.
class EvaluationPlots
{
    Q_DECLARE_TR_FUNCTIONS(EvaluationPlots)
public:
    // Label success rate (Wilson 95 %) per bin of the judge's success-vote share, with the
    // diagonal of a perfectly calibrated judge.
    static void reliability(QCustomPlot *plot, const CalibrationReport &report);
    // Schema-valid and bare-JSON shares of configurations A and B side by side.
    static void audit(QCustomPlot *plot, const PairedAudit &audit);
    // Success rate per policy (numbered as in the rates table) with Wilson 95 % bars.
    static void policyRates(QCustomPlot *plot, const PolicyRanking &ranking);
    // Simulated against reference success rate per matched policy, with the diagonal.
    static void reference(QCustomPlot *plot, const ReferenceComparison &comparison);
    // World-model success rate against physics success rate per policy (numbered as in the
    // fidelity table), Wilson intervals both ways, the identity line dashed.
    static void fidelity(QCustomPlot *plot, const FidelityReport &report);
    // PSNR (left axis) and SSIM (right axis) per step of the open-loop replays.
    // The mean PSNR and SSIM per step, each with its 95% band where the curve has intervals;
    // `against` says what the predicted frames are compared with (the x axis' label).
    static void frameFidelity(QCustomPlot *plot, const FrameFidelityCurve &curve,
                              const QString &against = {});
};

} // namespace kosmos::ui
