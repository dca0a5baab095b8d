#include "workspaces/RunWorkspace.h"

#include "run/LauncherDialog.h"
#include "run/PluginCatalog.h"
#include "run/PluginManagerDialog.h"
#include "run/ProgressPanel.h"
#include "run/RunController.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QVBoxLayout>

namespace kosmos::ui {

RunWorkspace::RunWorkspace(QWidget *window, QMenu *menu)
    : QObject(window), m_window(window), m_menu(menu), m_page(new QWidget(window))
{
    m_page->setObjectName(QStringLiteral("runWorkspace"));
    auto *layout = new QVBoxLayout(m_page);
    auto *buttons = new QHBoxLayout;
    m_hint = new QLabel(tr("Running rollouts needs kosmos-cli, the engine, beside the "
                           "workstation; it was not found."),
                        m_page);
    m_hint->setWordWrap(true);
    layout->addWidget(m_hint);
    layout->addLayout(buttons);
    layout->addStretch(1);
    // (Cancel run / Cancel batch are the progress panel's own.)
    for (const QString &text :
         {tr("New batch..."), tr("Plugins..."), tr("Retry selected failed runs")}) {
        auto *button = new QPushButton(text, m_page);
        button->setEnabled(false);
        buttons->addWidget(button);
        m_buttons << button;
    }
    buttons->addStretch(1);
    m_menu->setEnabled(false);
    m_menu->setToolTip(tr("kosmos-cli, the engine that runs rollouts, was not found"));
}

void RunWorkspace::setCliPath(const QString &cliPath)
{
    if (m_controller)
        return;
    m_controller = new RunController(cliPath, this);
    m_progress = new ProgressPanel(*m_controller, m_page);
    m_progress->setObjectName(QStringLiteral("progressPanel"));
    auto *layout = static_cast<QVBoxLayout *>(m_page->layout());
    delete layout->takeAt(layout->count() - 1); // the stretch
    layout->addWidget(m_progress, 1);
    m_hint->setText(tr("Batches run in kosmos-cli worker processes (or Slurm shards); their "
                       "progress is followed here through the ledger."));
    m_menu->setEnabled(true);
    m_menu->setToolTip(QString());
    auto plugins = [this] {
        PluginManagerDialog dialog(*pluginCatalog(), m_window);
        dialog.exec();
    };
    auto retry = [this] { emit retryRequested(); };
    m_menu->addAction(tr("&New batch..."), QKeySequence::New, this, &RunWorkspace::newBatch);
    m_menu->addAction(tr("&Plugins..."), this, plugins);
    m_menu->addAction(tr("&Show progress"), this, &RunWorkspace::showRequested);
    m_menu->addAction(tr("&Cancel batch"), this, [this] { m_controller->cancelBatch(); });
    m_menu->addAction(tr("&Retry selected failed runs"), this, retry);
    const std::function<void()> handlers[] = {[this] { newBatch(); }, plugins, retry};
    for (int i = 0; i < m_buttons.size(); ++i) {
        m_buttons[i]->setEnabled(true);
        connect(m_buttons[i], &QPushButton::clicked, this, handlers[i]);
    }
    connect(m_controller, &RunController::runsFinished, this, &RunWorkspace::runsFinished);
    connect(m_controller, &RunController::rejudgeFinished, this,
            [this](int judged, const QStringList &failures) {
                emit message(
                    failures.isEmpty()
                        ? tr("%1 run(s) judged again; the new judgments are beside the old ones")
                              .arg(judged)
                        : tr("%1 run(s) judged again, %2 not: %3")
                              .arg(judged)
                              .arg(failures.size())
                              .arg(failures.join(QStringLiteral("; "))));
            });
    connect(m_progress, &ProgressPanel::runActivated, this, &RunWorkspace::runActivated);
    if (const QString bundle = m_bundle ? m_bundle() : QString(); !bundle.isEmpty()) {
        if (setLedger(bundle))
            emit showRequested();
    }
}

bool RunWorkspace::setLedger(const QString &bundle)
{
    if (!m_controller)
        return false;
    m_controller->setLedger(bundle);
    return m_controller->active();
}

PluginCatalog *RunWorkspace::pluginCatalog()
{
    if (!m_catalog && m_controller)
        m_catalog = new PluginCatalog(m_controller->cliPath(), this);
    if (m_catalog && m_catalog->plugins().isEmpty())
        m_catalog->reload();
    return m_catalog;
}

void RunWorkspace::newBatch()
{
    const QString ledger = m_bundle ? m_bundle() : QString();
    if (ledger.isEmpty()) {
        emit message(tr("Open a ledger or create one first (File > New ledger...)."));
        return;
    }
    LauncherDialog dialog(*pluginCatalog(), *m_controller, m_window);
    dialog.restoreForm(ledger);
    const int result = dialog.exec();
    dialog.saveForm(ledger); // launched or not: the next New batch starts from it
    if (result == QDialog::Accepted)
        emit showRequested();
}

} // namespace kosmos::ui
