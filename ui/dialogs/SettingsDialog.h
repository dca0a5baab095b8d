#pragma once

#include <QDialog>

class QComboBox;
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

private:
    QPlainTextEdit *m_folders;
    QSpinBox *m_workers;
    QComboBox *m_language;
};

} // namespace kosmos::ui
