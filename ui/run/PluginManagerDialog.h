#pragma once

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace kosmos::ui {

class PluginCatalog;
class SettingsForm;

// Every plugin found, with version, API version, what it requires, and available or why not
// (no CUDA, weights path not set, hash mismatch, endpoint unreachable, wrong API version). A
// configured adapter can be tested once: one step in a kosmos-cli process of its own, showing
// its timing and peak memory. A smoke test is never evidence of task success, and says so.
class PluginManagerDialog : public QDialog
{
    Q_OBJECT
public:
    explicit PluginManagerDialog(PluginCatalog &catalog, QWidget *parent = nullptr);
    QTableWidget *table() const { return m_table; }
    QPushButton *testButton() const { return m_test; }
    QPlainTextEdit *report() const { return m_report; }
    void selectPlugin(const QString &id);

private:
    void reload();
    QString currentId() const;

    PluginCatalog &m_catalog;
    QTableWidget *m_table;
    SettingsForm *m_form;
    QPushButton *m_test;
    QPlainTextEdit *m_report;
};

} // namespace kosmos::ui
