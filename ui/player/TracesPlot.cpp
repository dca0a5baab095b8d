#include "player/TracesPlot.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QScrollArea>
#include <QScrollBar>
#include <QTextDocument>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

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

// Distinct colours for channels drawn on one axis (grouped, or an object's x/y/z).
QColor channelColour(int i)
{
    static const QColor palette[] = {QColor(40, 90, 170),  QColor(200, 50, 50), QColor(40, 150, 60),
                                     QColor(150, 60, 170), QColor(0, 140, 150), QColor(120, 90, 40),
                                     QColor(90, 90, 90),   QColor(200, 120, 0)};
    return palette[i % 8];
}

const QColor kGripper(200, 120, 0);
const QColor kAction(40, 90, 170);
const QColor kOverlay(220, 90, 20);
const QColor kCursor(20, 20, 20); // not red: red marks validation failures

QString fmt(double v)
{
    return QString::number(v, 'g', 5);
}

// Action t moves frame t to frame t + 1: it is drawn over [t, t + 1] on the frame axis.
std::pair<QVector<double>, QVector<double>> stepSeries(const RolloutView &r, int d)
{
    QVector<double> x, y;
    for (std::size_t t = 0; t < r.actions.size(); ++t) {
        const double v = r.actions[t][static_cast<std::size_t>(d)];
        x << static_cast<double>(t) << static_cast<double>(t + 1);
        y << v << v;
    }
    return {x, y};
}

} // namespace

TracesPlot::TracesPlot(QWidget *parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)), m_readOut(new QLabel(this)),
      m_legend(new QLabel(this)), m_channels(new QToolButton(this)), m_channelMenu(new QMenu(this)),
      m_rangeBar(new QScrollBar(Qt::Horizontal, this))
{
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(2, 0, 2, 0);
    m_channels->setText(tr("Channels"));
    m_channels->setToolTip(tr("Show or hide channels; group the action dimensions on one axis"));
    m_channels->setMenu(m_channelMenu);
    m_channels->setPopupMode(QToolButton::InstantPopup);
    auto *reset = new QToolButton(this);
    reset->setText(tr("Reset zoom"));
    reset->setToolTip(tr("Show the whole rollout (or double-click the traces). Wheel: zoom around "
                         "the mouse; middle button or Shift+drag: pan"));
    connect(reset, &QToolButton::clicked, this, &TracesPlot::resetZoom);
    m_readOut->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_readOut->setMinimumWidth(80);
    m_readOut->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setWordWrap(true);
    QFont small = m_legend->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    m_legend->setFont(small);
    m_legend->setContentsMargins(4, 0, 4, 0);
    bar->addWidget(m_channels);
    bar->addWidget(reset);
    bar->addWidget(m_readOut, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(m_legend);
    // Every track keeps a readable height (kTrackHeight): many tracks (a physics run's ten)
    // scroll instead of being squeezed flat.
    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setWidget(m_plot);
    m_scroll->setMinimumHeight(120);
    layout->addWidget(m_scroll, 1);
    layout->addWidget(m_rangeBar);
    m_rangeBar->hide();
    m_plot->setMinimumHeight(120);
    // Long rollouts (100,000 steps x 7 tracks): one polyline per graph instead of a line per
    // segment, tick labels cached.
    m_plot->setPlottingHints(QCP::phFastPolylines | QCP::phCacheLabels);
    // The moving cursor lives on its own buffered layer: a playback step repaints only that layer,
    // not the 7 x 1,000-step traces.
    m_plot->addLayer(QStringLiteral("cursor"), m_plot->layer(QStringLiteral("main")),
                     QCustomPlot::limAbove);
    m_plot->layer(QStringLiteral("cursor"))->setMode(QCPLayer::lmBuffered);
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *e) {
        if (m_plot->axisRectCount() == 0)
            return;
        if (e->button() == Qt::MiddleButton ||
            (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ShiftModifier))) {
            m_panning = true;
            m_panFrom = e->position();
            m_panRangeFrom = m_from;
            return;
        }
        if (e->button() == Qt::LeftButton)
            emit seekRequested(static_cast<int>(std::lround(frameAt(e->position().x()))));
    });
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent *) { m_panning = false; });
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent *e) {
        if (m_plot->axisRectCount() == 0)
            return;
        if (m_panning) {
            const double perPixel = (m_to - m_from) / std::max(1, m_plot->axisRect(0)->width());
            const double width = m_to - m_from;
            const double from =
                std::clamp(m_panRangeFrom - (e->position().x() - m_panFrom.x()) * perPixel, 0.0,
                           std::max(0.0, lastFrame() - width));
            setVisibleRange(from, from + width);
            return;
        }
        if (e->buttons() & Qt::LeftButton) {
            emit seekRequested(static_cast<int>(std::lround(frameAt(e->position().x()))));
            return;
        }
        const QString text = readOutAt(e->position());
        m_readOut->setText(text);
        if (!text.isEmpty())
            QToolTip::showText(e->globalPosition().toPoint(), text, m_plot);
    });
    connect(m_plot, &QCustomPlot::mouseWheel, this, [this](QWheelEvent *e) {
        if (m_plot->axisRectCount() == 0 || e->angleDelta().y() == 0)
            return;
        zoomAround(frameAt(e->position().x()), std::pow(0.85, e->angleDelta().y() / 120.0));
    });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent *) { resetZoom(); });
    connect(m_rangeBar, &QScrollBar::valueChanged, this, [this](int value) {
        if (m_syncing)
            return;
        const double width = m_to - m_from;
        setVisibleRange(value / 10.0, value / 10.0 + width);
    });
}

