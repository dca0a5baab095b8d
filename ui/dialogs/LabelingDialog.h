#pragma once

#include <QDialog>

#include <cstdint>
#include <vector>

class QLabel;

namespace kosmos {
class Ledger;
}

namespace kosmos::ui {

class FramePlayer;

// Blind labeling: one clip at a time, in a shuffled order, showing only its frames and the
// task instruction (no policy, actions, world model, judge outcome or other label). Keyboard
// first, in the judge's own fields:
//   M / N / U  completion met / not met / uncertain     0-5  progress
//   I / A      integrity intact / artifact              C / V  collision none visible / visible
//   Enter      save and go to the next clip             S      skip this clip
// Left/Right, Space, Home/End move through the frames. Each label is recorded with the
// annotator, the time and the clip's lineage split (development / held_out).
class LabelingDialog : public QDialog
{
    Q_OBJECT
public:
    // `reader` shows the frames; `writer` records labels (the main window's writable
    // connection). Both must outlive the dialog.
    LabelingDialog(Ledger &reader, Ledger &writer, std::vector<std::int64_t> runIds,
                   QString annotator, std::uint64_t seed, QWidget *parent = nullptr);

    int saved() const { return m_saved; }
    int remaining() const;
    std::int64_t currentRun() const;
    QString fieldsText() const;
    FramePlayer *player() const { return m_player; }

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    void showClip();
    bool save();

    Ledger &m_reader;
    Ledger &m_writer;
    std::vector<std::int64_t> m_runs;
    std::size_t m_index = 0;
    QString m_annotator;
    int m_saved = 0;
    QString m_integrity, m_collision, m_completion;
    int m_progress = -1;
    FramePlayer *m_player;
    QLabel *m_task;
    QLabel *m_fields;
    QLabel *m_status;
};

} // namespace kosmos::ui
