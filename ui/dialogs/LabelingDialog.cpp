#include "dialogs/LabelingDialog.h"

#include "dialogs/ScreenFit.h"
#include "evaluation/AnnotationPacket.h"
#include "ledger/Ledger.h"
#include "player/FramePlayer.h"
#include "queries/RolloutQuery.h"

#include <QCoreApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <random>

namespace kosmos::ui {

LabelingDialog::LabelingDialog(Ledger &reader, Ledger &writer, std::vector<std::int64_t> runIds,
                               QString annotator, std::uint64_t seed, QWidget *parent)
    : QDialog(parent), m_reader(reader), m_writer(writer), m_runs(std::move(runIds)),
      m_annotator(std::move(annotator)), m_player(new FramePlayer(this)), m_task(new QLabel(this)),
      m_fields(new QLabel(this)), m_status(new QLabel(this))
{
    setWindowTitle(tr("Blind labeling"));
    std::mt19937_64 rng(seed);
    std::shuffle(m_runs.begin(), m_runs.end(), rng); // the order says nothing about the runs
    m_task->setWordWrap(true);
    m_task->setStyleSheet(QStringLiteral("font-size: 14pt"));
    auto *help = new QLabel(
        tr("Completion: M met, N not met, U uncertain. Progress: 0-5. Integrity: I intact, A "
           "artifact. Collision: C none visible, V visible. Enter saves and moves on, S skips. "
           "Frames: Left/Right, Space, Home/End."),
        this);
    help->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_task);
    layout->addWidget(m_player, 1);
    layout->addWidget(m_fields);
    layout->addWidget(help);
    layout->addWidget(m_status);
    // The dialog keeps the keyboard (digits are progress here, not the player's zoom); frame
    // navigation keys are passed on to the player.
    m_player->setFocusPolicy(Qt::NoFocus);
    setFocusPolicy(Qt::StrongFocus);
    fitToScreen(this, {900, 700});
    showClip();
}

int LabelingDialog::remaining() const
{
    return static_cast<int>(m_runs.size() - std::min(m_index, m_runs.size()));
}

std::int64_t LabelingDialog::currentRun() const
{
    return m_index < m_runs.size() ? m_runs[m_index] : 0;
}

QString LabelingDialog::fieldsText() const
{
    return m_fields->text();
}

void LabelingDialog::showClip()
{
    m_integrity.clear();
    m_collision.clear();
    m_completion.clear();
    m_progress = -1;
    if (m_index >= m_runs.size()) {
        m_task->setText(tr("All clips done: %1 labels saved.").arg(m_saved));
        m_player->setRollout(&m_reader, RolloutView{});
        m_fields->clear();
        return;
    }
    const auto run = m_reader.run(m_runs[m_index]);
    // Only the instruction: never the policy, world model, judge outcome or another label.
    m_task->setText(tr("Clip %1 of %2. Task: %3")
                        .arg(m_index + 1)
                        .arg(m_runs.size())
                        .arg(QString::fromStdString(run ? run->instruction.value_or("") : "")));
    RolloutView frames = loadRollout(m_reader, m_runs[m_index]);
    frames.actions.clear(); // blind: no actions
    frames.referenceVideoSha256.reset();
    frames.sourceVideoSha256.reset();
    m_player->setRollout(&m_reader, frames);
    m_fields->setText(tr("completion -, progress -, integrity -, collision -"));
}

bool LabelingDialog::save()
{
    if (m_index >= m_runs.size())
        return false;
    if (m_completion.isEmpty() || m_progress < 0) {
        m_status->setText(tr("Completion (M/N/U) and progress (0-5) are needed before saving."));
        return false;
    }
    HumanLabelRecord label;
    label.runId = m_runs[m_index];
    label.annotatorId = m_annotator.toStdString();
    label.source = "human";
    label.split = splitOfLineage(lineageOfRun(m_reader, label.runId));
    label.completion = m_completion.toStdString();
    label.progress = m_progress;
    if (!m_integrity.isEmpty())
        label.integrity = m_integrity.toStdString();
    if (!m_collision.isEmpty())
        label.collision = m_collision.toStdString();
    try {
        m_writer.addHumanLabel(label);
    } catch (const std::exception &e) {
        m_status->setText(QString::fromUtf8(e.what())); // e.g. met with progress 3
        return false;
    }
    ++m_saved;
    m_status->setText(tr("saved (%1 so far)").arg(m_saved));
    return true;
}

void LabelingDialog::keyPressEvent(QKeyEvent *event)
{
    const int key = event->key();
    if (key >= Qt::Key_0 && key <= Qt::Key_5) {
        m_progress = key - Qt::Key_0;
    } else if (key == Qt::Key_M) {
        m_completion = QStringLiteral("met");
    } else if (key == Qt::Key_N) {
        m_completion = QStringLiteral("not_met");
    } else if (key == Qt::Key_U) {
        m_completion = QStringLiteral("uncertain");
    } else if (key == Qt::Key_I) {
        m_integrity = QStringLiteral("intact");
    } else if (key == Qt::Key_A) {
        m_integrity = QStringLiteral("artifact");
    } else if (key == Qt::Key_C) {
        m_collision = QStringLiteral("none_visible");
    } else if (key == Qt::Key_V) {
        m_collision = QStringLiteral("visible");
    } else if (key == Qt::Key_Return || key == Qt::Key_Enter) {
        if (save()) {
            ++m_index;
            showClip();
        }
        return;
    } else if (key == Qt::Key_S) {
        ++m_index;
        showClip();
        return;
    } else if (key == Qt::Key_Escape) {
        QDialog::keyPressEvent(event);
        return;
    } else {
        // Frame navigation goes to the player.
        QCoreApplication::sendEvent(m_player, event);
        return;
    }
    auto shown = [](const QString &v) { return v.isEmpty() ? QStringLiteral("-") : v; };
    m_fields->setText(tr("completion %1, progress %2, integrity %3, collision %4")
                          .arg(shown(m_completion),
                               m_progress < 0 ? QStringLiteral("-") : QString::number(m_progress),
                               shown(m_integrity), shown(m_collision)));
}

} // namespace kosmos::ui
