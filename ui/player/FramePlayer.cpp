#include "player/FramePlayer.h"

#include "ledger/Ledger.h"
#include "player/ReferenceVideo.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QSlider>
#include <QSplitter>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <QtConcurrent>

namespace kosmos::ui {

namespace {
constexpr double kZoomSteps[] = {0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0};
}

FrameView::FrameView(QWidget *parent) : QWidget(parent)
{
    setMinimumSize(160, 128);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void FrameView::setImage(const QImage &image)
{
    if (image.size() != m_image.size())
        m_pan = {};
    m_image = image;
    update();
}

void FrameView::setZoom(double zoom)
{
    // Zooming by Ctrl+wheel keeps the image point under the mouse where it is; otherwise the
    // zoomed frame is centred.
    const QRectF before = targetRect();
    const double oldZoom = effectiveZoom();
    m_zoom = std::max(0.0, zoom);
    m_pan = {};
    if (m_anchor && !m_image.isNull() && oldZoom > 0) {
        const QPointF image = (*m_anchor - before.topLeft()) / oldZoom; // in image pixels
        const double newZoom = effectiveZoom();
        const QSizeF size = QSizeF(m_image.size()) * newZoom;
        const QPointF centred((width() - size.width()) / 2, (height() - size.height()) / 2);
        m_pan = *m_anchor - image * newZoom - centred;
    }
    m_anchor.reset();
    update();
}

QPointF FrameView::imagePointAt(const QPointF &widgetPoint) const
{
    const double zoom = effectiveZoom();
    return zoom > 0 ? (widgetPoint - targetRect().topLeft()) / zoom : QPointF();
}

double FrameView::effectiveZoom() const
{
    if (m_image.isNull())
        return 1.0;
    if (m_zoom > 0)
        return m_zoom;
    return std::min(static_cast<double>(width()) / m_image.width(),
                    static_cast<double>(height()) / m_image.height());
}

QRectF FrameView::targetRect() const
{
    const QSizeF size = QSizeF(m_image.size()) * effectiveZoom();
    // A frame larger than the view may be panned, but never past its edges.
    const double slackX = std::max(0.0, (size.width() - width()) / 2);
    const double slackY = std::max(0.0, (size.height() - height()) / 2);
    const QPointF pan(std::clamp(m_pan.x(), -slackX, slackX),
                      std::clamp(m_pan.y(), -slackY, slackY));
    return {QPointF((width() - size.width()) / 2, (height() - size.height()) / 2) + pan, size};
}

void FrameView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), QColor(32, 32, 36));
    if (m_image.isNull()) {
        p.setPen(Qt::lightGray);
        p.drawText(rect(), Qt::AlignCenter, tr("no frame"));
        return;
    }
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(targetRect(), m_image);
}

void FrameView::wheelEvent(QWheelEvent *event)
{
    if (!(event->modifiers() & Qt::ControlModifier)) {
        QWidget::wheelEvent(event);
        return;
    }
    const int steps = event->angleDelta().y() / 120;
    if (steps != 0) {
        m_anchor = event->position();
        emit zoomStepRequested(steps);
        m_anchor.reset();
    }
    event->accept();
}

void FrameView::mousePressEvent(QMouseEvent *event)
{
    m_dragFrom = event->position();
    QWidget::mousePressEvent(event);
}

void FrameView::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton) {
        const QRectF target = targetRect();
        m_pan = target.center() - QPointF(width() / 2.0, height() / 2.0) + event->position() -
                m_dragFrom;
        m_dragFrom = event->position();
        update();
    }
}

