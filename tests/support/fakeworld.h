// One recovery run over the fakes of tests/support, sharing one call log: the world the unit
// tests of whole runs (test_recoveryrun, test_blastradius) set up and look at.
#pragma once

#include "recovery/recoveryrun.h"
#include "support/fakes.h"

namespace reclaim::test {

// The fakes of one run, sharing one call log.
struct World
{
    CallLog log;
    FakeQueue queue{&log};
    FakeJobStore store{&log};
    ReclaimConfig config = fakeConfig();

    void row(const QString &domain, const QString &id, const QString &type, const QString &status,
             const QString &parentStatus = QStringLiteral("PROCESSING"))
    {
        store.rows.insert(id, FakeJobStore::Row{domain,
                                                id,
                                                type,
                                                status,
                                                QStringLiteral("2026-01-01 10:00:00.123"),
                                                parentStatus,
                                                {}});
    }

    RunReport run(RunRequest request = {})
    {
        RecoveryRun r(config, &store, {}, queue, queue, queue);
        return r.run(request);
    }

    bool logged(const QString &prefix) const
    {
        for (const QString &e : log)
            if (e.startsWith(prefix))
                return true;
        return false;
    }

    qsizetype firstIndex(const QString &prefix) const
    {
        for (qsizetype i = 0; i < log.size(); ++i)
            if (log.at(i).startsWith(prefix))
                return i;
        return -1;
    }

    qsizetype lastIndex(const QString &prefix) const
    {
        for (qsizetype i = log.size() - 1; i >= 0; --i)
            if (log.at(i).startsWith(prefix))
                return i;
        return -1;
    }

    // Nothing was written anywhere: no enqueue, no row write, no lock taken.
    bool nothingWritten() const
    {
        return !logged(QStringLiteral("queue:enqueue")) && !logged(QStringLiteral("store:apply")) &&
               !logged(QStringLiteral("lock:acquire")) && store.audit.isEmpty() &&
               store.intents.isEmpty();
    }
};

inline const Action *findAction(const RunReport &r, const QString &id)
{
    for (const Action &a : r.actions)
        if (a.id == id)
            return &a;
    return nullptr;
}

} // namespace reclaim::test
