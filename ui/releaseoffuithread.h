// Drops a large value's last reference on a pool thread. Freeing what a 200,000-row report holds
// (its verdicts, the actions copied for the tables, the rows) takes tens of milliseconds, which
// the UI thread must not spend between two frames.
#pragma once

#include <QThreadPool>
#include <utility>

namespace reclaim::ui {

// `value` must not be used on the UI thread afterwards (it is moved from). Every Qt container and
// std::shared_ptr counts references atomically, so a value whose parts are still shared elsewhere
// only loses this reference there.
template <typename T> void releaseOffUiThread(T &&value)
{
    QThreadPool::globalInstance()->start([held = std::forward<T>(value)]() mutable {
        [[maybe_unused]] const auto dropped = std::move(held); // freed here, on the pool thread
    });
}

} // namespace reclaim::ui