FramePlayer::FramePlayer(QWidget *parent)
    : QWidget(parent), m_view(new FrameView(this)), m_reference(new ReferenceVideo(this)),
      m_policyImage(new QLabel(this)), m_play(new QToolButton(this)),
      m_slider(new MarkedSlider(this)), m_speed(new QComboBox(this)),
      m_loop(new QCheckBox(tr("Loop"), this)), m_zoom(new QComboBox(this)),
      m_label(new QLabel(this)), m_timer(new QTimer(this))
{
    setFocusPolicy(Qt::StrongFocus);
    m_play->setText(tr("Play"));
    m_play->setToolTip(tr("Play / pause (Space)"));
    for (double s : {0.1, 0.25, 0.5, 1.0, 2.0, 4.0})
        m_speed->addItem(QStringLiteral("%1x").arg(s), s);
    m_speed->setCurrentIndex(3);
    auto *transport = new QHBoxLayout;
    transport->addWidget(m_play);
    transport->addWidget(m_label);
    transport->addStretch(1);
    transport->addWidget(m_speed);
    transport->addWidget(m_loop);
    transport->addWidget(m_zoom);
    m_zoom->addItem(tr("Fit"), 0.0);
    for (double z : kZoomSteps)
        m_zoom->addItem(QStringLiteral("%1%").arg(z * 100), z);
    m_zoom->setToolTip(tr("Zoom: fit to the view (0), true size (1), in (+) and out (-); "
                          "Ctrl+wheel zooms, dragging pans"));
    connect(m_zoom, &QComboBox::currentIndexChanged, this,
            [this] { m_view->setZoom(m_zoom->currentData().toDouble()); });
    connect(m_view, &FrameView::zoomStepRequested, this, &FramePlayer::zoomBy);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *pictures = new QSplitter(Qt::Horizontal, this);
    pictures->addWidget(m_view);
    pictures->addWidget(m_reference);
    m_policyImage->setAlignment(Qt::AlignCenter);
    m_policyImage->setMinimumWidth(160);
    m_policyImage->hide();
    pictures->addWidget(m_policyImage);
    layout->addWidget(pictures, 1);
    connect(this, &FramePlayer::positionChanged, m_reference, &ReferenceVideo::followFrame);
    layout->addWidget(m_slider); // a row of its own: it stays usable in a narrow player
    layout->addLayout(transport);

    connect(m_play, &QToolButton::clicked, this, &FramePlayer::togglePlay);
    connect(m_slider, &QSlider::valueChanged, this, &FramePlayer::seek);
    connect(m_speed, &QComboBox::currentIndexChanged, this, [this] {
        if (m_timer->isActive())
            m_timer->start(static_cast<int>(1000.0 / (m_rollout.controlRateHz * speed())));
    });
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (m_position + 1 >= frameCount()) {
            if (m_loop->isChecked())
                seek(0);
            else
                togglePlay();
            return;
        }
        seek(m_position + 1);
    });
}

FramePlayer::~FramePlayer()
{
    if (m_watcher)
        m_watcher->waitForFinished();
}

void FramePlayer::releaseLedger()
{
    if (m_watcher)
        m_watcher->waitForFinished(); // its decode reads the ledger's artifact store
    m_timer->stop();
    m_ledger = nullptr;
    m_frames = nullptr;
    m_rollout = RolloutView{};
    m_cache.clear();
    m_decoding = -1;
}

MarkedSlider::MarkedSlider(QWidget *parent) : QSlider(Qt::Horizontal, parent)
{
    setMinimumHeight(22);
}

void MarkedSlider::setMarkers(const QList<Marker> &markers)
{
    m_markers = markers;
    update();
}

void MarkedSlider::paintEvent(QPaintEvent *event)
{
    QSlider::paintEvent(event);
    if (m_markers.isEmpty() || maximum() <= minimum())
        return;
    QStyleOptionSlider option;
    initStyleOption(&option);
    const QRect groove =
        style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderGroove, this);
    const QRect handle =
        style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, this);
    // The handle's centre travels over [groove.left + handle/2, groove.right - handle/2].
    const int span = groove.width() - handle.width();
    QPainter p(this);
    for (const Marker &m : m_markers) {
        const int x = groove.left() + handle.width() / 2 +
                      QStyle::sliderPositionFromValue(minimum(), maximum(), m.frame, span);
        p.setPen(QPen(m.colour, 2));
        p.drawLine(x, height() - 6, x, height() - 1);
    }
}

void FramePlayer::setMarkers(const QList<int> &bookmarks, const QList<int> &judgeFrames,
                             const QList<int> &validationFailures)
{
    m_bookmarks = bookmarks;
    m_judgeFrames = judgeFrames;
    m_failures = validationFailures;
    QList<MarkedSlider::Marker> markers;
    const bool chunked = m_rollout.chunkBoundaries.size() + 1 < m_rollout.actions.size();
    for (int f : chunked ? m_rollout.chunkBoundaries : std::vector<int>{})
        markers.append({f, QColor(90, 140, 220)});
    for (int f : judgeFrames)
        markers.append({f, QColor(150, 150, 150)});
    for (int f : validationFailures)
        markers.append({f, QColor(200, 30, 30)});
    for (int f : bookmarks)
        markers.append({f, QColor(30, 150, 60)});
    m_slider->setMarkers(markers);
}

void FramePlayer::clear()
{
    releaseLedger();
    setRollout(nullptr, RolloutView{});
}

void FramePlayer::setRollout(Ledger *ledger, const RolloutView &rollout)
{
    load(ledger, rollout, {});
}

