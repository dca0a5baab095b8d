#include "panels/BookmarksPanel.h"

#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace kosmos::ui {

BookmarksPanel::BookmarksPanel(QWidget *parent)
    : QWidget(parent), m_list(new QListWidget(this)), m_remove(new QPushButton(tr("Remove"), this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_remove);
    m_list->setToolTip(tr("Press B in the player to bookmark the current frame"));
    connect(m_list, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) {
        emit seekRequested(item->data(Qt::UserRole + 1).toInt());
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        if (auto *item = m_list->currentItem())
            emit removeRequested(item->data(Qt::UserRole).toLongLong());
    });
}

void BookmarksPanel::setEntries(const QList<Entry> &entries)
{
    m_list->clear();
    for (const Entry &e : entries) {
        auto *item = new QListWidgetItem(tr("frame %1  %2").arg(e.frame).arg(e.text), m_list);
        item->setData(Qt::UserRole, e.id);
        item->setData(Qt::UserRole + 1, e.frame);
    }
}

} // namespace kosmos::ui
