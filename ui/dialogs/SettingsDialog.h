#pragma once

#include <QDialog>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSpinBox;

namespace kosmos::ui {

// Settings kept outside any ledger (QSettings): extra plugin folders searched after the
// install's folder and KOSMOS_PLUGIN_PATH, and the default number of workers. Never API keys:
// adapters read those from environment variables.
class SettingsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit SettingsDialog(QWidget *parent = nullptr);
    void save();
    QPlainTextEdit *folders() const { return m_folders; }
    QComboBox *language() const { return m_language; }
    // Shown once another language is chosen: it takes effect at the next start.
    QLabel *restartNote() const { return m_restartNote; }

private:
    QLabel *m_restartNote;
    QPlainTextEdit *m_folders;
    QSpinBox *m_workers;
    QComboBox *m_language;
};

} // namespace kosmos::ui