int TracesPlot::trackCount() const
{
    return m_plot->axisRectCount();
}

double TracesPlot::lastFrame() const
{
    return std::max<double>(1, m_rollout.frames.empty()
                                   ? static_cast<double>(m_rollout.actions.size())
                                   : static_cast<double>(m_rollout.frames.size() - 1));
}

double TracesPlot::frameAt(double pixelX) const
{
    if (m_plot->axisRectCount() == 0)
        return 0;
    return m_plot->axisRect(0)->axis(QCPAxis::atBottom)->pixelToCoord(pixelX);
}

QStringList TracesPlot::channels() const
{
    QStringList out;
    for (const auto &name : m_rollout.dimensionNames)
        out << QString::fromStdString(name);
    for (std::size_t d = m_rollout.dimensionNames.size();
         !m_rollout.actions.empty() && d < m_rollout.actions[0].size(); ++d)
        out << tr("action %1").arg(d);
    for (const auto &track : m_rollout.objectTracks) {
        if (track.isPosition()) {
            out << tr("%1 x/y/z [m]").arg(QString::fromStdString(track.name));
            continue;
        }
        QStringList axes;
        for (const auto &axis : track.axes)
            axes << QString::fromStdString(axis);
        out << tr("%1 (%2)").arg(QString::fromStdString(track.name), axes.join(QLatin1Char('/')));
    }
    return out;
}

bool TracesPlot::channelVisible(int channel) const
{
    return channel >= 0 && channel < m_visible.size() && m_visible[channel];
}

void TracesPlot::setChannelVisible(int channel, bool visible)
{
    if (channel < 0 || channel >= m_visible.size() || m_visible[channel] == visible)
        return;
    m_visible[channel] = visible;
    rebuild();
}

void TracesPlot::setGrouped(bool grouped)
{
    if (m_grouped == grouped)
        return;
    m_grouped = grouped;
    rebuild();
}

void TracesPlot::setRollout(const RolloutView &rollout)
{
    m_rollout = rollout;
    m_other = RolloutView{};
    m_otherName.clear();
    m_name.clear();
    m_visible = QVector<bool>(static_cast<int>(channels().size()), true);
    m_bookmarks.clear();
    m_judgeFrames.clear();
    m_failures.clear();
    m_from = 0;
    m_to = lastFrame();
    m_cursor = 0; // a new rollout starts at its first frame, never at the last one's position
    m_readOut->clear();
    // The channel picker: one checkable entry per channel, then grouping.
    m_channelMenu->clear();
    const QStringList names = channels();
    for (int c = 0; c < names.size(); ++c) {
        QAction *a = m_channelMenu->addAction(names[c]);
        a->setCheckable(true);
        a->setChecked(true);
        connect(a, &QAction::toggled, this, [this, c](bool on) { setChannelVisible(c, on); });
    }
    m_channelMenu->addSeparator();
    QAction *group = m_channelMenu->addAction(tr("Group action dimensions on one axis"));
    group->setCheckable(true);
    group->setChecked(m_grouped);
    connect(group, &QAction::toggled, this, &TracesPlot::setGrouped);
    m_channels->setEnabled(!names.isEmpty());
    rebuild();
}

