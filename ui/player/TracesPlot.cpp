#include "player/TracesPlot.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

namespace kosmos::ui {

namespace {

// A vertical line at frame `x` through one track.
QCPItemStraightLine *verticalLine(QCustomPlot *plot, QCPAxisRect *rect, double x, const QPen &pen)
{
    auto *line = new QCPItemStraightLine(plot);
    line->setClipAxisRect(rect);
    line->point1->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    line->point2->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(pen);
    return line;
}

} // namespace

TracesPlot::TracesPlot(QWidget *parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setMinimumHeight(160);
    // The moving cursor lives on its own buffered layer: a playback step repaints only that layer,
    // not the 7 x 1,000-step traces.
    m_plot->addLayer(QStringLiteral("cursor"), m_plot->layer(QStringLiteral("main")),
                     QCustomPlot::limAbove);
    m_plot->layer(QStringLiteral("cursor"))->setMode(QCPLayer::lmBuffered);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *e) {
        if (m_plot->axisRectCount() > 0)
            seekAt(m_plot->axisRect(0)->axis(QCPAxis::atBottom)->pixelToCoord(e->position().x()));
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent *e) {
        if ((e->buttons() & Qt::LeftButton) && m_plot->axisRectCount() > 0)
            seekAt(m_plot->axisRect(0)->axis(QCPAxis::atBottom)->pixelToCoord(e->position().x()));
    });
}

int TracesPlot::trackCount() const
{
    return m_plot->axisRectCount();
}

void TracesPlot::seekAt(double x)
{
    emit seekRequested(static_cast<int>(std::lround(x)));
}

