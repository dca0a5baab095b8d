#include "player/ReferenceVideo.h"

#include <QLabel>
#include <QMediaPlayer>
#include <QUrl>
#include <QVBoxLayout>
#include <QVideoWidget>

namespace kosmos::ui {

ReferenceVideo::ReferenceVideo(QWidget *parent) : QWidget(parent), m_caption(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_caption->setWordWrap(true);
    m_caption->setStyleSheet(QStringLiteral("color: #8a5a00; font-weight: bold"));
    layout->addWidget(m_caption);
    hide();
}

ReferenceVideo::~ReferenceVideo() = default;

QString ReferenceVideo::caption() const
{
    return m_caption->text();
}

void ReferenceVideo::ensurePlayer()
{
    if (m_media)
        return;
    m_video = new QVideoWidget(this);
    m_video->setMinimumSize(160, 128);
    static_cast<QVBoxLayout *>(layout())->addWidget(m_video, 1);
    m_media = new QMediaPlayer(this);
    m_media->setVideoOutput(m_video);
}

void ReferenceVideo::setVideo(const QString &path, const QString &caption, double fps)
{
    if (path.isEmpty()) {
        clear();
        return;
    }
    ensurePlayer();
    m_path = path;
    m_fps = fps > 0 ? fps : 5.0;
    m_caption->setText(caption);
    m_video->show();
    m_media->setSource(QUrl::fromLocalFile(path));
    m_media->pause(); // held at the cursor; followFrame() positions it
    show();
}

void ReferenceVideo::setProblem(const QString &caption, const QString &problem)
{
    clear();
    m_caption->setText(caption + QStringLiteral(": ") + problem);
    show();
}

void ReferenceVideo::clear()
{
    m_path.clear();
    if (m_media) {
        m_media->stop();
        m_media->setSource({});
        m_video->hide();
    }
    m_caption->clear();
    hide();
}

void ReferenceVideo::followFrame(int frame)
{
    if (!hasVideo())
        return;
    m_media->setPosition(static_cast<qint64>(frame * 1000.0 / m_fps));
}

} // namespace kosmos::ui
