#pragma once

#include <QSize>

class QWidget;

namespace kosmos::ui {

// Resizes a top-level window to `wanted`, bounded by the available area of the screen it will
// show on (its parent's, else the primary), less room for the window frame: on a 1280x720
// screen a dialog opens whole, with its buttons in view, and scrolls what does not fit.
void fitToScreen(QWidget *window, QSize wanted);

// The largest size a window may take on that screen (what fitToScreen bounds to).
QSize screenRoom(const QWidget *window);

} // namespace kosmos::ui
