#include "LedgerSettings.h"

#include <QCryptographicHash>

namespace kosmos::ui {

QString perLedgerGroup(const QString &prefix, const QString &ledgerPath)
{
    return prefix + QLatin1Char('/') +
           QString::fromLatin1(
               QCryptographicHash::hash(ledgerPath.toUtf8(), QCryptographicHash::Sha1).toHex());
}

} // namespace kosmos::ui
