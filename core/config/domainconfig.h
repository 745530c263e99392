// One job domain as configured: where its rows live, which queues run it, how to recover it.
#pragma once

#include "domain/action.h"
#include "domain/policy.h"

#include <QString>
#include <QStringList>
#include <chrono>
#include <optional>

namespace reclaim {

struct JobColumns
{
    QString id = QStringLiteral("id");
    QString status = QStringLiteral("status");
    QString updatedAt = QStringLiteral("updatedAt");
    QString type;     // empty: the table has no type column
    QString progress; // empty: no progress column to reset on requeue
    QString error;    // empty: no error column to explain a failure
};

// How to rebuild a job's input from the database so it can be enqueued again.
struct RestoreRule
{
    QStringList types; // job types this applies to; empty = every type
    QString queue;     // the queue the rebuilt job goes to
    QString jobName;   // BullMQ job name
    QString query;     // SQL returning one row with one JSON column; :jobId is bound
};

// What to tidy on a parent row after a job is failed: one status column, only while in progress.
struct ParentRule
{
    QStringList types; // job types this applies to; empty = every type
    QString table;
    QString idColumn = QStringLiteral("id");
    QString foreignKey; // column on the job table holding the parent's id
    QString column;     // the parent status column this kind of job drives
    QStringList inProgress;
    QString failedValue;
};

struct DomainConfig
{
    QString name;
    QString table;
    JobColumns columns;
    QStringList candidateStatuses{QStringLiteral("PROCESSING"), QStringLiteral("QUEUED")};
    QString queuedStatus = QStringLiteral("QUEUED");
    QString failedStatus = QStringLiteral("FAILED");
    QStringList types; // empty: no type filter
    std::chrono::seconds threshold{3600};
    QStringList queues;
    QString keyPrefix = QStringLiteral("bull");
    // "4", "5" or "6": the BullMQ major whose add a requeue writes into a queue whose meta hash
    // has no version stamp (after a Redis lost its data, until the app's Queue opens it again);
    // empty: such a queue is refused (bullmq/bullmqlayout.h).
    QString bullmqIfUnstamped;
    // domains[].jobOptions as a compact JSON object (attempts, backoff, priority,
    // removeOnComplete, removeOnFail): what a requeue writes as the job's options where no
    // retained job under its id carries its own, as the library's add writes them; empty: the
    // library's defaults (attempts 0: no retry at all).
    QByteArray jobOptions;
    QString jobIdTemplate; // placeholders {id} and {type} (lower-cased)
    std::optional<RestoreRule> restore;
    QList<ParentRule> parents;
    int maxRequeues = 3;
    std::chrono::seconds requeueWindow{86400};
    // domains[].policy, each kind defaulting to run.policy (resolved when loaded).
    Policy requeuePolicy = Policy::Auto;
    Policy failPolicy = Policy::Auto;

    Policy policyFor(ActionKind kind) const
    {
        return kind == ActionKind::Requeue ? requeuePolicy : failPolicy;
    }

    QString currentJobId(const QString &rowId, const QString &type) const;
    const RestoreRule *restoreFor(const QString &type) const;
    const ParentRule *parentFor(const QString &type) const;
};

} // namespace reclaim
