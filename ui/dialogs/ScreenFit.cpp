#include "dialogs/ScreenFit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

namespace kosmos::ui {

QSize screenRoom(const QWidget *window)
{
    const QWidget *anchor = window->parentWidget() ? window->parentWidget()->window() : window;
    const QScreen *screen = anchor->screen() ? anchor->screen() : QGuiApplication::primaryScreen();
    if (!screen)
        return {1280 - 40, 720 - 80};
    // A window frame and a panel: ~40 px across, ~80 px down on common desktops.
    return screen->availableGeometry().size() - QSize(40, 80);
}

void fitToScreen(QWidget *window, QSize wanted)
{
    window->resize(wanted.boundedTo(screenRoom(window)));
}

} // namespace kosmos::ui
