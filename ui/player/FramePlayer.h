#pragma once

#include "queries/RolloutQuery.h"

#include <QFutureWatcher>
#include <QHash>
#include <QImage>
#include <QSlider>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>

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

class ReferenceVideo;

// Paints one frame, fit to the view (zoom 0) or at a zoom factor (1 = true size), keeping the
// aspect ratio and never smoothing pixels. Ctrl+wheel zooms; dragging pans a zoomed frame.
class FrameView : public QWidget
{
    Q_OBJECT
public:
    explicit FrameView(QWidget *parent = nullptr);
    void setImage(const QImage &image);
    const QImage &image() const { return m_image; }
    double zoom() const { return m_zoom; }
    // The factor actually painted: the fit factor when zoom() is 0.
    double effectiveZoom() const;
    // The image pixel shown at a point of the view (where Ctrl+wheel zooms around).
    QPointF imagePointAt(const QPointF &widgetPoint) const;

public slots:
    void setZoom(double zoom); // 0: fit to view

signals:
    void zoomStepRequested(int steps); // Ctrl+wheel: + in, - out

protected:
    void paintEvent(QPaintEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    QRectF targetRect() const;

    QImage m_image;
    double m_zoom = 0;
    QPointF m_pan;
    QPointF m_dragFrom;
    std::optional<QPointF> m_anchor; // the mouse, while a Ctrl+wheel zoom is applied
};

// The frame slider with the run's markers drawn along its groove, as on the traces: bookmarks
// (green), the judge's frames (grey), validation failures (red), world-model calls (blue).
class MarkedSlider : public QSlider
{
    Q_OBJECT
public:
    struct Marker
    {
        int frame = 0;
        QColor colour;
    };
    explicit MarkedSlider(QWidget *parent = nullptr);
    void setMarkers(const QList<Marker> &markers);
    int markerCount() const { return static_cast<int>(m_markers.size()); }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QList<Marker> m_markers;
};

// The generated frames of a run with the transport: play/pause (Space), step (Left/Right,
// Shift = 10), Home/End, speeds 0.1x to 4x, loop; zoom with +/-, 0 fits, 1 is true size. Frames are
// decoded (hash-checked) on a worker thread ahead of the playhead, never on the GUI thread's
// critical path.
class FramePlayer : public QWidget
{
    Q_OBJECT
public:
    explicit FramePlayer(QWidget *parent = nullptr);
    ~FramePlayer() override;

    // The ledger must outlive the player's use of it (the main window owns both).
    void setRollout(Ledger *ledger, const RolloutView &rollout);
    // Frames that are not ledger artifacts (a recorded dataset's episode, read in place): one
    // per entry of rollout.frames, each made by `frames` (called on a worker thread and on the
    // GUI thread, so it must be safe to call from both; a null image shows as no frame).
    using FrameSource = std::function<QImage(int frame)>;
    void setFrames(const RolloutView &rollout, FrameSource frames);
    // The playback keys (Space, Left/Right, Shift = 10, Home/End) over `widgets` and their
    // children, not only when the frame has focus; line edits keep their own keys.
    void addPlaybackKeys(const QList<QWidget *> &widgets);
    // Waits for the frame being decoded in the background, then forgets the ledger and the
    // rollout: call it before the ledger it was given goes away.
    void releaseLedger();
    // Shows nothing (no run selected): after another ledger was opened.
    void clear();
    int position() const { return m_position; }
    int frameCount() const { return static_cast<int>(m_rollout.frames.size()); }
    bool isPlaying() const;
    double speed() const;
    const FrameView *view() const { return m_view; }
    ReferenceVideo *reference() const { return m_reference; }
    // The policy's own image for the current frame (SuSIE's subgoal), hidden when it has none.
    QLabel *policyImage() const { return m_policyImage; }
    // Markers on the frame slider (the rollout's world-model calls are added by setRollout).
    void setMarkers(const QList<int> &bookmarks, const QList<int> &judgeFrames,
                    const QList<int> &validationFailures);
    const MarkedSlider *slider() const { return m_slider; }

public slots:
    void seek(int frame);
    void step(int delta);
    void togglePlay();
    void setSpeed(double speed);
    // Fit (0) or a factor from the zoom list (0.25 ... 8); zoomBy steps through that list.
    void setZoom(double zoom);
    void zoomBy(int steps);

signals:
    void positionChanged(int frame);

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    void load(Ledger *ledger, const RolloutView &rollout, FrameSource frames);
    void decodeAhead();
    void show(int frame);
    QImage decode(int frame) const;
    void showReference();
    void showPolicyImage(int frame);

    Ledger *m_ledger = nullptr;
    FrameSource m_frames; // instead of the ledger's artifacts
    RolloutView m_rollout;
    int m_position = 0;
    QHash<int, QImage> m_cache;
    std::unique_ptr<QFutureWatcher<QPair<int, QImage>>> m_watcher;
    int m_decoding = -1;
    FrameView *m_view;
    ReferenceVideo *m_reference;
    QLabel *m_policyImage;
    int m_policyImageShown = -1; // index into m_rollout.policyImages
    QToolButton *m_play;
    MarkedSlider *m_slider;
    QList<int> m_bookmarks, m_judgeFrames, m_failures;
    QComboBox *m_speed;
    QCheckBox *m_loop;
    QComboBox *m_zoom;
    QLabel *m_label;
    QTimer *m_timer;
};

} // namespace kosmos::ui
