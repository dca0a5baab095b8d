#include "Translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QSettings>
#include <QTranslator>

namespace kosmos::ui {

QString translationsDirectory()
{
    return QCoreApplication::applicationDirPath() + QStringLiteral("/../share/kosmos/translations");
}

QLocale configuredLocale()
{
    const QString language = QSettings().value(QStringLiteral("ui/language")).toString();
    return language.isEmpty() ? QLocale() : QLocale(language);
}

bool installTranslations(const QLocale &locale, const QString &directory)
{
    // Owned by the application object: they live as long as it does.
    auto *qt = new QTranslator(QCoreApplication::instance());
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    auto *kosmos = new QTranslator(QCoreApplication::instance());
    if (!kosmos->load(locale, QStringLiteral("kosmos"), QStringLiteral("_"), directory)) {
        delete kosmos;
        return false;
    }
    QCoreApplication::installTranslator(kosmos);
    return true;
}

} // namespace kosmos::ui
