#include "redis/luascript.h"

#include <QCryptographicHash>

namespace reclaim {

LuaScript::LuaScript(const char *name, const char *source)
    : m_name(name), m_source(source),
      m_sha(QCryptographicHash::hash(m_source, QCryptographicHash::Sha1).toHex())
{}

RedisCommand LuaScript::evalsha(const QList<QByteArray> &keys, const QList<QByteArray> &args) const
{
    RedisCommand cmd;
    cmd.reserve(3 + keys.size() + args.size());
    cmd << QByteArrayLiteral("EVALSHA") << m_sha << QByteArray::number(keys.size());
    cmd << keys << args;
    return cmd;
}

// "may not run EVALSHA" says which command; the script's name says which step of a run.
void LuaScript::nameScriptInRefusals(QList<RedisResult> &results) const
{
    for (RedisResult &r : results)
        if (!r && r.error().kind == RedisError::Kind::NoPermission)
            r = unexpected(RedisError{
                r.error().kind,
                QStringLiteral("%1 (script %2)").arg(r.error().message, QLatin1String(m_name))});
}

Expected<QList<RedisResult>, RedisError> LuaScript::run(RedisChannel &conn,
                                                        const QList<RedisCommand> &commands) const
{
    conn.learnScript(m_sha, m_source);
    auto results = conn.pipeline(commands);
    if (!results)
        return results;
    nameScriptInRefusals(*results);
    QList<qsizetype> missing;
    for (qsizetype i = 0; i < results->size(); ++i)
        if (!results->at(i) && results->at(i).error().kind == RedisError::Kind::NoScript)
            missing << i;
    if (missing.isEmpty())
        return results;

    auto loaded = conn.command({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("LOAD"), m_source});
    if (!loaded)
        return unexpected(RedisError{loaded.error().kind,
                                     QStringLiteral("SCRIPT LOAD %1: %2")
                                         .arg(QLatin1String(m_name), loaded.error().message)});
    QList<RedisCommand> retry;
    for (qsizetype i : missing)
        retry << commands.at(i);
    auto again = conn.pipeline(retry);
    if (!again)
        return again;
    nameScriptInRefusals(*again);
    for (qsizetype j = 0; j < missing.size(); ++j)
        (*results)[missing.at(j)] = again->at(j);
    return results;
}

QList<RedisResult> LuaScript::runEach(RedisChannel &conn, const QList<RedisCommand> &commands) const
{
    return receiveEach(conn, commands, sendEach(conn, commands));
}

WritesInFlight LuaScript::sendEach(RedisChannel &conn, const QList<RedisCommand> &commands) const
{
    conn.learnScript(m_sha, m_source);
    return conn.sendWrites(commands);
}

QList<RedisResult> LuaScript::receiveEach(RedisChannel &conn, const QList<RedisCommand> &commands,
                                          const WritesInFlight &inFlight) const
{
    QList<RedisResult> results = conn.receiveWrites(inFlight);
    nameScriptInRefusals(results);
    QList<qsizetype> missing;
    for (qsizetype i = 0; i < results.size(); ++i)
        if (!results.at(i) && results.at(i).error().kind == RedisError::Kind::NoScript)
            missing << i;
    if (missing.isEmpty())
        return results;

    auto loaded = conn.command({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("LOAD"), m_source});
    if (!loaded) {
        // The commands answered NOSCRIPT did not run, and are not sent again.
        const RedisError notRun{loaded.error().kind == RedisError::Kind::Unanswered
                                    ? RedisError::Kind::Io
                                    : loaded.error().kind,
                                QStringLiteral("not run: SCRIPT LOAD %1: %2")
                                    .arg(QLatin1String(m_name), loaded.error().message)};
        for (qsizetype i : missing)
            results[i] = unexpected(notRun);
        return results;
    }
    QList<RedisCommand> retry;
    for (qsizetype i : missing)
        retry << commands.at(i);
    QList<RedisResult> again = conn.exchange(retry);
    nameScriptInRefusals(again);
    for (qsizetype j = 0; j < missing.size(); ++j)
        results[missing.at(j)] = again.at(j);
    return results;
}

RedisResult LuaScript::runOne(RedisChannel &conn, const QList<QByteArray> &keys,
                              const QList<QByteArray> &args) const
{
    auto results = run(conn, {evalsha(keys, args)});
    if (!results)
        return unexpected(results.error());
    return results->first();
}

} // namespace reclaim
