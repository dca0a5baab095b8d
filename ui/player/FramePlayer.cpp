#include "player/FramePlayer.h"

#include "ledger/Ledger.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QSlider>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace kosmos::ui {

FrameView::FrameView(QWidget *parent) : QWidget(parent)
{
    setMinimumSize(160, 128);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void FrameView::setImage(const QImage &image)
{
    m_image = image;
    update();
}

void FrameView::setFitToView(bool fit)
{
    m_fit = fit;
    update();
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
    QSize size = m_image.size();
    if (m_fit)
        size.scale(this->size(), Qt::KeepAspectRatio);
    const QRect target(QPoint((width() - size.width()) / 2, (height() - size.height()) / 2), size);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(target, m_image);
}

FramePlayer::FramePlayer(QWidget *parent)
    : QWidget(parent), m_view(new FrameView(this)), m_play(new QToolButton(this)),
      m_slider(new QSlider(Qt::Horizontal, this)), m_speed(new QComboBox(this)),
      m_loop(new QCheckBox(tr("Loop"), this)), m_fit(new QCheckBox(tr("Fit"), this)),
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
    transport->addWidget(m_slider, 1);
    transport->addWidget(m_label);
    transport->addWidget(m_speed);
    transport->addWidget(m_loop);
    transport->addWidget(m_fit);
    m_fit->setChecked(true);
    m_fit->setToolTip(tr("Fit the frame to the view, or show it at its true size"));
    connect(m_fit, &QCheckBox::toggled, m_view, &FrameView::setFitToView);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view, 1);
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

void FramePlayer::setRollout(Ledger *ledger, const RolloutView &rollout)
{
    if (m_watcher)
        m_watcher->waitForFinished();
    m_timer->stop();
    m_play->setText(tr("Play"));
    m_ledger = ledger;
    m_rollout = rollout;
    m_cache.clear();
    m_decoding = -1;
    m_position = 0;
    m_slider->blockSignals(true);
    m_slider->setRange(0, std::max(0, frameCount() - 1));
    m_slider->setValue(0);
    m_slider->blockSignals(false);
    show(0);
}

bool FramePlayer::isPlaying() const
{
    return m_timer->isActive();
}

double FramePlayer::speed() const
{
    return m_speed->currentData().toDouble();
}

void FramePlayer::setSpeed(double s)
{
    const int index = m_speed->findData(s);
    if (index >= 0)
        m_speed->setCurrentIndex(index);
}

QImage FramePlayer::decode(int frame) const
{
    if (!m_ledger || frame < 0 || frame >= frameCount())
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
    default:
        QWidget::keyPressEvent(event);
    }
}

} // namespace kosmos::ui