void TracesPlot::setOverlay(const RolloutView &other, const QString &name, const QString &otherName)
{
    m_other = other;
    m_name = name;
    m_otherName = otherName;
    m_to = std::max(m_to, static_cast<double>(other.actions.size()));
    rebuild();
}

QStringList TracesPlot::addTrackGraphs(QCPAxis *xAxis, QCPAxis *yAxis, const QList<int> &members,
                                       int channelCount)
{
    const QStringList names = channels();
    const int otherDims = m_other.actions.empty() ? 0 : static_cast<int>(m_other.actions[0].size());
    QStringList label;
    for (int c : members) {
        if (c >= 0) {
            const auto [x, y] = stepSeries(m_rollout, c);
            auto *graph = m_plot->addGraph(xAxis, yAxis);
            graph->setData(x, y, true);
            const bool gripper = m_rollout.gripperIndex && *m_rollout.gripperIndex == c;
            graph->setPen(QPen(members.size() > 1 ? channelColour(c)
                               : gripper          ? kGripper
                                                  : kAction,
                               1.5));
            graph->setName(names.value(c));
            label << names.value(c);
            if (c < otherDims) {
                const auto [ox, oy] = stepSeries(m_other, c);
                auto *overlay = m_plot->addGraph(xAxis, yAxis);
                overlay->setData(ox, oy, true);
                overlay->setPen(QPen(kOverlay, 1.5, Qt::DashLine));
                overlay->setName(m_otherName);
            }
        } else {
            const ObjectTrack &object = m_rollout.objectTracks[static_cast<std::size_t>(-1 - c)];
            for (std::size_t axis = 0; axis < object.axes.size(); ++axis) {
                auto *graph = m_plot->addGraph(xAxis, yAxis);
                QVector<double> x, y;
                for (std::size_t i = 0; i < object.frames.size(); ++i) {
                    x << object.frames[i];
                    y << object.values[i][axis];
                }
                graph->setData(x, y, true);
                graph->setPen(QPen(channelColour(static_cast<int>(axis) + 1), 1.2));
                graph->setName(QString::fromStdString(object.axes[axis]));
            }
            label << names.value(channelCount - 1 - c);
        }
    }
    return label;
}

// The value range of a track's graphs: the gripper's contract range always, a flat trace
// centred, otherwise the values with a margin.
void TracesPlot::fitTrackValues(QCPAxis *yAxis, const QList<int> &members)
{
    bool found = false;
    const QCPRange values = [&] {
        QCPRange all;
        for (int g = 0; g < m_plot->graphCount(); ++g) {
            if (m_plot->graph(g)->valueAxis() != yAxis)
                continue;
            bool ok = false;
            const QCPRange r = m_plot->graph(g)->getValueRange(ok);
            if (ok) {
                all = found ? QCPRange(std::min(all.lower, r.lower), std::max(all.upper, r.upper))
                            : r;
                found = true;
            }
        }
        return all;
    }();
    const bool gripperTrack =
        members.size() == 1 && m_rollout.gripperIndex && *m_rollout.gripperIndex == members.front();
    if (gripperTrack) {
        // The gripper's contract range (0 closed .. 1 open) always, so open reads as up and
        // a constant gripper is not drawn as a mid-track line of an arbitrary scale.
        const double low = found ? std::min(values.lower, 0.0) : 0.0;
        const double high = found ? std::max(values.upper, 1.0) : 1.0;
        yAxis->setRange(low - 0.1 * (high - low), high + 0.1 * (high - low));
    } else if (!found || values.size() < 1e-9) {
        const double centre = found ? values.center() : 0.0;
        yAxis->setRange(centre - 1, centre + 1);
    } else {
        yAxis->setRange(values.lower - 0.05 * values.size(), values.upper + 0.05 * values.size());
    }
}