void FramePlayer::load(Ledger *ledger, const RolloutView &rollout, FrameSource frames)
{
    if (m_watcher)
        m_watcher->waitForFinished();
    m_timer->stop();
    m_play->setText(tr("Play"));
    m_ledger = ledger;
    m_frames = std::move(frames);
    m_rollout = rollout;
    m_cache.clear();
    m_decoding = -1;
    m_position = 0;
    m_slider->blockSignals(true);
    m_slider->setRange(0, std::max(0, frameCount() - 1));
    m_slider->setValue(0);
    m_slider->blockSignals(false);
    m_policyImageShown = -1;
    m_policyImage->setVisible(!m_rollout.policyImages.empty());
    setMarkers({}, {}, {}); // the new rollout's world-model calls; the caller adds the rest
    show(0);
    showReference();
}

void FramePlayer::setFrames(const RolloutView &rollout, FrameSource frames)
{
    RolloutView shown = rollout;
    shown.policyImages.clear(); // the source gives frames only
    shown.referenceVideoSha256.reset();
    shown.sourceVideoSha256.reset();
    load(nullptr, shown, std::move(frames));
}

void FramePlayer::addPlaybackKeys(const QList<QWidget *> &widgets)
{
    struct Key
    {
        QKeySequence key;
        std::function<void()> run;
    };
    const QList<Key> keys = {
        {QKeySequence(Qt::Key_Space), [this] { togglePlay(); }},
        {QKeySequence(Qt::Key_Right), [this] { step(1); }},
        {QKeySequence(Qt::Key_Left), [this] { step(-1); }},
        {QKeySequence(Qt::SHIFT | Qt::Key_Right), [this] { step(10); }},
        {QKeySequence(Qt::SHIFT | Qt::Key_Left), [this] { step(-10); }},
        {QKeySequence(Qt::Key_Home), [this] { seek(0); }},
        {QKeySequence(Qt::Key_End), [this] { seek(frameCount() - 1); }},
    };
    for (const Key &k : keys) {
        auto *action = new QAction(this);
        action->setShortcut(k.key);
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(action, &QAction::triggered, this, k.run);
        for (QWidget *w : widgets)
            w->addAction(action);
    }
}

void FramePlayer::showPolicyImage(int frame)
{
    // Frame f (f >= 1) follows action f - 1; the image the policy made at step s guides
    // actions s and after: show the latest one made at or before the frame's action.
    const int action = std::max(0, frame - 1);
    int index = -1;
    for (int i = 0; i < static_cast<int>(m_rollout.policyImages.size()); ++i)
        if (m_rollout.policyImages[static_cast<std::size_t>(i)].step <= action)
            index = i;
    if (index == m_policyImageShown || !m_ledger)
        return;
    m_policyImageShown = index;
    if (index < 0) {
        m_policyImage->setText(tr("no policy image yet"));
        return;
    }
    const PolicyImage &p = m_rollout.policyImages[static_cast<std::size_t>(index)];
    try {
        const auto bytes = m_ledger->artifacts().read(p.sha256); // hash-checked
        QImage image;
        image.loadFromData(bytes.data(), static_cast<int>(bytes.size()), "PNG");
        m_policyImage->setPixmap(QPixmap::fromImage(
            image.scaled(240, 240, Qt::KeepAspectRatio, Qt::SmoothTransformation)));
        m_policyImage->setToolTip(
            tr("The policy's %1, made at step %2: generated by the policy's model, not observed")
                .arg(QString::fromStdString(p.label))
                .arg(p.step));
    } catch (const std::exception &e) {
        m_policyImage->setText(QString::fromUtf8(e.what()));
    }
}

void FramePlayer::showReference()
{
    const bool reference = m_rollout.referenceVideoSha256.has_value();
    const auto &sha = reference ? m_rollout.referenceVideoSha256 : m_rollout.sourceVideoSha256;
    if (!m_ledger || !sha) {
        m_reference->clear();
        return;
    }
    const QString caption =
        reference ? tr("Reference recording (as imported; not generated)")
                  : tr("Imported video, as given (the frames on the left are decoded from it)");
    try {
        m_ledger->artifacts().read(*sha); // hash-checked before anything is shown
        m_reference->setVideo(
            QString::fromStdString(m_ledger->artifacts().objectPath(*sha).string()), caption,
            m_rollout.controlRateHz);
        m_reference->followFrame(0);
    } catch (const std::exception &e) {
        m_reference->setProblem(caption, QString::fromUtf8(e.what()));
    }
}

bool FramePlayer::isPlaying() const
{
    return m_timer->isActive();
}

double FramePlayer::speed() const
{
    return m_speed->currentData().toDouble();
}

void FramePlayer::setZoom(double zoom)
{
    const int index = m_zoom->findData(zoom);
    if (index >= 0)
        m_zoom->setCurrentIndex(index);
}

