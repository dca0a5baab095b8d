#include "dialogs/SettingsDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSpinBox>

namespace kosmos::ui {

SettingsDialog::SettingsDialog(QWidget *parent)
    : QDialog(parent), m_folders(new QPlainTextEdit(this)), m_workers(new QSpinBox(this)),
      m_language(new QComboBox(this))
{
    setWindowTitle(tr("Settings"));
    const QSettings settings;
    m_folders->setPlainText(
        settings.value(QStringLiteral("plugins/folders")).toStringList().join(QLatin1Char('\n')));
    m_folders->setPlaceholderText(tr("one folder per line"));
    m_workers->setRange(1, 64);
    m_workers->setValue(settings.value(QStringLiteral("runs/workers"), 1).toInt());
    m_language->addItem(tr("System language"), QString());
    m_language->addItem(QStringLiteral("English"), QStringLiteral("en"));
    m_language->addItem(QStringLiteral("Deutsch"), QStringLiteral("de"));
    m_language->setCurrentIndex(std::max(
        0, m_language->findData(settings.value(QStringLiteral("ui/language")).toString())));
    m_language->setToolTip(tr("Takes effect when the workstation next starts"));
    // Said in the dialog, not only in a tooltip: the window keeps its language until restarted.
    m_restartNote = new QLabel(
        tr("The new language takes effect when the workstation next starts (File > Quit, then "
           "start it again)."),
        this);
    m_restartNote->setWordWrap(true);
    m_restartNote->setStyleSheet(QStringLiteral("color: #8a5a00"));
    m_restartNote->setVisible(false);
    const int shownLanguage = m_language->currentIndex();
    connect(m_language, &QComboBox::currentIndexChanged, this, [this, shownLanguage](int index) {
        m_restartNote->setVisible(index != shownLanguage);
    });
    auto *form = new QFormLayout(this);
    form->addRow(tr("Extra plugin folders"), m_folders);
    form->addRow(tr("Workers for new runs"), m_workers);
    form->addRow(tr("Language"), m_language);
    form->addRow(m_restartNote);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        save();
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void SettingsDialog::save()
{
    QStringList folders;
    for (const QString &line : m_folders->toPlainText().split(QLatin1Char('\n'))) {
        if (!line.trimmed().isEmpty())
            folders << line.trimmed();
    }
    QSettings settings;
    settings.setValue(QStringLiteral("plugins/folders"), folders);
    settings.setValue(QStringLiteral("runs/workers"), m_workers->value());
    settings.setValue(QStringLiteral("ui/language"), m_language->currentData().toString());
}

} // namespace kosmos::ui
