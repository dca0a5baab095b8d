#include "dialogs/ExportDialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace kosmos::ui {

ExportDialog::ExportDialog(int runs, const QString &startFolder, QWidget *parent)
    : QDialog(parent), m_folder(new QLineEdit(this)),
      m_frames(new QCheckBox(tr("Frames (PNG, as stored)"), this)),
      m_actions(new QCheckBox(tr("Actions (CSV)"), this)),
      m_video(new QCheckBox(tr("Video (H.264 MP4, plays in browsers)"), this)),
      m_overlay(
          new QCheckBox(tr("Overlay on the video: run, policy, step, verdict, actions"), this)),
      m_problem(new QLabel(this))
{
    setWindowTitle(runs > 1 ? tr("Export %1 runs").arg(runs) : tr("Export the run"));
    QSettings settings;
    m_folder->setText(settings.value(QStringLiteral("export/folder"), startFolder).toString());
    m_folder->setPlaceholderText(tr("a folder; created when missing"));
    m_frames->setChecked(settings.value(QStringLiteral("export/frames"), true).toBool());
    m_actions->setChecked(settings.value(QStringLiteral("export/actions"), true).toBool());
    m_video->setChecked(settings.value(QStringLiteral("export/video"), true).toBool());
    m_overlay->setChecked(settings.value(QStringLiteral("export/overlay"), true).toBool());
    auto *choose = new QPushButton(tr("Choose..."), this);
    connect(choose, &QPushButton::clicked, this, [this] {
        // Qt's own dialog: it has a button to make a new folder.
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Export to"), m_folder->text(),
            QFileDialog::ShowDirsOnly | QFileDialog::DontUseNativeDialog);
        if (!dir.isEmpty())
            m_folder->setText(dir);
    });
    auto *where = new QHBoxLayout;
    where->addWidget(m_folder, 1);
    where->addWidget(choose);
    auto *form = new QFormLayout;
    form->addRow(runs > 1 ? tr("Into (one folder per run)") : tr("Into"), where);
    auto *what = new QVBoxLayout;
    for (QCheckBox *box : {m_frames, m_actions, m_video, m_overlay})
        what->addWidget(box);
    form->addRow(tr("What"), what);
    m_problem->setStyleSheet(QStringLiteral("color: #b01c1c"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Export"));
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        QSettings s;
        s.setValue(QStringLiteral("export/folder"), folder());
        s.setValue(QStringLiteral("export/frames"), m_frames->isChecked());
        s.setValue(QStringLiteral("export/actions"), m_actions->isChecked());
        s.setValue(QStringLiteral("export/video"), m_video->isChecked());
        s.setValue(QStringLiteral("export/overlay"), m_overlay->isChecked());
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    for (QCheckBox *box : {m_frames, m_actions, m_video})
        connect(box, &QCheckBox::toggled, this, &ExportDialog::check);
    connect(m_folder, &QLineEdit::textChanged, this, &ExportDialog::check);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    resize(560, sizeHint().height());
    check();
}

void ExportDialog::check()
{
    m_overlay->setEnabled(m_video->isChecked());
    QString problem;
    if (folder().isEmpty())
        problem = tr("Choose a folder to export to.");
    else if (!m_frames->isChecked() && !m_actions->isChecked() && !m_video->isChecked())
        problem = tr("Choose what to export: the frames, the actions or the video.");
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_ok->setEnabled(problem.isEmpty());
}

QString ExportDialog::folder() const
{
    return m_folder->text().trimmed();
}

ExportOptions ExportDialog::options() const
{
    return {m_frames->isChecked(), m_actions->isChecked(), m_video->isChecked(),
            m_overlay->isChecked()};
}

} // namespace kosmos::ui