void FramePlayer::zoomBy(int steps)
{
    if (steps == 0)
        return;
    const int last = static_cast<int>(std::size(kZoomSteps)) - 1;
    const double current = m_view->effectiveZoom();
    int i = 0;
    if (steps > 0) { // the first listed factor above the current one, then further steps
        while (i < last && kZoomSteps[i] <= current + 1e-9)
            ++i;
        i += steps - 1;
    } else { // the last listed factor below the current one, then further steps
        i = last;
        while (i > 0 && kZoomSteps[i] >= current - 1e-9)
            --i;
        i += steps + 1;
    }
    setZoom(kZoomSteps[std::clamp(i, 0, last)]);
}

void FramePlayer::setSpeed(double s)
{
    const int index = m_speed->findData(s);
    if (index >= 0)
        m_speed->setCurrentIndex(index);
}

QImage FramePlayer::decode(int frame) const
{
    if (frame < 0 || frame >= frameCount())
        return {};
    if (m_frames)
        return m_frames(frame);
    if (!m_ledger)
        return {};
    try {
        const auto bytes =
            m_ledger->artifacts().read(m_rollout.frames[static_cast<std::size_t>(frame)].sha256);
        return QImage::fromData(bytes.data(), static_cast<int>(bytes.size()));
    } catch (const std::exception &) {
        return {}; // missing or corrupt: shown as "no frame"; verify names it
    }
}

void FramePlayer::show(int frame)
{
    if (frameCount() == 0) {
        m_view->setImage({});
        m_label->setText(tr("no frames"));
        return;
    }
    if (!m_cache.contains(frame))
        m_cache.insert(frame, decode(frame)); // a seek far ahead: decode now
    m_view->setImage(m_cache.value(frame));
    m_label->setText(tr("frame %1 / %2").arg(frame).arg(frameCount() - 1));
    if (!m_rollout.policyImages.empty())
        showPolicyImage(frame);
    decodeAhead();
}

void FramePlayer::decodeAhead()
{
    if (m_decoding >= 0)
        return;
    for (int f = m_position + 1; f < std::min(frameCount(), m_position + 16); ++f) {
        if (m_cache.contains(f))
            continue;
        m_decoding = f;
        m_watcher = std::make_unique<QFutureWatcher<QPair<int, QImage>>>();
        connect(m_watcher.get(), &QFutureWatcher<QPair<int, QImage>>::finished, this, [this] {
            const auto result = m_watcher->result();
            m_cache.insert(result.first, result.second);
            m_decoding = -1;
            decodeAhead();
        });
        m_watcher->setFuture(QtConcurrent::run([this, f] { return qMakePair(f, decode(f)); }));
        return;
    }
    if (m_cache.size() > 256) { // keep memory bounded on long rollouts
        for (auto it = m_cache.begin(); it != m_cache.end();)
            it = std::abs(it.key() - m_position) > 64 ? m_cache.erase(it) : std::next(it);
    }
}

void FramePlayer::seek(int frame)
{
    if (frameCount() == 0)
        return;
    frame = std::clamp(frame, 0, frameCount() - 1);
    if (frame == m_position && !m_view->image().isNull())
        return;
    m_position = frame;
    m_slider->blockSignals(true);
    m_slider->setValue(frame);
    m_slider->blockSignals(false);
    show(frame);
    emit positionChanged(frame);
}

void FramePlayer::step(int delta)
{
    seek(m_position + delta);
}

void FramePlayer::togglePlay()
{
    if (m_timer->isActive()) {
        m_timer->stop();
        m_play->setText(tr("Play"));
    } else if (frameCount() > 0) {
        m_timer->start(static_cast<int>(1000.0 / (m_rollout.controlRateHz * speed())));
        m_play->setText(tr("Pause"));
    }
}

void FramePlayer::keyPressEvent(QKeyEvent *event)
{
    const int stride = event->modifiers() & Qt::ShiftModifier ? 10 : 1;
    switch (event->key()) {
    case Qt::Key_Space:
        togglePlay();
        return;
    case Qt::Key_Left:
        step(-stride);
        return;
    case Qt::Key_Right:
        step(stride);
        return;
    case Qt::Key_Home:
        seek(0);
        return;
    case Qt::Key_End:
        seek(frameCount() - 1);
        return;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1);
        return;
    case Qt::Key_Minus:
        zoomBy(-1);
        return;
    case Qt::Key_0:
        setZoom(0);
        return;
    case Qt::Key_1:
        setZoom(1);
        return;
    default:
        QWidget::keyPressEvent(event);
    }
}

} // namespace kosmos::ui
