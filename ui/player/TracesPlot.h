#pragma once

#include "queries/RolloutQuery.h"

#include <QWidget>

class QCustomPlot;
class QCPAxis;
class QCPAxisRect;
class QCPItemStraightLine;
class QLabel;
class QMenu;
class QScrollArea;
class QScrollBar;
class QToolButton;

namespace kosmos::ui {

// The action traces under the frames: one track per action dimension (name and unit from the
// contract), the gripper on its own track, the world's object poses (physics runs) as tracks, a
// time cursor shared with the player. As in PlotJuggler or Rerun:
//  - hover read-out: step, time and each channel's value with its unit under the mouse;
//  - x zoom and pan shared by every track: the wheel zooms around the mouse, the middle button
//    (or Shift + left) drags, the range bar under the tracks scrolls, double-click or Reset shows
//    everything; a zoomed view follows the player's cursor;
//  - a channel picker (show/hide each channel, or group the action dimensions on one axis) and a
//    legend of the channels and markers;
//  - channel names drawn inside each track, readable at any track height;
//  - an overlay run (the compare workspace) drawn dashed on the same axes.
// Clicking or dragging in a track (left button) seeks.
class TracesPlot : public QWidget
{
    Q_OBJECT
public:
    explicit TracesPlot(QWidget *parent = nullptr);
    void setRollout(const RolloutView &rollout);
    // Draws `other` on the same axes, dashed, with both names in the legend; an empty rollout
    // removes the overlay.
    void setOverlay(const RolloutView &other, const QString &name, const QString &otherName);
    void clear() { setRollout(RolloutView{}); }
    int trackCount() const;
    QCustomPlot *plot() const { return m_plot; }
    // Vertical markers on every track: bookmarks (green), the judge's 16 frames (grey dotted),
    // validation failures at their frame (red). Chunk boundaries come with the rollout.
    void setMarkers(const QList<int> &bookmarks, const QList<int> &judgeFrames,
                    const QList<int> &validationFailures = {});
    int markerCount() const { return static_cast<int>(m_markers.size()); }
    // Thin blue lines where a world-model call began (the rollout's chunk boundaries).
    int chunkBoundaryCount() const { return static_cast<int>(m_chunkMarkers.size()); }

    // Channels: action dimensions first, then object tracks; hidden ones are not drawn.
    QStringList channels() const;
    void setChannelVisible(int channel, bool visible);
    bool channelVisible(int channel) const;
    void setGrouped(bool grouped); // every action dimension on one shared axis
    bool grouped() const { return m_grouped; }
    // The shared frame range shown (zoom/pan), and the whole rollout's.
    QPair<double, double> visibleRange() const;
    void setVisibleRange(double from, double to);
    void resetZoom();
    void zoomAround(double frame, double factor); // factor < 1 zooms in
    // The read-out for the mouse at (x, y) in plot pixels; what hovering shows (also the tooltip).
    QString readOutAt(const QPointF &pixel) const;
    QString readOut() const;
    QString legendText() const;
    QScrollBar *rangeBar() const { return m_rangeBar; }
    // The least height of one track: value ticks apart and readable; more tracks than the
    // view holds scroll.
    static constexpr int kTrackHeight = 46;

public slots:
    void setCursor(int frame);
    int cursor() const { return m_cursor; }

signals:
    void seekRequested(int frame);
    void visibleRangeChanged(double from, double to);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void rebuild();
    // One track (an axis rect) of the given channels: its graphs, name, value range, cursor and
    // chunk boundaries. `channelCount` is the rollout's action dimensions.
    void addTrack(int track, const QList<int> &members, int channelCount, bool chunked);
    QStringList addTrackGraphs(QCPAxis *xAxis, QCPAxis *yAxis, const QList<int> &members,
                               int channelCount);
    void fitTrackValues(QCPAxis *yAxis, const QList<int> &members);
    void updateLegend(const QList<int> &shownDims, bool chunked);
    void updateTickLabels();
    void replot(int priority);
    void syncRange(const QCPAxis *source);
    void updateRangeBar();
    double frameAt(double pixelX) const;
    double lastFrame() const;

    RolloutView m_rollout;
    RolloutView m_other;
    QString m_name;
    QString m_otherName;
    QVector<bool> m_visible; // per channel
    bool m_grouped = false;
    double m_from = 0;
    double m_to = 1;
    bool m_syncing = false;
    int m_cursor = 0;
    QPointF m_panFrom;
    double m_panRangeFrom = 0;
    bool m_panning = false;
    QCustomPlot *m_plot;
    QLabel *m_readOut;
    QLabel *m_legend;
    QToolButton *m_channels;
    QMenu *m_channelMenu;
    QScrollBar *m_rangeBar;
    QScrollArea *m_scroll = nullptr;
    // Per track: which channels it draws (action dimensions, or -1 - object index).
    QList<QList<int>> m_trackChannels;
    QList<QCPItemStraightLine *> m_cursors;
    QList<QCPItemStraightLine *> m_markers;
    QList<QCPItemStraightLine *> m_chunkMarkers;
    QList<int> m_bookmarks, m_judgeFrames, m_failures;
};

} // namespace kosmos::ui
