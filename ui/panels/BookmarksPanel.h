#pragma once

#include <QWidget>

class QListWidget;
class QPushButton;

namespace kosmos::ui {

// The user's bookmarks on the current run's timeline (stored in the ledger as annotations):
// listed by frame, clickable to seek, removable. Adding is done by the main window (key B).
class BookmarksPanel : public QWidget
{
    Q_OBJECT
public:
    struct Entry
    {
        qint64 id = 0;
        int frame = 0;
        QString text;
    };
    explicit BookmarksPanel(QWidget *parent = nullptr);
    void setEntries(const QList<Entry> &entries);
    QListWidget *list() const { return m_list; }

signals:
    void seekRequested(int frame);
    void removeRequested(qint64 id);

private:
    QListWidget *m_list;
    QPushButton *m_remove;
};

} // namespace kosmos::ui
