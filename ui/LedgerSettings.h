#pragma once

#include <QString>

namespace kosmos::ui {

// The QSettings group that keeps what the workstation remembers per ledger (the runs filters,
// the last New batch form): `prefix` + "/" + the SHA-1 of the ledger's path, so a path never
// has to be a valid settings key.
QString perLedgerGroup(const QString &prefix, const QString &ledgerPath);

} // namespace kosmos::ui
