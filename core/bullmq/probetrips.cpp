#include "bullmq/probetrips.h"

#include "bullmq/bullmqkeys.h"
#include "bullmq/bullmqlayout.h"
#include "bullmq/bullmqscripts.h"

namespace reclaim {

namespace {

// An excerpt of a payload: what an operator reads as evidence. -1 asks the script for all of it.
constexpr int kExcerptBytes = 16384;
constexpr int kWholePayload = -1;

qint64 num(const RedisValue &v)
{
    return v.toBytes().value_or(QByteArray()).toLongLong();
}

RedisError badReply()
{
    return RedisError::unexpectedReply(QStringLiteral("the probe script"));
}

// The probe answers nine values per job: state, lock PTTL, name, data, timestamp, processedOn,
// finishedOn, failedReason, attempts.
constexpr qsizetype kProbeFields = 9;

Expected<Sighting, RedisError> toSighting(const JobRef &job, const QList<RedisValue> &values,
                                          qsizetype at)
{
    Sighting s;
    s.queue = job.queue;
    s.jobId = job.jobId;
    s.how = FoundBy::Direct;
    s.state = values.at(at).toText();
    if (s.state.isEmpty())
        return unexpected(badReply());
    // The script could not look at this one job (its key holds something else, say): the
    // server's message, for this candidate alone.
    if (s.state == QLatin1String("error"))
        return unexpected(RedisError{RedisError::Kind::Server, values.at(at + 2).toText()});
    // Only the answers this code knows may settle anything: a state it does not know (a newer
    // script, a newer BullMQ) or a lock TTL that is not a number is "could not look", never read
    // as "not runnable" or "no worker lock".
    if (!isKnownLookupState(s.state))
        return unexpected(RedisError{
            RedisError::Kind::Reply,
            QStringLiteral("job %1: the probe answered state '%2', which this Reclaim does not "
                           "know")
                .arg(job.jobId, s.state.left(64))});
    const RedisValue &lockTtl = values.at(at + 1);
    if (lockTtl.type != RedisValue::Type::Integer)
        return unexpected(
            RedisError{RedisError::Kind::Reply,
                       QStringLiteral("job %1: the probe answered a lock TTL that is not a number")
                           .arg(job.jobId)});
    s.lockTtlMs = lockTtl.integer;
    s.name = values.at(at + 2).toText();
    s.data = values.at(at + 3).toBytes().value_or(QByteArray());
    s.timestamp = num(values.at(at + 4));
    s.processedOn = num(values.at(at + 5));
    s.finishedOn = num(values.at(at + 6));
    s.failedReason = values.at(at + 7).toText();
    s.attempts = values.at(at + 8).toText();
    return s;
}

} // namespace

QList<ProbeTrip> buildProbeTrips(const QList<JobRef> &jobs, const RunSettings &settings,
                                 PayloadSize payload)
{
    const LuaScript &script = bullmq::scripts::probe();
    const qsizetype perTrip = qMax(1, settings.probeBatchSize);
    const QByteArray walkLimit = QByteArray::number(settings.listProbeLimit);
    const QByteArray maxData =
        QByteArray::number(payload == PayloadSize::Whole ? kWholePayload : kExcerptBytes);
    // The queue's own keys are the same for every job of a call (usually of the whole request):
    // built once per queue.
    QString keysPrefix, keysQueue;
    QList<QByteArray> queueKeys;
    QByteArray jobKeyPrefix;
    QList<ProbeTrip> trips;
    for (qsizetype tripStart = 0; tripStart < jobs.size(); tripStart += perTrip) {
        const qsizetype tripEnd = qMin(jobs.size(), tripStart + perTrip);
        ProbeTrip trip;
        for (qsizetype i = tripStart; i < tripEnd;) {
            const JobRef &first = jobs.at(i);
            if (queueKeys.isEmpty() || first.keyPrefix != keysPrefix || first.queue != keysQueue) {
                keysPrefix = first.keyPrefix;
                keysQueue = first.queue;
                jobKeyPrefix = bullmq::queueKeyPrefix(first.keyPrefix, first.queue);
                queueKeys.clear();
                for (const char *suffix : {"completed", "failed", "delayed", "prioritized",
                                           "waiting-children", "wait", "paused", "active", "meta"})
                    queueKeys << jobKeyPrefix + suffix;
            }
            ProbeCall call{i, 0};
            QList<QByteArray> args{jobKeyPrefix, walkLimit, maxData};
            while (i < tripEnd && call.count < kProbeIdsPerCall && jobs.at(i).queue == keysQueue &&
                   jobs.at(i).keyPrefix == keysPrefix) {
                args << jobs.at(i).jobId.toUtf8();
                ++call.count;
                ++i;
            }
            trip.calls << call;
            trip.commands << script.evalsha(queueKeys, args);
        }
        trips << trip;
    }
    return trips;
}

void readProbeTrip(const ProbeTrip &trip, const Expected<QList<RedisResult>, RedisError> &replies,
                   const QList<JobRef> &jobs, QList<Expected<Sighting, RedisError>> &out)
{
    for (qsizetype c = 0; c < trip.calls.size(); ++c) {
        const ProbeCall &call = trip.calls.at(c);
        const RedisResult *reply = replies && c < replies->size() ? &replies->at(c) : nullptr;
        // call.count answers of kProbeFields values each, then the queue's meta `version`.
        const bool wellFormed = reply && *reply && (*reply)->isArray() &&
                                (*reply)->elements.size() == call.count * kProbeFields + 1;
        std::optional<RedisError> layoutError;
        if (wellFormed) {
            const RedisValue &stamp = (*reply)->elements.last();
            const JobRef &first = jobs.at(call.start);
            if (stamp.isNil()) {
                layoutError = RedisError{
                    RedisError::Kind::Server,
                    QStringLiteral("queue %1: its meta hash could not be read").arg(first.queue)};
            } else {
                const BullmqLayout layout = BullmqLayout::fromMetaVersion(stamp.toText());
                if (!layout.readable())
                    layoutError = RedisError{RedisError::Kind::Layout, layout.refusal(first.queue)};
            }
        }
        for (qsizetype k = 0; k < call.count; ++k) {
            if (!replies)
                out.append(unexpected(replies.error()));
            else if (reply && !*reply)
                out.append(unexpected(reply->error()));
            else if (!wellFormed)
                out.append(unexpected(badReply()));
            else if (layoutError)
                out.append(unexpected(*layoutError));
            else
                out.append(
                    toSighting(jobs.at(call.start + k), (*reply)->elements, k * kProbeFields));
        }
    }
}

} // namespace reclaim
