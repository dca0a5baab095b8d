#include "views/RunsView.h"

#include "models/RunsModel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QTableView>
#include <QVBoxLayout>

namespace kosmos::ui {

RunsView::RunsView(RunsModel *model, QWidget *parent)
    : QWidget(parent), m_model(model), m_table(new QTableView(this)), m_status(new QComboBox(this)),
      m_judge(new QComboBox(this)), m_validation(new QComboBox(this)),
      m_policy(new QLineEdit(this)), m_text(new QLineEdit(this)), m_worldModel(new QLineEdit(this)),
      m_reference(new QComboBox(this)), m_human(new QComboBox(this)),
      m_protocol(new QComboBox(this)), m_count(new QLabel(this))
{
    m_status->addItem(tr("any status"), QString());
    for (const char *s : {"queued", "running", "completed", "failed", "cancelled"})
        m_status->addItem(QString::fromLatin1(s), QString::fromLatin1(s));
    m_judge->addItem(tr("any judge outcome"), QString());
    for (const char *s : {"success", "failure", "unknown", "none"})
        m_judge->addItem(QString::fromLatin1(s), QString::fromLatin1(s));
    m_validation->addItem(tr("any validation"), QString());
    for (const char *s : {"valid", "invalid", "unknown", "none"})
        m_validation->addItem(QString::fromLatin1(s), QString::fromLatin1(s));
    m_policy->setPlaceholderText(tr("policy"));
    m_text->setPlaceholderText(tr("search task / instruction"));
    m_worldModel->setPlaceholderText(tr("world model"));
    m_reference->addItem(tr("any reference label"), QString());
    m_human->addItem(tr("any human label"), QString());
    for (QComboBox *box : {m_reference, m_human})
        for (const char *s : {"met", "not_met", "unclear", "none"})
            box->addItem(QString::fromLatin1(s), QString::fromLatin1(s));
    m_reference->setToolTip(tr("Reference labels come from a world that knows its true state "
                               "(synthetic); they are not human labels"));
    m_protocol->addItem(tr("any protocol"), QString());
    auto *filters = new QHBoxLayout;
    for (QWidget *w :
         std::initializer_list<QWidget *>{m_status, m_judge, m_validation, m_policy, m_text})
        filters->addWidget(w);
    filters->addWidget(m_count);
    auto *more = new QHBoxLayout;
    for (QWidget *w :
         std::initializer_list<QWidget *>{m_protocol, m_worldModel, m_reference, m_human})
        more->addWidget(w);
    more->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(filters);
    layout->addLayout(more);
    layout->addWidget(m_table, 1);

    m_table->setModel(m_model);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RunsModel::Run, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setObjectName(QStringLiteral("runsTable"));

    for (QComboBox *box : {m_status, m_judge, m_validation, m_reference, m_human, m_protocol})
        connect(box, &QComboBox::currentIndexChanged, this, &RunsView::applyFilter);
    for (QLineEdit *edit : {m_policy, m_text, m_worldModel})
        connect(edit, &QLineEdit::editingFinished, this, &RunsView::applyFilter);
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
    RunsFilter f;
    f.status = m_status->currentData().toString();
    f.judgeOutcome = m_judge->currentData().toString();
    f.validation = m_validation->currentData().toString();
    f.policy = m_policy->text().trimmed();
    f.text = m_text->text().trimmed();
    f.worldModel = m_worldModel->text().trimmed();
    f.reference = m_reference->currentData().toString();
    f.human = m_human->currentData().toString();
    f.protocolSha = m_protocol->currentData().toString();
    m_model->setFilter(f);
}

void RunsView::reloadProtocols()
{
    const QSignalBlocker blocker(m_protocol);
    m_protocol->clear();
    m_protocol->addItem(tr("any protocol"), QString());
    for (const auto &[name, sha] : m_model->protocols())
        m_protocol->addItem(QStringLiteral("%1 (%2)").arg(name, sha.left(12)), sha);
    m_protocol->setEnabled(m_protocol->count() > 1);
}

void RunsView::updateCount()
{
    m_count->setText(
        tr("%1 runs shown (%2 loaded)").arg(m_model->matchingCount()).arg(m_model->rowCount()));
}

} // namespace kosmos::ui
