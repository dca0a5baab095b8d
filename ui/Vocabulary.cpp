#include "Vocabulary.h"

#include <QCoreApplication>

namespace kosmos::ui {

QString valueText(const QString &stored)
{
    // QT_TRANSLATE_NOOP keeps each word in the .ts under the context "Vocabulary".
    static const char *const kWords[][2] = {
        {"queued", QT_TRANSLATE_NOOP("Vocabulary", "queued")},
        {"running", QT_TRANSLATE_NOOP("Vocabulary", "running")},
        {"completed", QT_TRANSLATE_NOOP("Vocabulary", "completed")},
        {"failed", QT_TRANSLATE_NOOP("Vocabulary", "failed")},
        {"cancelled", QT_TRANSLATE_NOOP("Vocabulary", "cancelled")},
        {"interrupted", QT_TRANSLATE_NOOP("Vocabulary", "interrupted")},
        {"success", QT_TRANSLATE_NOOP("Vocabulary", "success")},
        {"failure", QT_TRANSLATE_NOOP("Vocabulary", "failure")},
        {"unknown", QT_TRANSLATE_NOOP("Vocabulary", "unknown")},
        {"none", QT_TRANSLATE_NOOP("Vocabulary", "none")},
        {"valid", QT_TRANSLATE_NOOP("Vocabulary", "valid")},
        {"invalid", QT_TRANSLATE_NOOP("Vocabulary", "invalid")},
        {"met", QT_TRANSLATE_NOOP("Vocabulary", "met")},
        {"not_met", QT_TRANSLATE_NOOP("Vocabulary", "not met")},
        {"unclear", QT_TRANSLATE_NOOP("Vocabulary", "unclear")},
    };
    for (const auto &[word, shown] : kWords)
        if (stored == QLatin1String(word))
            return QCoreApplication::translate("Vocabulary", shown);
    return stored;
}

} // namespace kosmos::ui
