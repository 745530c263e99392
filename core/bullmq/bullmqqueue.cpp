#include "bullmq/bullmqqueue.h"

#include "bullmq/bullmqkeys.h"
#include "bullmq/bullmqlayout.h"
#include "bullmq/bullmqscripts.h"
#include "bullmq/jobenqueue.h"
#include "bullmq/probetrips.h"

#include <algorithm>

namespace reclaim {

namespace {

constexpr int kListPage = 10000;
constexpr qsizetype kAnchors = 16;
// BullMQ trims its event log to about 10,000 entries; more than this many after a mark is a
// queue that moved too much during one scan to name every job.
constexpr int kMovesRead = 50000;

// A batch whose scripts were sent on `conn`; nothing else uses the connection until finish().
class SentEnqueue final : public PendingEnqueue
{
public:
    SentEnqueue(RedisChannel &conn, bullmq::EnqueueInFlight inFlight)
        : m_conn(conn), m_inFlight(std::move(inFlight))
    {}
    QList<Expected<EnqueueOutcome, RedisError>> finish() override
    {
        return bullmq::finishEnqueueJobs(m_conn, m_inFlight);
    }

private:
    RedisChannel &m_conn;
    bullmq::EnqueueInFlight m_inFlight;
};

// Answers known before anything was sent (no connection).
class AnsweredEnqueue final : public PendingEnqueue
{
public:
    explicit AnsweredEnqueue(QList<Expected<EnqueueOutcome, RedisError>> answers)
        : m_answers(std::move(answers))
    {}
    QList<Expected<EnqueueOutcome, RedisError>> finish() override { return std::move(m_answers); }

private:
    QList<Expected<EnqueueOutcome, RedisError>> m_answers;
};

} // namespace

BullmqQueue::BullmqQueue(RedisLink &link, const RunSettings &settings, FenceKeys fence)
    : m_link(link), m_settings(settings), m_fence(std::move(fence))
{}

qint64 BullmqQueue::roundTrips() const
{
    return m_link.roundTrips();
}

QList<Expected<Sighting, RedisError>> BullmqQueue::probe(const QList<JobRef> &jobs,
                                                         PayloadSize payload)
{
    QList<Expected<Sighting, RedisError>> out;
    out.reserve(jobs.size());
    const QList<ProbeTrip> trips = buildProbeTrips(jobs, m_settings, payload);
    using Replies = Expected<QList<RedisResult>, RedisError>;

    // One trip in flight ahead of the one being read: Redis runs the next batch while this side
    // reads the replies of the last. Lookups only read, so a trip whose connection broke or
    // whose script the server had lost simply goes again.
    std::optional<RedisError> aheadError;
    bool aheadSent = false;
    auto send = [&](const ProbeTrip &trip) -> std::optional<RedisError> {
        auto conn = m_link.connection();
        if (!conn)
            return conn.error();
        auto sent = (*conn)->send(trip.commands);
        if (!sent)
            return sent.error();
        return std::nullopt;
    };
    auto lostScript = [](const Replies &replies) {
        return replies && std::any_of(replies->begin(), replies->end(), [](const RedisResult &r) {
                   return !r && r.error().kind == RedisError::Kind::NoScript;
               });
    };
    for (qsizetype t = 0; t < trips.size(); ++t) {
        const ProbeTrip &trip = trips.at(t);
        std::optional<RedisError> sendError = aheadSent ? aheadError : send(trip);
        aheadSent = false;
        if (!sendError && t + 1 < trips.size()) {
            aheadError = send(trips.at(t + 1));
            aheadSent = !aheadError;
        }
        Replies replies = sendError ? Replies(unexpected(*sendError))
                                    : m_link.current()->receive(trip.commands.size());
        if (!replies) {
            aheadSent = false; // it went out on the broken connection: send it again
        } else if (lostScript(replies)) {
            // A fresh server, or one that restarted or flushed its scripts: let the connection go
            // idle, then LuaScript::run loads the script and runs this trip again.
            if (aheadSent)
                (void)m_link.current()->receive(trips.at(t + 1).commands.size());
            aheadSent = false;
            auto conn = m_link.connection();
            replies = conn ? bullmq::scripts::probe().run(**conn, trip.commands)
                           : Replies(unexpected(conn.error()));
        }
        readProbeTrip(trip, replies, jobs, out);
    }
    return out;
}

Expected<RowIdSet, RedisError> BullmqQueue::listMembers(const QString &keyPrefix,
                                                        const QString &queue, const QString &list)
{
    RowIdSet members;
    ScanCursor cursor;
    std::optional<qint64> budget;
    for (int pages = 0;; ++pages) {
        auto page = readPage(keyPrefix, queue, list, cursor, kListPage, false);
        if (!page)
            return unexpected(page.error());
        if (!budget) {
            budget = scanPageBudget(page->stateSize, kListPage);
            members.reserve(page->stateSize); // one table, not one per doubling
        }
        for (const ScanPage::Job &job : page->jobs)
            members.insert(job.id);
        if (page->done)
            return members;
        if (pages + 1 >= *budget)
            return unexpected(
                RedisError{RedisError::Kind::Moving,
                           QStringLiteral("%1 of %2 moved faster than it could be read (%3 pages)")
                               .arg(list, queue)
                               .arg(pages + 1)});
        cursor = page->next;
    }
}

Expected<ScanPage, RedisError> BullmqQueue::scanPage(const QString &keyPrefix, const QString &queue,
                                                     const QString &state, const ScanCursor &from,
                                                     int count)
{
    return readPage(keyPrefix, queue, state, from, count, true);
}

bool BullmqQueue::isListState(const QString &state)
{
    return state == QLatin1String("wait") || state == QLatin1String("paused") ||
           state == QLatin1String("active");
}

RedisCommand BullmqQueue::pageCommand(const QString &keyPrefix, const QString &queue,
                                      const QString &state, const ScanCursor &from, int count,
                                      bool withData)
{
    const bool isList = isListState(state);
    QList<QByteArray> args{isList ? QByteArrayLiteral("list") : QByteArrayLiteral("zset"),
                           QByteArray::number(count), bullmq::queueKeyPrefix(keyPrefix, queue),
                           withData ? QByteArrayLiteral("1") : QByteArrayLiteral("0"),
                           QByteArray::number(from.position)};
    // A sorted set's anchors go with the scores they were read with; a cursor without them (a
    // list's, or the start) carries no anchors into a set.
    const bool scored = !isList && from.scores.size() == from.anchors.size();
    const QStringList anchors = isList || scored ? from.anchors : QStringList();
    args << QByteArray::number(anchors.size());
    for (const QString &anchor : anchors)
        args << anchor.toUtf8();
    if (!isList)
        for (qsizetype i = 0; i < anchors.size(); ++i)
            args << from.scores.at(i).toUtf8();
    return bullmq::scripts::scanPage().evalsha(
        {bullmq::queueKey(keyPrefix, queue, state),
         bullmq::queueKey(keyPrefix, queue, QStringLiteral("meta"))},
        args);
}

Expected<ScanPage, RedisError> BullmqQueue::pageFromReply(const RedisResult &r,
                                                          const QString &queue, bool isList,
                                                          const ScanCursor &from, bool withData)
{
    if (!r)
        return unexpected(r.error());
    constexpr qsizetype kHead = 7;
    constexpr qsizetype kPerJob = 3;
    if (!r->isArray() || r->elements.size() < kHead || (r->elements.size() - kHead) % kPerJob != 0)
        return unexpected(RedisError::unexpectedReply(QStringLiteral("scanpage")));
    // Every number of the head is one, or the page proves nothing (a reply this code does not
    // expect is "could not look", never a default that reads as "done" or "not paused").
    for (qsizetype i = 0; i < 5; ++i)
        if (r->elements.at(i).type != RedisValue::Type::Integer)
            return unexpected(RedisError::unexpectedReply(QStringLiteral("scanpage")));
    const BullmqLayout layout = BullmqLayout::fromMetaVersion(r->elements.at(5).toText());
    if (!layout.readable())
        return unexpected(RedisError{RedisError::Kind::Layout, layout.refusal(queue)});
    ScanPage page;
    page.pauseMovesJobs = layout.family != BullmqLayout::Family::Bullmq6;
    page.stateSize = r->elements.at(0).integer;
    page.queuePaused = r->elements.at(1).integer == 1;
    page.restarted = r->elements.at(2).integer == 1;
    page.done = r->elements.at(3).integer == 1;
    const qint64 position = r->elements.at(4).integer;
    page.continuedFrom = r->elements.at(6).toText();
    QStringList scores;
    for (qsizetype i = kHead; i + kPerJob - 1 < r->elements.size(); i += kPerJob) {
        ScanPage::Job job;
        job.id = r->elements.at(i).toText();
        const RedisValue &data = r->elements.at(i + 1);
        if (withData && !data.isNil())
            job.data = data.toBytes();
        page.jobs << job;
        scores << r->elements.at(i + 2).toText();
    }
    // The next page starts next to the ids read furthest: several, so one of them taken away
    // (a job completing in `active`) does not send the reader back to the start.
    if (page.jobs.isEmpty()) {
        page.next = from;
    } else {
        page.next.position = position;
        for (qsizetype i = page.jobs.size() - 1; i >= 0 && page.next.anchors.size() < kAnchors;
             --i) {
            page.next.anchors << page.jobs.at(i).id;
            if (!isList)
                page.next.scores << scores.at(i);
        }
    }
    return page;
}

Expected<ScanPage, RedisError> BullmqQueue::readPage(const QString &keyPrefix, const QString &queue,
                                                     const QString &state, const ScanCursor &from,
                                                     int count, bool withData)
{
    auto conn = m_link.connection();
    if (!conn)
        return unexpected(conn.error());
    auto r = bullmq::scripts::scanPage().run(
        **conn, {pageCommand(keyPrefix, queue, state, from, count, withData)});
    if (!r)
        return unexpected(r.error());
    return pageFromReply(r->first(), queue, isListState(state), from, withData);
}

RedisCommand BullmqQueue::movesCommand(const QString &keyPrefix, const QString &queue,
                                       const QString &since)
{
    return bullmq::scripts::moves().evalsha(
        {bullmq::queueKey(keyPrefix, queue, QStringLiteral("events"))},
        {since.toUtf8(), QByteArray::number(kMovesRead)});
}

Expected<QueueMoves, RedisError> BullmqQueue::movesFromReply(const RedisResult &r)
{
    if (!r)
        return unexpected(r.error());
    if (!r->isArray() || r->elements.size() < 3)
        return unexpected(RedisError::unexpectedReply(QStringLiteral("moves")));
    QueueMoves moves;
    moves.mark = r->elements.at(0).toText();
    moves.complete = r->elements.at(1).toInteger().value_or(0) == 1;
    moves.pausedOrResumed = r->elements.at(2).toInteger().value_or(1) != 0;
    for (qsizetype i = 3; i < r->elements.size(); ++i)
        moves.jobIds << r->elements.at(i).toText();
    return moves;
}

Expected<QueueMoves, RedisError> BullmqQueue::movesSince(const QString &keyPrefix,
                                                         const QString &queue, const QString &since)
{
    auto conn = m_link.connection();
    if (!conn)
        return unexpected(conn.error());
    auto r = bullmq::scripts::moves().run(**conn, {movesCommand(keyPrefix, queue, since)});
    if (!r)
        return unexpected(r.error());
    return movesFromReply(r->first());
}

QueueInspector::PageThenMoves
BullmqQueue::scanPageThenMoves(const QString &keyPrefix, const QString &queue, const QString &state,
                               const ScanCursor &from, int count, const QString &since)
{
    // One round trip for both: Redis reads the event log right after the page, as the second
    // call would. Reads only, so a pipeline that meets a script the server lost (or a refusal
    // to be named) simply goes again as the two calls, which load and name their scripts.
    const auto failed = [](const RedisError &e) {
        return PageThenMoves{unexpected(e), unexpected(e)};
    };
    auto conn = m_link.connection();
    if (!conn)
        return failed(conn.error());
    (*conn)->learnScript(bullmq::scripts::scanPage().sha(), bullmq::scripts::scanPage().source());
    (*conn)->learnScript(bullmq::scripts::moves().sha(), bullmq::scripts::moves().source());
    const bool isList = isListState(state);
    auto replies = (*conn)->pipeline({pageCommand(keyPrefix, queue, state, from, count, true),
                                      movesCommand(keyPrefix, queue, since)});
    if (!replies)
        return failed(replies.error());
    for (const RedisResult &r : *replies)
        if (!r && (r.error().kind == RedisError::Kind::NoScript ||
                   r.error().kind == RedisError::Kind::NoPermission))
            return QueueInspector::scanPageThenMoves(keyPrefix, queue, state, from, count, since);
    auto page = pageFromReply(replies->at(0), queue, isList, from, true);
    if (!page)
        return failed(page.error());
    return {std::move(page), movesFromReply(replies->at(1))};
}

Expected<bool, RedisError> BullmqQueue::hasTrace(const QString &keyPrefix, const QString &queue)
{
    auto conn = m_link.connection();
    if (!conn)
        return unexpected(conn.error());
    // One EXISTS over every key BullMQ keeps for a queue (they share its prefix, so its slot).
    RedisCommand exists{QByteArrayLiteral("EXISTS")};
    for (const char *suffix : {"meta", "id", "events", "wait", "paused", "active", "delayed",
                               "prioritized", "waiting-children", "completed", "failed"})
        exists << bullmq::queueKey(keyPrefix, queue, QLatin1String(suffix));
    auto r = (*conn)->command(exists);
    if (!r)
        return unexpected(r.error());
    if (r->type != RedisValue::Type::Integer)
        return unexpected(RedisError::unexpectedReply(QStringLiteral("EXISTS")));
    return r->integer > 0;
}

Expected<PrioritizedSince, RedisError>
BullmqQueue::prioritizedSince(const QString &keyPrefix, const QString &queue, const QString &mark)
{
    auto conn = m_link.connection();
    if (!conn)
        return unexpected(conn.error());
    auto r = bullmq::scripts::prioritized().runOne(
        **conn,
        {bullmq::queueKey(keyPrefix, queue, QStringLiteral("prioritized")),
         bullmq::queueKey(keyPrefix, queue, QStringLiteral("pc")),
         bullmq::queueKey(keyPrefix, queue, QStringLiteral("meta"))},
        {bullmq::queueKeyPrefix(keyPrefix, queue), mark.toUtf8(), QByteArrayLiteral("1")});
    if (!r)
        return unexpected(r.error());
    if (!r->isArray() || r->elements.size() < 2 || r->elements.size() % 2 != 0 ||
        r->elements.at(0).toText().isEmpty())
        return unexpected(RedisError::unexpectedReply(QStringLiteral("prioritized")));
    const BullmqLayout layout = BullmqLayout::fromMetaVersion(r->elements.at(1).toText());
    if (!layout.readable())
        return unexpected(RedisError{RedisError::Kind::Layout, layout.refusal(queue)});
    PrioritizedSince out;
    out.mark = r->elements.at(0).toText();
    for (qsizetype i = 2; i + 1 < r->elements.size(); i += 2) {
        ScanPage::Job job;
        job.id = r->elements.at(i).toText();
        if (!r->elements.at(i + 1).isNil())
            job.data = r->elements.at(i + 1).toBytes();
        out.jobs << job;
    }
    return out;
}

Expected<EnqueueOutcome, RedisError> BullmqQueue::enqueue(const EnqueueRequest &request)
{
    return enqueueMany({request}).first();
}

QList<Expected<EnqueueOutcome, RedisError>>
BullmqQueue::enqueueMany(const QList<EnqueueRequest> &requests)
{
    if (requests.isEmpty())
        return {};
    auto conn = m_link.connection();
    if (!conn)
        return QList<Expected<EnqueueOutcome, RedisError>>(requests.size(),
                                                           unexpected(conn.error()));
    return bullmq::enqueueJobs(**conn, m_fence, requests);
}

std::unique_ptr<PendingEnqueue> BullmqQueue::startEnqueue(const QList<EnqueueRequest> &requests)
{
    auto conn = m_link.connection();
    if (!conn)
        return std::make_unique<AnsweredEnqueue>(
            QList<Expected<EnqueueOutcome, RedisError>>(requests.size(), unexpected(conn.error())));
    return std::make_unique<SentEnqueue>(**conn,
                                         bullmq::startEnqueueJobs(**conn, m_fence, requests));
}

} // namespace reclaim
