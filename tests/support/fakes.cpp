#include "support/fakes.h"

#include "recovery/domainscan.h"

#include <QTimeZone>

namespace reclaim::test {

void FakeQueue::put(const QString &queue, const QString &jobId, const QString &state,
                    const QByteArray &data, qint64 lockTtlMs)
{
    m_jobs[queue][jobId] = Job{state, data, lockTtlMs};
}

void FakeQueue::putHashless(const QString &queue, const QString &jobId, const QString &state)
{
    Job job{state, {}, -2};
    job.hasHash = false;
    m_jobs[queue][jobId] = job;
}

void FakeQueue::remove(const QString &queue, const QString &jobId)
{
    m_jobs[queue].remove(jobId);
}

QString FakeQueue::stateOf(const QString &queue, const QString &jobId) const
{
    return m_jobs.value(queue).value(jobId).state;
}

QList<Expected<Sighting, RedisError>> FakeQueue::probe(const QList<JobRef> &jobs,
                                                       PayloadSize payload)
{
    ++m_roundTrips;
    m_log->append(QStringLiteral("queue:probe:%1").arg(jobs.size()));
    QList<Expected<Sighting, RedisError>> out;
    for (const JobRef &j : jobs) {
        if (probeError || (!failProbeOfJobId.isEmpty() && j.jobId == failProbeOfJobId)) {
            out.append(unexpected(probeError.value_or(
                RedisError{RedisError::Kind::Timeout, QStringLiteral("injected")})));
            continue;
        }
        Sighting s;
        s.queue = j.queue;
        s.jobId = j.jobId;
        const auto it = m_jobs.value(j.queue).constFind(j.jobId);
        if (it == m_jobs.value(j.queue).constEnd() || !it->hasHash) {
            s.state = QStringLiteral("missing");
        } else {
            static const QStringList inLists{QStringLiteral("waiting"), QStringLiteral("paused"),
                                             QStringLiteral("active"), QStringLiteral("stray")};
            s.state = listsTooLong && inLists.contains(it->state)
                          ? QStringLiteral("list-unresolved")
                          : it->state;
            // As the real probe: an excerpt is the first 16 KiB.
            s.data = payload == PayloadSize::Excerpt ? it->data.left(16384) : it->data;
            s.lockTtlMs = it->lockTtlMs;
        }
        out.append(s);
    }
    if (afterProbe)
        afterProbe();
    return out;
}

Expected<RowIdSet, RedisError> FakeQueue::listMembers(const QString &, const QString &queue,
                                                      const QString &list)
{
    ++m_roundTrips;
    m_log->append(QStringLiteral("queue:list:%1:%2").arg(queue, list));
    if (listError)
        return unexpected(*listError);
    RowIdSet ids;
    const QString state = list == QLatin1String("wait") ? QStringLiteral("waiting") : list;
    for (auto it = m_jobs.value(queue).constBegin(); it != m_jobs.value(queue).constEnd(); ++it)
        if (it->state == state)
            ids.insert(it.key());
    return ids;
}

Expected<QueueMoves, RedisError> FakeQueue::movesSince(const QString &, const QString &queue,
                                                       const QString &since)
{
    ++m_roundTrips;
    m_log->append(QStringLiteral("queue:moves:%1:%2")
                      .arg(queue, since.isEmpty() ? QStringLiteral("mark") : since));
    QueueMoves moves;
    moves.mark = QStringLiteral("1-0");
    if (!since.isEmpty()) {
        moves.jobIds = movedJobs;
        moves.complete = movesComplete;
        moves.pausedOrResumed = pausedOrResumed;
    }
    return moves;
}

Expected<bool, RedisError> FakeQueue::hasTrace(const QString &, const QString &queue)
{
    ++m_roundTrips;
    m_log->append(QStringLiteral("queue:trace:%1").arg(queue));
    if (traceError)
        return unexpected(*traceError);
    return !untracedQueues.contains(queue);
}

Expected<PrioritizedSince, RedisError>
FakeQueue::prioritizedSince(const QString &, const QString &queue, const QString &mark)
{
    ++m_roundTrips;
    m_log->append(QStringLiteral("queue:prioritized:%1:%2")
                      .arg(queue, mark.isEmpty() ? QStringLiteral("mark") : mark));
    if (scanError)
        return unexpected(*scanError);
    PrioritizedSince out;
    out.mark = QStringLiteral("1");
    if (!mark.isEmpty())
        for (const QString &id : std::as_const(newlyPrioritized)) {
            const auto it = m_jobs.value(queue).constFind(id);
            if (it != m_jobs.value(queue).constEnd() && it->state == QLatin1String("prioritized"))
                out.jobs.append(ScanPage::Job{id, it->data});
        }
    return out;
}

// The fake's cursor is a plain offset (its states do not move on their own); the real adapter's
// anchors are proven against a moving queue in test_movingqueue.
Expected<ScanPage, RedisError> FakeQueue::scanPage(const QString &, const QString &queue,
                                                   const QString &state, const ScanCursor &from,
                                                   int count)
{
    const qint64 offset = from.position;
    ++m_roundTrips;
    m_log->append(QStringLiteral("queue:scan:%1:%2:%3").arg(queue, state).arg(offset));
    if (scanError)
        return unexpected(*scanError);
    if (!failScanPage.isEmpty() &&
        failScanPage == QStringLiteral("%1:%2:%3").arg(queue, state).arg(offset))
        return unexpected(
            RedisError{RedisError::Kind::Timeout, QStringLiteral("injected scan failure")});
    const QString wanted = state == QLatin1String("wait") ? QStringLiteral("waiting") : state;
    QList<ScanPage::Job> all;
    for (auto it = m_jobs.value(queue).constBegin(); it != m_jobs.value(queue).constEnd(); ++it)
        if (it->state == wanted)
            all.append(ScanPage::Job{it.key(), it->hasHash ? std::optional<QByteArray>(it->data)
                                                           : std::nullopt});
    ScanPage page;
    page.stateSize = all.size();
    page.jobs = all.mid(offset, count);
    page.done = offset + count >= all.size();
    page.next.position = offset + page.jobs.size();
    page.continuedFrom = from.anchors.isEmpty() ? QString() : from.anchors.first();
    if (!page.jobs.isEmpty())
        page.next.anchors = {page.jobs.last().id};
    if (afterScanPage)
        afterScanPage(queue, state, offset);
    return page;
}

Expected<EnqueueOutcome, RedisError> FakeQueue::enqueue(const EnqueueRequest &request)
{
    const JobRef &job = request.job;
    const QByteArray &data = request.data;
    const qint64 runGeneration = request.generation;
    ++m_roundTrips;
    m_log->append(QStringLiteral("queue:enqueue:%1").arg(job.jobId));
    if (enqueueError)
        return unexpected(*enqueueError);
    EnqueueOutcome out;
    if (runGeneration != generation) { // as enqueue.lua: only the current generation writes
        out.fenced = true;
        out.currentGeneration = generation;
        return out;
    }
    const QString existing = stateOf(job.queue, job.jobId);
    if (isRunnableState(existing)) {
        out.runnableState = existing;
        return out;
    }
    out.replacedState = existing;
    put(job.queue, job.jobId, QStringLiteral("waiting"), data);
    out.enqueued = true;
    if (afterEnqueue)
        afterEnqueue();
    return out;
}

Expected<LockAttempt, RedisError> FakeQueue::acquire(const QString &token, qint64 ttlMs,
                                                     qint64 floor)
{
    m_log->append(QStringLiteral("lock:acquire"));
    if (lockError)
        return unexpected(*lockError);
    LockAttempt a;
    if (!lockHolder.isEmpty()) {
        a.holder = lockHolder;
        a.holderTtlMs = lockTtlMs;
        a.generation = generation;
        return a;
    }
    lockHolder = token;
    lockTtlMs = ttlMs;
    a.acquired = true;
    a.generation = ++generation;
    if (a.generation <= floor) { // as lockacquire.lua: never below PostgreSQL's fence
        a.raisedFrom = a.generation;
        a.generation = generation = floor + 1;
    }
    a.holder = token;
    return a;
}

Expected<bool, RedisError> FakeQueue::renew(const QString &token, qint64 ttlMs)
{
    m_log->append(QStringLiteral("lock:renew"));
    if (lockError)
        return unexpected(*lockError);
    if (lockHolder != token)
        return false;
    lockTtlMs = ttlMs;
    return true;
}

Expected<bool, RedisError> FakeQueue::release(const QString &token)
{
    m_log->append(QStringLiteral("lock:release"));
    if (lockError)
        return unexpected(*lockError);
    if (lockHolder != token)
        return false;
    lockHolder.clear();
    return true;
}

Expected<LockAttempt, RedisError> FakeQueue::peek()
{
    if (lockError)
        return unexpected(*lockError);
    LockAttempt a;
    a.holder = lockHolder;
    a.holderTtlMs = lockTtlMs;
    a.generation = generation;
    return a;
}

Expected<QList<Candidate>, StoreError> FakeJobStore::readCandidates(const DomainConfig &domain,
                                                                    RowJson rowJson)
{
    m_log->append(QStringLiteral("store:readCandidates:%1").arg(domain.name));
    if (readError)
        return unexpected(*readError);
    QList<Candidate> out;
    for (const Row &r : rows)
        if (r.domain == domain.name && domain.candidateStatuses.contains(r.status) &&
            (domain.types.isEmpty() || domain.types.contains(r.type)))
            out.append(Candidate{r.domain,
                                 r.id,
                                 r.type,
                                 r.status,
                                 r.updatedAt,
                                 {},
                                 rowJson == RowJson::Read
                                     ? QByteArray("{\"id\":\"") + r.id.toUtf8() + "\"}"
                                     : QByteArray()});
    return out;
}

Expected<std::optional<QByteArray>, StoreError>
FakeJobStore::restorePayload(const DomainConfig &, const RestoreRule &, const QString &rowId)
{
    ++rowByRowReads;
    if (restoreError)
        return unexpected(*restoreError);
    if (!restorable.contains(rowId))
        return std::optional<QByteArray>();
    return std::optional<QByteArray>(restorable.value(rowId));
}

Expected<int, StoreError> FakeJobStore::recentRequeues(const DomainConfig &, const QString &rowId)
{
    ++rowByRowReads;
    if (budgetError)
        return unexpected(*budgetError);
    return requeues.value(rowId);
}

Expected<QHash<QString, int>, StoreError> FakeJobStore::recentRequeuesOf(const DomainConfig &,
                                                                         const QStringList &rowIds)
{
    ++budgetStatements;
    if (budgetError)
        return unexpected(*budgetError);
    QHash<QString, int> used;
    for (const QString &id : rowIds)
        if (requeues.value(id) > 0)
            used.insert(id, requeues.value(id));
    return used;
}

QHash<QString, RestoredInput> FakeJobStore::restorePayloadsOf(const DomainConfig &,
                                                              const RestoreRule &,
                                                              const QStringList &rowIds)
{
    ++restoreStatements;
    QHash<QString, RestoredInput> out;
    for (const QString &id : rowIds) {
        if (restoreError || restoreFailsFor.contains(id))
            out.insert(id,
                       RestoredInput{std::nullopt,
                                     restoreError.value_or(StoreError{
                                         QStringLiteral("restore query failed for %1").arg(id)})});
        else
            out.insert(id, RestoredInput{restorable.contains(id)
                                             ? std::optional<QByteArray>(restorable.value(id))
                                             : std::nullopt,
                                         std::nullopt});
    }
    return out;
}

Expected<bool, StoreError> FakeJobStore::startGeneration(qint64 generation)
{
    if (generation < fence)
        return false;
    fence = generation;
    return true;
}

Expected<qint64, StoreError> FakeJobStore::recordIntent(const Action &a, const Actor &)
{
    m_log->append(QStringLiteral("store:intent:%1").arg(a.rowId));
    if (intentError)
        return unexpected(*intentError);
    intents << a;
    if (a.kind == ActionKind::Requeue)
        requeues[a.rowId] += 1; // the budget use is taken with the intent, as in PostgreSQL
    return intents.size();
}

Expected<WriteOutcome, StoreError> FakeJobStore::applyAction(const DomainConfig &domain,
                                                             const Action &a, const Actor &)
{
    m_log->append(QStringLiteral("store:apply:%1").arg(a.rowId));
    if (writeError)
        return unexpected(*writeError);
    WriteOutcome out;
    if (a.precondition.generation != fence) {
        out.result = ActionResult::Fenced;
        return out;
    }
    auto it = rows.find(a.rowId);
    if (it == rows.end() || it->status != a.precondition.status ||
        it->updatedAt != a.precondition.updatedAtText) {
        out.result = ActionResult::Stale;
        audit << a;
        return out;
    }
    it->status = a.kind == ActionKind::Requeue ? domain.queuedStatus : domain.failedStatus;
    it->updatedAt = QStringLiteral("now");
    if (a.kind == ActionKind::Requeue && a.auditId == 0)
        requeues[a.rowId] += 1;
    if (a.kind == ActionKind::Fail) {
        it->error = a.reason;
        if (const ParentRule *rule = domain.parentFor(a.jobType)) {
            out.parent.attempted = true;
            out.parent.table = rule->table;
            out.parent.column = rule->column;
            out.parent.newValue = rule->failedValue;
            if (rule->inProgress.contains(it->parentStatus)) {
                it->parentStatus = rule->failedValue;
                out.parent.rows = 1;
            }
        }
    }
    out.result = ActionResult::Applied;
    audit << a;
    return out;
}

void FakeJobStore::auditOnly(const Action &a, const Actor &)
{
    audit << a;
    // An enqueue that left nothing runnable gives its budget use back.
    if (a.auditId != 0 && a.kind == ActionKind::Requeue &&
        (a.result == ActionResult::EnqueueFailed || a.result == ActionResult::Dropped))
        requeues[a.rowId] -= 1;
}

Expected<std::optional<Candidate>, StoreError> FakeJobStore::readRow(const DomainConfig &domain,
                                                                     const QString &rowId)
{
    m_log->append(QStringLiteral("store:readRow:%1:%2").arg(domain.name, rowId));
    if (readError)
        return unexpected(*readError);
    const auto it = rows.constFind(rowId);
    if (it == rows.cend() || it->domain != domain.name)
        return std::optional<Candidate>();
    // The text as PostgreSQL would print it, read back as UTC (the console's time zone setting).
    QDateTime at = QDateTime::fromString(it->updatedAt, QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
    at.setTimeZone(QTimeZone::utc());
    return std::optional<Candidate>(
        Candidate{it->domain, it->id, it->type, it->status, it->updatedAt, at, {}});
}

Expected<QList<Rejection>, StoreError> FakeJobStore::activeRejections(const DomainConfig &domain)
{
    m_log->append(QStringLiteral("store:rejections:%1").arg(domain.name));
    if (rejectionsError)
        return unexpected(*rejectionsError);
    QList<Rejection> out;
    for (const Rejection &r : rejections)
        if (r.domain == domain.name)
            out << r;
    return out;
}

Expected<Rejection, StoreError> FakeJobStore::recordRejection(const Action &a, const Actor &actor)
{
    m_log->append(QStringLiteral("store:reject:%1").arg(a.rowId));
    if (writeError)
        return unexpected(*writeError);
    Rejection r{a.domain,
                a.rowId,
                a.precondition.status,
                a.precondition.updatedAtText,
                actorName(actor),
                QDateTime::currentDateTimeUtc()};
    rejections << r;
    Action audited = a;
    audited.result = ActionResult::Rejected;
    audit << audited;
    return r;
}

Expected<int, StoreError> FakeJobStore::undoRejection(const Action &a, const Actor &)
{
    m_log->append(QStringLiteral("store:undoRejection:%1").arg(a.rowId));
    if (writeError)
        return unexpected(*writeError);
    const qsizetype before = rejections.size();
    rejections.removeIf(
        [&](const Rejection &r) { return r.domain == a.domain && r.rowId == a.rowId; });
    return static_cast<int>(before - rejections.size());
}

ReclaimConfig fakeConfig()
{
    ReclaimConfig c;
    c.postgres.host = QStringLiteral("fake");
    c.postgres.database = QStringLiteral("fake");
    c.redis.host = QStringLiteral("fake");
    c.run.scanPageSize = 200;

    DomainConfig video;
    video.name = QStringLiteral("video");
    video.table = QStringLiteral("VideoJob");
    video.columns.type = QStringLiteral("type");
    video.types = {QStringLiteral("GENERATE"), QStringLiteral("COMPOSE"), QStringLiteral("EXPORT")};
    video.queues = {QStringLiteral("video-generation"), QStringLiteral("video-export")};
    video.jobIdTemplate = QStringLiteral("video-{type}-{id}");
    video.restore = RestoreRule{{QStringLiteral("COMPOSE")},
                                QStringLiteral("video-generation"),
                                QStringLiteral("compose"),
                                QStringLiteral("SELECT :jobId")};
    video.parents = {ParentRule{{QStringLiteral("GENERATE"), QStringLiteral("COMPOSE")},
                                QStringLiteral("Video"),
                                QStringLiteral("id"),
                                QStringLiteral("videoId"),
                                QStringLiteral("status"),
                                {QStringLiteral("PROCESSING")},
                                QStringLiteral("FAILED")},
                     ParentRule{{QStringLiteral("EXPORT")},
                                QStringLiteral("Video"),
                                QStringLiteral("id"),
                                QStringLiteral("videoId"),
                                QStringLiteral("exportStatus"),
                                {QStringLiteral("PROCESSING")},
                                QStringLiteral("FAILED")}};
    DomainConfig image;
    image.name = QStringLiteral("image");
    image.table = QStringLiteral("ImageJob");
    image.queues = {QStringLiteral("image-render")};
    image.jobIdTemplate = QStringLiteral("image-{id}");
    c.domains = {video, image};
    return c;
}

} // namespace reclaim::test
