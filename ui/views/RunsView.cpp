#include "views/RunsView.h"

#include "LedgerSettings.h"
#include "Vocabulary.h"
#include "models/RunsModel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSettings>
#include <QSignalBlocker>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace kosmos::ui {

RunsView::RunsView(RunsModel *model, QWidget *parent)
    : QWidget(parent), m_model(model), m_table(new QTableView(this)), m_status(new QComboBox(this)),
      m_judge(new QComboBox(this)), m_validation(new QComboBox(this)),
      m_policy(new QComboBox(this)), m_text(new QLineEdit(this)), m_worldModel(new QComboBox(this)),
      m_reference(new QComboBox(this)), m_human(new QComboBox(this)),
      m_protocol(new QComboBox(this)), m_count(new QLabel(this)), m_debounce(new QTimer(this))
{
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(250);
    connect(m_debounce, &QTimer::timeout, this, &RunsView::applyFilter);
    for (QComboBox *box : {m_policy, m_worldModel}) {
        box->setEditable(true);
        box->setInsertPolicy(QComboBox::NoInsert);
        box->setMinimumContentsLength(10);
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    }
    m_text->setClearButtonEnabled(true);
    m_status->addItem(tr("status"), QString());
    for (const char *s : {"queued", "running", "completed", "failed", "cancelled"})
        m_status->addItem(valueText(QString::fromLatin1(s)), QString::fromLatin1(s));
    m_judge->addItem(tr("judge"), QString());
    for (const char *s : {"success", "failure", "unknown", "none"})
        m_judge->addItem(valueText(QString::fromLatin1(s)), QString::fromLatin1(s));
    m_validation->addItem(tr("validation"), QString());
    for (const char *s : {"valid", "invalid", "unknown", "none"})
        m_validation->addItem(valueText(QString::fromLatin1(s)), QString::fromLatin1(s));
    m_policy->lineEdit()->setPlaceholderText(tr("policy"));
    m_text->setPlaceholderText(tr("search task / instruction"));
    m_worldModel->lineEdit()->setPlaceholderText(tr("world model"));
    m_reference->addItem(tr("reference"), QString());
    m_human->addItem(tr("human label"), QString());
    for (QComboBox *box : {m_reference, m_human})
        for (const char *s : {"met", "not_met", "unclear", "none"})
            box->addItem(valueText(QString::fromLatin1(s)), QString::fromLatin1(s));
    m_reference->setToolTip(tr("Reference labels come from a world that knows its true state "
                               "(synthetic); they are not human labels"));
    m_protocol->addItem(tr("protocol"), QString());
    // Three rows of filters, so the runs dock can be narrow beside the player. Each box's first
    // entry is its field's name (no filter), short enough to read whole in a narrow dock (the
    // longer "any judge outcome" was cut), with what it filters in its tooltip.
    m_status->setToolTip(tr("Filter by the run's status"));
    m_judge->setToolTip(tr("Filter by the judge's outcome (\"none\": not judged)"));
    m_validation->setToolTip(tr("Filter by the validation verdict"));
    m_human->setToolTip(tr("Filter by the human labels"));
    m_protocol->setToolTip(tr("Filter by the protocol the runs belong to"));
    for (QComboBox *box : {m_status, m_judge, m_validation, m_reference, m_human, m_protocol}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(8);
    }
    auto *filters = new QHBoxLayout;
    for (QWidget *w : std::initializer_list<QWidget *>{m_text, m_policy, m_worldModel})
        filters->addWidget(w, 1);
    auto *more = new QHBoxLayout;
    for (QWidget *w : std::initializer_list<QWidget *>{m_status, m_judge, m_validation})
        more->addWidget(w, 1);
    auto *labels = new QHBoxLayout;
    for (QWidget *w : std::initializer_list<QWidget *>{m_reference, m_human, m_protocol})
        labels->addWidget(w, 1);
    m_count->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(filters);
    layout->addLayout(more);
    layout->addLayout(labels);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_count);

    m_table->setModel(m_model);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RunsModel::Run, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->setWordWrap(false); // one line per row: a wrapped label would show its first word only
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setDefaultSectionSize(84);
    m_table->setColumnWidth(RunsModel::Run, 48);
    m_table->setColumnWidth(RunsModel::Task, 110);
    m_table->setColumnWidth(RunsModel::Policy, 210);
    m_table->setColumnWidth(RunsModel::WorldModel, 130);
    m_table->setObjectName(QStringLiteral("runsTable"));

    for (QComboBox *box : {m_status, m_judge, m_validation, m_reference, m_human, m_protocol})
        connect(box, &QComboBox::currentIndexChanged, this, &RunsView::applyFilter);
    // Filter as you type, a quarter second after the last key; Enter applies at once.
    connect(m_text, &QLineEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_text, &QLineEdit::returnPressed, this, &RunsView::applyFilter);
    for (QComboBox *box : {m_policy, m_worldModel}) {
        connect(box, &QComboBox::editTextChanged, m_debounce, qOverload<>(&QTimer::start));
        connect(box->lineEdit(), &QLineEdit::returnPressed, this, &RunsView::applyFilter);
    }
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    emit runSelected(m_model->runIdAt(current.row()));
            });
    connect(m_model, &QAbstractItemModel::modelReset, this, &RunsView::updateCount);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &RunsView::updateCount);
    updateCount();
}

