// Counts as the operator reads them: "200,000", not "200000", at 3 a.m. on a mass incident.
#pragma once

#include <QString>

namespace reclaim::ui {

// `n` with the locale's digit grouping, which the C locale (a server's, the tests') leaves out
// unless asked: grouped with ',' there.
QString countText(qint64 n);

} // namespace reclaim::ui