void TracesPlot::addTrack(int track, const QList<int> &members, int channelCount, bool chunked)
{
    auto *rect = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(track, 0, rect);
    rect->setMinimumMargins(QMargins(48, 2, 8, 2));
    QCPAxis *xAxis = rect->axis(QCPAxis::atBottom);
    QCPAxis *yAxis = rect->axis(QCPAxis::atLeft);
    const QStringList label = addTrackGraphs(xAxis, yAxis, members, channelCount);
    // The channel names inside the track (horizontal, so readable at any track height).
    auto *name = new QCPItemText(m_plot);
    name->setClipAxisRect(rect);
    name->position->setType(QCPItemPosition::ptAxisRectRatio);
    name->position->setAxisRect(rect);
    name->position->setCoords(0.005, 0.02);
    name->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    name->setFont(QFont(font().family(), 8));
    name->setBrush(QBrush(QColor(255, 255, 255, 210)));
    name->setText(label.join(QStringLiteral(", ")));
    yAxis->setTickLabelFont(QFont(font().family(), 7));
    yAxis->ticker()->setTickCount(3);
    yAxis->setNumberFormat(QStringLiteral("g"));
    yAxis->setNumberPrecision(2);
    xAxis->setTickLabels(track == m_trackChannels.size() - 1);
    xAxis->setRange(m_from, m_to);
    rect->setRangeDrag(Qt::Orientations());
    rect->setRangeZoom(Qt::Orientations());
    fitTrackValues(yAxis, members);
    connect(xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this,
            [this, xAxis](const QCPRange &) { syncRange(xAxis); });
    // The cursor is black and wider: red is the validation failures' colour.
    auto *cursor = verticalLine(m_plot, rect, m_cursor, QPen(kCursor, 1.6));
    cursor->setLayer(QStringLiteral("cursor"));
    m_cursors << cursor;
    // A boundary after every single action (chunk length 1) would only hide the traces.
    if (members.value(0, -1) >= 0 && chunked)
        for (int boundary : m_rollout.chunkBoundaries)
            m_chunkMarkers << verticalLine(m_plot, rect, boundary,
                                           QPen(QColor(90, 140, 220, 140), 1));
}

// The legend: the channels' colours when several share an axis, the overlay, the markers.
void TracesPlot::updateLegend(const QList<int> &shownDims, bool chunked)
{
    const QStringList names = channels();
    const int otherDims = m_other.actions.empty() ? 0 : static_cast<int>(m_other.actions[0].size());
    QStringList legend;
    auto swatch = [](const QColor &c, const QString &text, const char *dash = "\u2014") {
        return QStringLiteral("<span style='color:%1'>%2</span>&nbsp;%3")
            .arg(c.name(), QString::fromUtf8(dash), text.toHtmlEscaped());
    };
    if (m_grouped)
        for (int d : shownDims)
            legend << swatch(channelColour(d), names.value(d));
    if (otherDims > 0) {
        legend << swatch(kAction, m_name.isEmpty() ? tr("this run") : m_name);
        legend << swatch(kOverlay, m_otherName, "- -");
    }
    // The value colours of the object and state tracks: one per value position, named by what
    // the tracks call it there ("x", or "x/motor_0" where a position and a state are shown).
    std::vector<QStringList> axisNames;
    for (const ObjectTrack &track : m_rollout.objectTracks)
        for (std::size_t a = 0; a < track.axes.size(); ++a) {
            if (axisNames.size() <= a)
                axisNames.resize(a + 1);
            const QString name = QString::fromStdString(track.axes[a]);
            if (!axisNames[a].contains(name))
                axisNames[a] << name;
        }
    for (std::size_t a = 0; a < axisNames.size(); ++a)
        legend << swatch(channelColour(static_cast<int>(a) + 1),
                         axisNames[a].join(QLatin1Char('/')));
    legend << swatch(kCursor, tr("cursor"), "|");
    if (chunked)
        legend << swatch(QColor(90, 140, 220), tr("world-model call"), "|");
    legend << swatch(QColor(150, 150, 150), tr("judge frames"), ":");
    legend << swatch(QColor(30, 150, 60), tr("bookmarks"), "\u00a6");
    legend << swatch(QColor(200, 30, 30), tr("validation failures"), "|");
    m_legend->setText(legend.join(QStringLiteral("&nbsp; ")));
}

