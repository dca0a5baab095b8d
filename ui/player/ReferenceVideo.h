#pragma once

#include <QWidget>

class QLabel;
class QMediaPlayer;
class QVideoWidget;

namespace kosmos::ui {

// A recording kept as given, played with Qt Multimedia beside the generated frames: a real
// camera's reference video, or the video an imported run's frames were decoded from. It is held
// at the shared time cursor (paused, positioned at frame / fps), so speed, stepping and loop
// follow the frame player. QMediaPlayer seeks to the nearest frame it can: the generated frames,
// decoded by our own FFmpeg code, are the frame-exact ones.
class ReferenceVideo : public QWidget
{
    Q_OBJECT
public:
    explicit ReferenceVideo(QWidget *parent = nullptr);
    ~ReferenceVideo() override;

    // Plays the file at `path` (already hash-checked by the caller) under `caption`; an empty
    // path hides the pane. `problem` is shown instead of a video (e.g. a failed hash check).
    void setVideo(const QString &path, const QString &caption, double fps);
    void setProblem(const QString &caption, const QString &problem);
    void clear();

    bool hasVideo() const { return m_media != nullptr && !m_path.isEmpty(); }
    QMediaPlayer *mediaPlayer() const { return m_media; }
    QString caption() const;

public slots:
    void followFrame(int frame);

private:
    void ensurePlayer();

    QLabel *m_caption;
    QVideoWidget *m_video = nullptr;
    QMediaPlayer *m_media = nullptr; // created with the first video: most runs have none
    QString m_path;
    double m_fps = 5.0;
};

} // namespace kosmos::ui
