// The console as the console measurements drive it: a read-only main window on a profile, and
// a way to let the event loop finish what a call queued (layout, paint) without waiting.
#pragma once

#include "mainwindow.h"
#include "settings.h"

#include <memory>

namespace reclaim::bench {

// Lets the event loop run everything the last call queued (layout, paint), without waiting.
void settle();

std::unique_ptr<ui::MainWindow> newWindow(ui::Settings &settings, const QString &configPath);

} // namespace reclaim::bench