void TracesPlot::rebuild()
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_plot->plotLayout()->clear();
    m_cursors.clear();
    m_markers.clear();
    m_chunkMarkers.clear();
    m_trackChannels.clear();
    const int dims = m_rollout.actions.empty() ? 0 : static_cast<int>(m_rollout.actions[0].size());
    QList<int> shownDims;
    for (int d = 0; d < dims; ++d)
        if (channelVisible(d))
            shownDims << d;
    if (m_grouped && !shownDims.isEmpty())
        m_trackChannels << shownDims;
    else
        for (int d : shownDims)
            m_trackChannels << QList<int>{d};
    for (int o = 0; o < static_cast<int>(m_rollout.objectTracks.size()); ++o)
        if (channelVisible(dims + o))
            m_trackChannels << QList<int>{-1 - o};
    // World-model calls are marked only where the run recorded them (never on an imported or
    // recorded run, which had no world model).
    const bool chunked = !m_rollout.chunkBoundaries.empty() &&
                         m_rollout.chunkBoundaries.size() + 1 < m_rollout.actions.size();
    for (int track = 0; track < m_trackChannels.size(); ++track)
        addTrack(track, m_trackChannels[track], dims, chunked);
    if (!m_trackChannels.isEmpty())
        m_plot->axisRect(static_cast<int>(m_trackChannels.size()) - 1)
            ->axis(QCPAxis::atBottom)
            ->setLabel(tr("frame"));
    // Room for every track at a readable height, and the frame axis under the last one (whose
    // row is taller by that axis, so its plotting area is as high as the others').
    if (m_trackChannels.size() > 1)
        m_plot->plotLayout()->setRowStretchFactor(static_cast<int>(m_trackChannels.size()) - 1,
                                                  1.9);
    m_plot->setMinimumHeight(
        std::max(120, static_cast<int>(m_trackChannels.size()) * (kTrackHeight + 5) + 60));
    updateLegend(shownDims, chunked);
    setMarkers(m_bookmarks, m_judgeFrames, m_failures);
    updateRangeBar();
    updateTickLabels();
    replot(QCustomPlot::rpRefreshHint);
    setCursor(m_cursor);
}

QString TracesPlot::legendText() const
{
    QTextDocument doc;
    doc.setHtml(m_legend->text());
    return doc.toPlainText();
}

void TracesPlot::replot(int priority)
{
    // A plot that has no size yet (hidden, or not laid out) is drawn when it gets one.
    if (!m_plot->size().isEmpty())
        m_plot->replot(static_cast<QCustomPlot::RefreshPriority>(priority));
}

void TracesPlot::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    updateTickLabels();
}

void TracesPlot::updateTickLabels()
{
    // Value tick labels only where a track is tall enough to hold them apart; the channel name
    // inside each track stays readable at any height, and the hover read-out gives the values.
    const int tracks = m_plot->axisRectCount();
    if (tracks == 0)
        return;
    const bool show = m_plot->height() / tracks >= 30; // always, at kTrackHeight
    bool changed = false;
    for (int i = 0; i < tracks; ++i) {
        QCPAxis *y = m_plot->axisRect(i)->axis(QCPAxis::atLeft);
        changed |= y->tickLabels() != show;
        y->setTickLabels(show);
    }
    if (changed)
        replot(QCustomPlot::rpQueuedReplot);
}

void TracesPlot::syncRange(const QCPAxis *source)
{
    if (m_syncing)
        return;
    m_syncing = true;
    const QCPRange r = source->range();
    m_from = r.lower;
    m_to = r.upper;
    for (int i = 0; i < m_plot->axisRectCount(); ++i) {
        QCPAxis *x = m_plot->axisRect(i)->axis(QCPAxis::atBottom);
        if (x != source)
            x->setRange(r);
    }
    m_syncing = false;
    updateRangeBar();
    emit visibleRangeChanged(m_from, m_to);
}

void TracesPlot::setVisibleRange(double from, double to)
{
    const double last = std::max(lastFrame(), static_cast<double>(m_other.actions.size()));
    const double width = std::clamp(to - from, 2.0, last);
    from = std::clamp(from, 0.0, last - width);
    m_from = from;
    m_to = from + width;
    if (m_plot->axisRectCount() > 0)
        m_plot->axisRect(0)->axis(QCPAxis::atBottom)->setRange(m_from, m_to); // syncs the rest
    else
        emit visibleRangeChanged(m_from, m_to);
    updateRangeBar();
    replot(QCustomPlot::rpQueuedReplot);
}

QPair<double, double> TracesPlot::visibleRange() const
{
    return {m_from, m_to};
}

void TracesPlot::resetZoom()
{
    setVisibleRange(0, std::max(lastFrame(), static_cast<double>(m_other.actions.size())));
}

void TracesPlot::zoomAround(double frame, double factor)
{
    const double from = frame - (frame - m_from) * factor;
    const double to = frame + (m_to - frame) * factor;
    setVisibleRange(from, to);
}