void RunsView::applyFilter()
{
    m_debounce->stop();
    if (m_restoring)
        return;
    RunsFilter f;
    f.status = m_status->currentData().toString();
    f.judgeOutcome = m_judge->currentData().toString();
    f.validation = m_validation->currentData().toString();
    // A value chosen from the list filters by its full identity; typed text by substring.
    auto comboValue = [](const QComboBox *box) {
        const QString text = box->currentText().trimmed();
        const int index = text.isEmpty() ? -1 : box->findText(text);
        return index >= 0 ? box->itemData(index).toString() : text;
    };
    f.policy = comboValue(m_policy);
    f.text = m_text->text().trimmed();
    f.worldModel = comboValue(m_worldModel);
    f.reference = m_reference->currentData().toString();
    f.human = m_human->currentData().toString();
    f.protocolSha = m_protocol->currentData().toString();
    const RunsFilter &now = m_model->filter();
    if (f.status == now.status && f.judgeOutcome == now.judgeOutcome &&
        f.validation == now.validation && f.policy == now.policy && f.text == now.text &&
        f.worldModel == now.worldModel && f.reference == now.reference && f.human == now.human &&
        f.protocolSha == now.protocolSha)
        return; // e.g. Enter after the debounce already applied it
    m_model->setFilter(f);
    saveFilter();
}

void RunsView::saveFilter() const
{
    if (m_ledgerKey.isEmpty())
        return;
    QSettings settings;
    settings.beginGroup(perLedgerGroup(QStringLiteral("runsFilters"), m_ledgerKey));
    const RunsFilter &f = m_model->filter();
    settings.setValue(QStringLiteral("status"), f.status);
    settings.setValue(QStringLiteral("judge"), f.judgeOutcome);
    settings.setValue(QStringLiteral("validation"), f.validation);
    settings.setValue(QStringLiteral("policy"), f.policy);
    settings.setValue(QStringLiteral("text"), f.text);
    settings.setValue(QStringLiteral("worldModel"), f.worldModel);
    settings.setValue(QStringLiteral("reference"), f.reference);
    settings.setValue(QStringLiteral("human"), f.human);
    settings.setValue(QStringLiteral("protocol"), f.protocolSha);
}

void RunsView::restoreFilter()
{
    QSettings settings;
    settings.beginGroup(perLedgerGroup(QStringLiteral("runsFilters"), m_ledgerKey));
    m_restoring = true;
    auto choose = [&](QComboBox *box, const char *key) {
        const int index = box->findData(settings.value(QString::fromLatin1(key)).toString());
        box->setCurrentIndex(std::max(0, index));
    };
    choose(m_status, "status");
    choose(m_judge, "judge");
    choose(m_validation, "validation");
    choose(m_reference, "reference");
    choose(m_human, "human");
    choose(m_protocol, "protocol");
    m_policy->setEditText(settings.value(QStringLiteral("policy")).toString());
    m_worldModel->setEditText(settings.value(QStringLiteral("worldModel")).toString());
    m_text->setText(settings.value(QStringLiteral("text")).toString());
    m_restoring = false;
    m_debounce->stop();
    applyFilter();
}

void RunsView::ledgerOpened(const QString &ledgerKey)
{
    m_ledgerKey = ledgerKey;
    reloadProtocols();
    restoreFilter();
    // Another ledger starts at its first column and row, not where the previous one was left.
    m_table->horizontalScrollBar()->setValue(0);
    m_table->verticalScrollBar()->setValue(0);
}

void RunsView::reloadProtocols()
{
    const QSignalBlocker blocker(m_protocol);
    const QString chosen = m_protocol->currentData().toString();
    m_protocol->clear();
    m_protocol->addItem(tr("protocol"), QString());
    for (const auto &[name, sha] : m_model->protocols())
        m_protocol->addItem(QStringLiteral("%1 (%2)").arg(name, sha.left(12)), sha);
    m_protocol->setCurrentIndex(std::max(0, m_protocol->findData(chosen)));
    m_protocol->setEnabled(m_protocol->count() > 1);
    // The values present, each under its short label (the full identity as its tooltip).
    for (QComboBox *box : {m_policy, m_worldModel}) {
        const QSignalBlocker boxBlocker(box);
        const QString text = box->currentText();
        box->clear();
        const QStringList values = box == m_policy ? m_model->policies() : m_model->worldModels();
        for (const QString &value : values) {
            box->addItem(box == m_policy ? m_model->policyLabel(value) : value, value);
            box->setItemData(box->count() - 1, value, Qt::ToolTipRole);
        }
        box->setEditText(text);
    }
}

void RunsView::updateCount()
{
    m_count->setText(
        tr("%1 runs shown (%2 loaded)").arg(m_model->matchingCount()).arg(m_model->rowCount()));
}

} // namespace kosmos::ui
