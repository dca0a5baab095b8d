#pragma once

#include "pipeline/RolloutQuery.h"

#include <QFutureWatcher>
#include <QHash>
#include <QImage>
#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QTimer;
class QToolButton;

namespace kosmos {
class Ledger;
}

namespace kosmos::ui {

// Paints one frame, fit to the view (or at its true size), keeping the aspect ratio.
class FrameView : public QWidget
{
    Q_OBJECT
public:
    explicit FrameView(QWidget *parent = nullptr);
    void setImage(const QImage &image);
    void setFitToView(bool fit);
    const QImage &image() const { return m_image; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QImage m_image;
    bool m_fit = true;
};

// The generated frames of a run with the transport: play/pause (Space), step (Left/Right,
// Shift = 10), Home/End, speeds 0.1x to 4x, loop. Frames are decoded (hash-checked) on a worker
// thread ahead of the playhead, never on the GUI thread's critical path.
class FramePlayer : public QWidget
{
    Q_OBJECT
public:
    explicit FramePlayer(QWidget *parent = nullptr);
    ~FramePlayer() override;

    // The ledger must outlive the player's use of it (the main window owns both).
    void setRollout(Ledger *ledger, const RolloutView &rollout);
    int position() const { return m_position; }
    int frameCount() const { return static_cast<int>(m_rollout.frames.size()); }
    bool isPlaying() const;
    double speed() const;
    const FrameView *view() const { return m_view; }

public slots:
    void seek(int frame);
    void step(int delta);
    void togglePlay();
    void setSpeed(double speed);

signals:
    void positionChanged(int frame);

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    void decodeAhead();
    void show(int frame);
    QImage decode(int frame) const;

    Ledger *m_ledger = nullptr;
    RolloutView m_rollout;
    int m_position = 0;
    QHash<int, QImage> m_cache;
    std::unique_ptr<QFutureWatcher<QPair<int, QImage>>> m_watcher;
    int m_decoding = -1;
    FrameView *m_view;
    QToolButton *m_play;
    QSlider *m_slider;
    QComboBox *m_speed;
    QCheckBox *m_loop;
    QCheckBox *m_fit;
    QLabel *m_label;
    QTimer *m_timer;
};

} // namespace kosmos::ui
