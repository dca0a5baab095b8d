#pragma once

#include <QLocale>
#include <QString>

namespace kosmos::ui {

// The workstation's translations (.qm files compiled from translations/*.ts) live in
// <exe>/../share/kosmos/translations, in the build tree and when installed.
QString translationsDirectory();

// The language saved in the settings (key ui/language: "" follows the system, "en", "de").
QLocale configuredLocale();

// Installs Kosmos' and Qt's own translations for `locale` into the application. Returns
// whether a Kosmos translation was found (English, the source language, needs none).
bool installTranslations(const QLocale &locale, const QString &directory = translationsDirectory());

} // namespace kosmos::ui
