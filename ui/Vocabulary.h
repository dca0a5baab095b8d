#pragma once

#include <QString>

namespace kosmos {
struct GateLine;
}

namespace kosmos::ui {

// The ledger's stored words (run status, judge outcomes, validation verdicts, label values) as
// the workstation shows them, translated; the stored value itself is what filters and exports
// use. A word not listed is shown as stored.
QString valueText(const QString &stored);

// A calibration gate line in the window's language, from its data; in English it reads as
// core's gateLineText (tst_ui holds them equal).
QString gateLineWords(const GateLine &line);

} // namespace kosmos::ui
