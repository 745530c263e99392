#include "domain/verdict.h"

#include <QStringList>

namespace reclaim {

QString verdictName(Verdict v)
{
    switch (v) {
    case Verdict::Scheduled:
        return QStringLiteral("SCHEDULED");
    case Verdict::Absent:
        return QStringLiteral("ABSENT");
    case Verdict::Unknown:
        return QStringLiteral("UNKNOWN");
    }
    return {};
}

bool isRunnableState(const QString &state)
{
    static const QStringList runnable{QStringLiteral("waiting"), QStringLiteral("waiting-children"),
                                      QStringLiteral("delayed"), QStringLiteral("active"),
                                      QStringLiteral("paused"),  QStringLiteral("prioritized")};
    return runnable.contains(state);
}

bool isNotRunnableState(const QString &state)
{
    static const QStringList notRunnable{QStringLiteral("missing"), QStringLiteral("stray"),
                                         QStringLiteral("completed"), QStringLiteral("failed")};
    return notRunnable.contains(state);
}

bool isKnownLookupState(const QString &state)
{
    return isRunnableState(state) || isNotRunnableState(state) ||
           state == QLatin1String("list-unresolved");
}

bool Sighting::runnable() const
{
    return !error && isRunnableState(state);
}

QString CandidateVerdict::summary() const
{
    if (verdict == Verdict::Unknown)
        return QStringLiteral("unknown: %1").arg(unknownReason);
    if (verdict == Verdict::Scheduled) {
        for (const Sighting &s : evidence) {
            if (!s.runnable())
                continue;
            QString text = QStringLiteral("%1: %2").arg(s.queue, s.state);
            if (s.state == QLatin1String("active"))
                text += s.lockTtlMs >= 0
                            ? QStringLiteral(", worker lock %1 s").arg((s.lockTtlMs + 999) / 1000)
                            : QStringLiteral(", no worker lock");
            if (s.how == FoundBy::Scan)
                text += QStringLiteral(" (legacy id %1, found by scan)").arg(s.jobId);
            return text;
        }
        for (const Sighting &s : evidence) {
            if (!s.heldByWorker())
                continue;
            return QStringLiteral("%1: held by a worker (lock %2) though %3")
                .arg(s.queue,
                     s.lockTtlMs >= 0 ? QStringLiteral("%1 s").arg((s.lockTtlMs + 999) / 1000)
                                      : QStringLiteral("without expiry"),
                     s.state == QLatin1String("missing")
                         ? QStringLiteral("its job hash is gone")
                         : QStringLiteral("in state %1").arg(s.state));
        }
        return QStringLiteral("scheduled");
    }
    QStringList queues;
    QStringList retained;
    for (const Sighting &s : evidence) {
        if (!queues.contains(s.queue))
            queues << s.queue;
        if (s.state == QLatin1String("completed") || s.state == QLatin1String("failed"))
            retained << QStringLiteral("%1 retained in %2").arg(s.state, s.queue);
    }
    QString text = QStringLiteral("not in %1").arg(queues.join(QStringLiteral(" or ")));
    if (!retained.isEmpty())
        text += QStringLiteral(" (only %1)").arg(retained.join(QStringLiteral(", ")));
    text += scanned ? QStringLiteral("; scan found no match") : QString();
    return text;
}

} // namespace reclaim