void TracesPlot::updateRangeBar()
{
    const double last = std::max(lastFrame(), static_cast<double>(m_other.actions.size()));
    const double width = m_to - m_from;
    const bool zoomed = width < last - 1e-6;
    m_syncing = true;
    m_rangeBar->setRange(0, static_cast<int>(std::lround((last - width) * 10)));
    m_rangeBar->setPageStep(std::max(1, static_cast<int>(std::lround(width * 10))));
    m_rangeBar->setSingleStep(10);
    m_rangeBar->setValue(static_cast<int>(std::lround(m_from * 10)));
    m_syncing = false;
    m_rangeBar->setVisible(zoomed);
}

QString TracesPlot::readOutAt(const QPointF &pixel) const
{
    QCPAxisRect *rect = m_plot->axisRectAt(pixel);
    if (!rect)
        return {};
    const int track = [&] {
        for (int i = 0; i < m_plot->axisRectCount(); ++i)
            if (m_plot->axisRect(i) == rect)
                return i;
        return -1;
    }();
    if (track < 0 || track >= m_trackChannels.size())
        return {};
    const double x = rect->axis(QCPAxis::atBottom)->pixelToCoord(pixel.x());
    const QStringList names = channels();
    QStringList values;
    const auto step = static_cast<long>(std::floor(x));
    for (int c : m_trackChannels[track]) {
        if (c >= 0) {
            if (step < 0 || step >= static_cast<long>(m_rollout.actions.size()))
                continue;
            QString v = QStringLiteral("%1 = %2").arg(
                names.value(c), fmt(m_rollout.actions[static_cast<std::size_t>(step)]
                                                     [static_cast<std::size_t>(c)]));
            if (step < static_cast<long>(m_other.actions.size()) &&
                c < static_cast<int>(m_other.actions[0].size()))
                v += QStringLiteral(" (%1: %2)")
                         .arg(m_otherName, fmt(m_other.actions[static_cast<std::size_t>(step)]
                                                              [static_cast<std::size_t>(c)]));
            values << v;
        } else {
            const ObjectTrack &object = m_rollout.objectTracks[static_cast<std::size_t>(-1 - c)];
            // The recorded pose nearest the mouse's frame.
            std::size_t best = object.frames.size();
            double distance = 1e300;
            for (std::size_t i = 0; i < object.frames.size(); ++i) {
                const double dd = std::abs(object.frames[i] - x);
                if (dd < distance) {
                    distance = dd;
                    best = i;
                }
            }
            if (best < object.frames.size()) {
                QStringList axes, numbers;
                for (std::size_t a = 0; a < object.axes.size(); ++a) {
                    axes << QString::fromStdString(object.axes[a]);
                    numbers << fmt(object.values[best][a]);
                }
                values << QStringLiteral("%1 %2 = %3%4")
                              .arg(QString::fromStdString(object.name), axes.join(QLatin1Char('/')),
                                   numbers.join(QStringLiteral(", ")),
                                   object.unit.empty()
                                       ? QString()
                                       : QLatin1Char(' ') + QString::fromStdString(object.unit));
            }
        }
    }
    if (values.isEmpty())
        return {};
    const double rate = m_rollout.controlRateHz > 0 ? m_rollout.controlRateHz : 1.0;
    return tr("step %1, t = %2 s: %3")
        .arg(std::max<long>(0, step))
        .arg(QString::number(static_cast<double>(std::max<long>(0, step)) / rate, 'f', 2))
        .arg(values.join(QStringLiteral("; ")));
}

QString TracesPlot::readOut() const
{
    return m_readOut->text();
}

void TracesPlot::setMarkers(const QList<int> &bookmarks, const QList<int> &judgeFrames,
                            const QList<int> &validationFailures)
{
    m_bookmarks = bookmarks;
    m_judgeFrames = judgeFrames;
    m_failures = validationFailures;
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
    replot(QCustomPlot::rpQueuedReplot);
}

void TracesPlot::setCursor(int frame)
{
    m_cursor = frame;
    // A zoomed view follows the player: a cursor leaving it moves the view a page on.
    if (m_to - m_from < lastFrame() - 1e-6 && (frame < m_from || frame > m_to)) {
        const double width = m_to - m_from;
        setVisibleRange(frame - 0.1 * width, frame + 0.9 * width);
    }
    for (auto *c : m_cursors) {
        c->point1->setCoords(frame, 0);
        c->point2->setCoords(frame, 1);
    }
    if (!m_plot->size().isEmpty()) // a hidden plot of no size is drawn when it is laid out
        m_plot->layer(QStringLiteral("cursor"))->replot();
}

} // namespace kosmos::ui
