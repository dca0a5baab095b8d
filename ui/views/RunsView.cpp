#include "views/RunsView.h"

#include "models/RunsModel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>

namespace kosmos::ui {

RunsView::RunsView(RunsModel *model, QWidget *parent)
    : QWidget(parent), m_model(model), m_table(new QTableView(this)), m_status(new QComboBox(this)),
      m_judge(new QComboBox(this)), m_validation(new QComboBox(this)),
      m_policy(new QLineEdit(this)), m_text(new QLineEdit(this)), m_count(new QLabel(this))
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
    auto *filters = new QHBoxLayout;
    for (QWidget *w :
         std::initializer_list<QWidget *>{m_status, m_judge, m_validation, m_policy, m_text})
        filters->addWidget(w);
    filters->addWidget(m_count);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(filters);
    layout->addWidget(m_table, 1);

    m_table->setModel(m_model);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RunsModel::Run, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setObjectName(QStringLiteral("runsTable"));

    for (QComboBox *box : {m_status, m_judge, m_validation})
        connect(box, &QComboBox::currentIndexChanged, this, &RunsView::applyFilter);
    for (QLineEdit *edit : {m_policy, m_text})
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
    m_model->setFilter(f);
}

void RunsView::updateCount()
{
    m_count->setText(
        tr("%1 runs shown (%2 loaded)").arg(m_model->matchingCount()).arg(m_model->rowCount()));
}

} // namespace kosmos::ui
