#include "run/PluginManagerDialog.h"

#include "dialogs/ScreenFit.h"
#include "run/PluginCatalog.h"
#include "run/SettingsForm.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kosmos::ui {

PluginManagerDialog::PluginManagerDialog(PluginCatalog &catalog, QWidget *parent)
    : QDialog(parent), m_catalog(catalog), m_table(new QTableWidget(0, 7, this)),
      m_form(new SettingsForm(this)), m_test(new QPushButton(tr("Test once"), this)),
      m_report(new QPlainTextEdit(this))
{
    setWindowTitle(tr("Plugins"));
    fitToScreen(this, {920, 620}); // seven columns, the settings and the report
    m_table->setHorizontalHeaderLabels({tr("Plugin"), tr("Family"), tr("Version"), tr("API"),
                                        tr("Requires"), tr("Available"), tr("Reason / file")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_report->setReadOnly(true);
    m_report->setPlaceholderText(
        tr("Test once runs one step of the selected adapter, with the settings above, in a "
           "process of its own, and shows its timing and memory. It is a smoke test: it says "
           "nothing about whether a policy succeeds at a task."));
    auto *reloadButton = new QPushButton(tr("Rescan"), this);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(reloadButton, QDialogButtonBox::ActionRole);
    auto *layout = new QVBoxLayout(this);
    // Six rows at least, whatever the settings form takes.
    m_table->setMinimumHeight(m_table->horizontalHeader()->sizeHint().height() +
                              6 * m_table->verticalHeader()->defaultSectionSize() + 4);
    layout->addWidget(m_table, 2);
    layout->addWidget(new QLabel(tr("Settings for the test:"), this));
    // The settings scroll: a plugin with many of them leaves the table and report their room.
    auto *formScroll = new QScrollArea(this);
    formScroll->setWidgetResizable(true);
    formScroll->setFrameShape(QFrame::NoFrame);
    formScroll->setWidget(m_form);
    formScroll->setMinimumHeight(100);
    layout->addWidget(formScroll, 1);
    layout->addWidget(m_test);
    layout->addWidget(m_report, 1);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(reloadButton, &QPushButton::clicked, this, [this] {
        m_catalog.reload();
        reload();
    });
    connect(m_table, &QTableWidget::currentCellChanged, this, [this] {
        const PluginEntry *p = m_catalog.find(currentId());
        m_form->setSchema(p ? p->settingsSchema : nlohmann::json::object(), nullptr,
                          m_catalog.settingChoices(currentId()));
        m_test->setEnabled(p && !p->family.isEmpty());
    });
    connect(m_test, &QPushButton::clicked, this, [this] {
        m_report->setPlainText(tr("testing %1 ...").arg(currentId()));
        m_test->setEnabled(false);
        m_catalog.startTest(currentId(), m_form->values());
    });
    connect(
        &m_catalog, &PluginCatalog::testFinished, this,
        [this](const QString &id, const nlohmann::json &r) {
            QString text =
                r.value("ok", false) ? tr("%1: one step ok").arg(id) : tr("%1: FAILED").arg(id);
            if (r.contains("error"))
                text += QLatin1Char('\n') +
                        tr("error: %1").arg(QString::fromStdString(r["error"].get<std::string>()));
            if (r.contains("create_ms"))
                text += QLatin1Char('\n') +
                        tr("created in %1 ms").arg(r["create_ms"].get<double>(), 0, 'f', 1);
            if (r.contains("step_ms"))
                text += QLatin1Char('\n') +
                        tr("one step in %1 ms").arg(r["step_ms"].get<double>(), 0, 'f', 1);
            if (r.contains("peak_rss_mib"))
                text +=
                    QLatin1Char('\n') +
                    tr("peak memory (RSS) %1 MiB").arg(r["peak_rss_mib"].get<double>(), 0, 'f', 1);
            if (r.contains("output"))
                text += QLatin1Char('\n') + QString::fromStdString(r["output"].get<std::string>());
            text += QLatin1Char('\n') +
                    tr("A smoke test of the adapter only: not evidence of robot-task success.");
            m_report->setPlainText(text);
            // The row says what the test showed: it runs with the settings tested.
            for (int row = 0; row < m_table->rowCount(); ++row)
                if (m_table->item(row, 0)->text() == id && r.value("ok", false)) {
                    m_table->item(row, 5)->setText(tr("available with the tested settings"));
                    for (int c = 0; c < m_table->columnCount(); ++c)
                        m_table->item(row, c)->setForeground(palette().text());
                }
            m_test->setEnabled(true);
        });
    reload();
}

QString PluginManagerDialog::currentId() const
{
    const QTableWidgetItem *item = m_table->item(m_table->currentRow(), 0);
    return item ? item->text() : QString();
}

void PluginManagerDialog::selectPlugin(const QString &id)
{
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (m_table->item(row, 0)->text() == id)
            m_table->setCurrentCell(row, 0);
}

void PluginManagerDialog::reload()
{
    m_table->setRowCount(0);
    for (const PluginEntry &p : m_catalog.plugins()) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        QStringList needs;
        for (const auto &[key, value] : p.requires_.items())
            if (value == true)
                needs << QString::fromStdString(key);
        const QStringList cells = {p.id.isEmpty() ? QStringLiteral("?") : p.id,
                                   p.family,
                                   p.version,
                                   QString::number(p.apiVersion),
                                   needs.isEmpty() ? tr("nothing")
                                                   : needs.join(QStringLiteral(", ")),
                                   p.available ? tr("available")
                                   : p.loads   ? tr("needs settings")
                                               : tr("UNAVAILABLE"),
                                   p.available ? p.path : p.reason};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            // Red: it cannot be loaded at all; amber: it loads, and runs once its settings say
            // what it needs (a model package, an endpoint): test it with them below.
            if (!p.loads)
                item->setForeground(QColor(0xb0, 0x00, 0x20));
            else if (!p.available)
                item->setForeground(QColor(0x9a, 0x5b, 0x00));
            item->setToolTip(p.description.isEmpty() ? p.path : p.description);
            m_table->setItem(row, c, item);
        }
    }
    m_table->resizeColumnsToContents();
    if (m_table->rowCount() > 0)
        m_table->setCurrentCell(0, 0);
    if (!m_catalog.error().isEmpty())
        m_report->setPlainText(m_catalog.error());
}

} // namespace kosmos::ui