void TracesPlot::setRollout(const RolloutView &rollout)
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_plot->plotLayout()->clear();
    m_cursors.clear();
    m_markers.clear();
    m_chunkMarkers.clear();
    const int dims = rollout.actions.empty() ? 0 : static_cast<int>(rollout.actions[0].size());
    // Action t moves frame t to frame t + 1: it is drawn over [t, t + 1] on the frame axis.
    for (int d = 0; d < dims; ++d) {
        auto *rect = new QCPAxisRect(m_plot);
        m_plot->plotLayout()->addElement(d, 0, rect);
        rect->setMinimumMargins(QMargins(60, 2, 8, 2));
        auto *graph = m_plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        QVector<double> x, y;
        for (std::size_t t = 0; t < rollout.actions.size(); ++t) {
            x << static_cast<double>(t) << static_cast<double>(t + 1);
            y << rollout.actions[t][static_cast<std::size_t>(d)]
              << rollout.actions[t][static_cast<std::size_t>(d)];
        }
        graph->setData(x, y, true);
        const bool gripper = rollout.gripperIndex && *rollout.gripperIndex == d;
        graph->setPen(QPen(gripper ? QColor(200, 120, 0) : QColor(40, 90, 170), 1.5));
        rect->axis(QCPAxis::atLeft)
            ->setLabel(
                QString::fromStdString(rollout.dimensionNames.at(static_cast<std::size_t>(d))));
        rect->axis(QCPAxis::atLeft)->setLabelFont(QFont(font().family(), 7));
        rect->axis(QCPAxis::atLeft)->setTickLabelFont(QFont(font().family(), 7));
        rect->axis(QCPAxis::atBottom)->setTickLabels(d == dims - 1);
        rect->axis(QCPAxis::atBottom)
            ->setRange(0,
                       std::max<double>(1, rollout.frames.empty()
                                               ? 1.0
                                               : static_cast<double>(rollout.frames.size() - 1)));
        graph->rescaleValueAxis(false, true);
        if (rect->axis(QCPAxis::atLeft)->range().size() < 1e-9)
            rect->axis(QCPAxis::atLeft)
                ->setRange(rect->axis(QCPAxis::atLeft)->range().center() - 1,
                           rect->axis(QCPAxis::atLeft)->range().center() + 1);
        auto *cursor = verticalLine(m_plot, rect, 0, QPen(QColor(220, 40, 40), 1));
        cursor->setLayer(QStringLiteral("cursor"));
        m_cursors << cursor;
        // A boundary after every single action (chunk length 1) would only hide the traces.
        const bool chunked = rollout.chunkBoundaries.size() + 1 < rollout.actions.size();
        for (int boundary : chunked ? rollout.chunkBoundaries : std::vector<int>{})
            m_chunkMarkers << verticalLine(m_plot, rect, boundary,
                                           QPen(QColor(90, 140, 220, 140), 1));
    }
    // The world's own state (the physics world): one track per object, its x, y, z in metres.
    const int objects = static_cast<int>(rollout.objectTracks.size());
    const QColor axes[3] = {QColor(200, 50, 50), QColor(40, 150, 60), QColor(40, 90, 170)};
    for (int o = 0; o < objects; ++o) {
        const ObjectTrack &track = rollout.objectTracks[static_cast<std::size_t>(o)];
        auto *rect = new QCPAxisRect(m_plot);
        m_plot->plotLayout()->addElement(dims + o, 0, rect);
        rect->setMinimumMargins(QMargins(60, 2, 8, 2));
        for (int axis = 0; axis < 3; ++axis) {
            auto *graph =
                m_plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            QVector<double> x, y;
            for (std::size_t i = 0; i < track.frames.size(); ++i) {
                x << track.frames[i];
                y << track.positions[i][static_cast<std::size_t>(axis)];
            }
            graph->setData(x, y, true);
            graph->setPen(QPen(axes[axis], 1.2));
            graph->setName(QStringLiteral("xyz").mid(axis, 1));
        }
        rect->axis(QCPAxis::atLeft)
            ->setLabel(tr("%1 x/y/z [m]").arg(QString::fromStdString(track.name)));
        rect->axis(QCPAxis::atLeft)->setLabelFont(QFont(font().family(), 7));
        rect->axis(QCPAxis::atLeft)->setTickLabelFont(QFont(font().family(), 7));
        rect->axis(QCPAxis::atBottom)->setTickLabels(o == objects - 1);
        rect->axis(QCPAxis::atBottom)
            ->setRange(0,
                       std::max<double>(1, rollout.frames.empty()
                                               ? 1.0
                                               : static_cast<double>(rollout.frames.size() - 1)));
        rect->axis(QCPAxis::atLeft)->setRange(-0.3, 0.3);
        auto *cursor = verticalLine(m_plot, rect, 0, QPen(QColor(220, 40, 40), 1));
        cursor->setLayer(QStringLiteral("cursor"));
        m_cursors << cursor;
    }
    if (dims + objects > 0)
        m_plot->axisRect(dims + objects - 1)->axis(QCPAxis::atBottom)->setLabel(tr("frame"));
    m_plot->replot();
    setCursor(0);
}

void TracesPlot::setMarkers(const QList<int> &bookmarks, const QList<int> &judgeFrames,
                            const QList<int> &validationFailures)
{
    for (auto *m : m_markers)
        m_plot->removeItem(m);
    m_markers.clear();
    for (int r = 0; r < m_plot->axisRectCount(); ++r) {
        QCPAxisRect *rect = m_plot->axisRect(r);
        auto add = [&](int frame, const QPen &pen) {
            m_markers << verticalLine(m_plot, rect, frame, pen);
        };
        for (int f : judgeFrames)
            add(f, QPen(QColor(150, 150, 150), 1, Qt::DotLine));
        for (int f : validationFailures)
            add(f, QPen(QColor(200, 30, 30), 2));
        for (int f : bookmarks)
            add(f, QPen(QColor(30, 150, 60), 2, Qt::DashLine));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TracesPlot::setCursor(int frame)
{
    for (auto *c : m_cursors) {
        c->point1->setCoords(frame, 0);
        c->point2->setCoords(frame, 1);
    }
    m_plot->layer(QStringLiteral("cursor"))->replot();
}

} // namespace kosmos::ui
