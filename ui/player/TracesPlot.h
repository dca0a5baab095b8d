#pragma once

#include "queries/RolloutQuery.h"

#include <QWidget>

class QCustomPlot;
class QCPItemStraightLine;

namespace kosmos::ui {

// The action traces under the frames: one track per action dimension (name and unit from the
// contract), the gripper on its own track, a time cursor shared with the player. Clicking or
// dragging in a track seeks.
class TracesPlot : public QWidget
{
    Q_OBJECT
public:
    explicit TracesPlot(QWidget *parent = nullptr);
    void setRollout(const RolloutView &rollout);
    int trackCount() const;
    QCustomPlot *plot() const { return m_plot; }

    // Vertical markers on every track: bookmarks (green), the judge's 16 frames (grey dotted),
    // validation failures at their frame (red). Chunk boundaries come with the rollout.
    void setMarkers(const QList<int> &bookmarks, const QList<int> &judgeFrames,
                    const QList<int> &validationFailures = {});
    int markerCount() const { return static_cast<int>(m_markers.size()); }
    // Thin blue lines where a world-model call began (the rollout's chunk boundaries).
    int chunkBoundaryCount() const { return static_cast<int>(m_chunkMarkers.size()); }

public slots:
    void setCursor(int frame);

signals:
    void seekRequested(int frame);

private:
    void seekAt(double x);

    QCustomPlot *m_plot;
    QList<QCPItemStraightLine *> m_cursors;
    QList<QCPItemStraightLine *> m_markers;
    QList<QCPItemStraightLine *> m_chunkMarkers;
};

} // namespace kosmos::ui
