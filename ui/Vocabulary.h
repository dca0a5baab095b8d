#pragma once

#include <QString>

namespace kosmos::ui {

// The ledger's stored words (run status, judge outcomes, validation verdicts, label values) as
// the workstation shows them, translated; the stored value itself is what filters and exports
// use. A word not listed is shown as stored.
QString valueText(const QString &stored);

} // namespace kosmos::ui
