#pragma once

#include "media/RolloutExport.h"

#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace kosmos::ui {

// Export: where to (a folder, created when missing; Choose... can make a new one) and what:
// the frames as PNG, the actions as CSV, the video (H.264) and its overlay. Several runs go to
// one folder each (run-N) inside it.
class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    ExportDialog(int runs, const QString &startFolder, QWidget *parent = nullptr);
    QString folder() const;
    ExportOptions options() const;
    QLineEdit *folderEdit() const { return m_folder; }
    QCheckBox *frames() const { return m_frames; }
    QCheckBox *actions() const { return m_actions; }
    QCheckBox *video() const { return m_video; }
    QCheckBox *overlay() const { return m_overlay; }

private:
    void check();

    QLineEdit *m_folder;
    QCheckBox *m_frames;
    QCheckBox *m_actions;
    QCheckBox *m_video;
    QCheckBox *m_overlay;
    QLabel *m_problem;
    QPushButton *m_ok = nullptr;
};

} // namespace kosmos::ui
