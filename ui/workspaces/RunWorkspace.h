#pragma once

#include <QList>
#include <QObject>
#include <QString>

#include <functional>

class QLabel;
class QMenu;
class QPushButton;
class QWidget;

namespace kosmos::ui {

class PluginCatalog;
class ProgressPanel;
class RunController;

// The Run workspace's controller: its page (the batch progress, and what starts a batch: New
// batch, Plugins, Retry), the Run menu's actions, and the run controller behind them (batches
// as kosmos-cli processes followed through the ledger). Running stays disabled, with the reason
// on the page and the menu, until setCliPath finds the engine. MainWindow places the page and
// the menu, and answers the requests this controller signals.
class RunWorkspace : public QObject
{
    Q_OBJECT
public:
    // `window` parents the page and the dialogs; `menu` is the window's Run menu.
    RunWorkspace(QWidget *window, QMenu *menu);

    QWidget *page() const { return m_page; }
    // Enables running through kosmos-cli at `cliPath` (once; later calls change nothing).
    void setCliPath(const QString &cliPath);
    // The ledger now open (its bundle), followed for batches; true when one of its batches is
    // running (from an earlier session, say).
    bool setLedger(const QString &bundle);
    // The open ledger's bundle, asked when a batch is launched; empty: none is open.
    void setLedgerBundle(std::function<QString()> bundle) { m_bundle = std::move(bundle); }

    RunController *controller() const { return m_controller; }
    ProgressPanel *progress() const { return m_progress; }
    PluginCatalog *pluginCatalog(); // made on first use; nullptr without kosmos-cli

    // Run > New batch: the launcher for the open ledger (its form restored and saved per ledger).
    void newBatch();

signals:
    void showRequested();              // the Run workspace should be shown
    void runActivated(qint64 runId);   // a run of the progress list was opened
    void retryRequested();             // retry the failed runs selected in Review
    void runsFinished();               // runs ended: the views that show them need a refresh
    void message(const QString &text); // for the status bar

private:
    QWidget *m_window;
    QMenu *m_menu;
    QWidget *m_page;
    QLabel *m_hint;
    QList<QPushButton *> m_buttons;
    RunController *m_controller = nullptr;
    ProgressPanel *m_progress = nullptr;
    PluginCatalog *m_catalog = nullptr;
    std::function<QString()> m_bundle;
};

} // namespace kosmos::ui
