#include "redis/redisvalue.h"

#include <hiredis/hiredis.h>

namespace reclaim {

std::optional<long long> RedisValue::toInteger() const
{
    if (type == Type::Integer)
        return integer;
    if (type == Type::String || type == Type::Status) {
        bool ok = false;
        const long long n = string.toLongLong(&ok);
        if (ok)
            return n;
    }
    return std::nullopt;
}

std::optional<QByteArray> RedisValue::toBytes() const
{
    if (type == Type::String || type == Type::Status)
        return string;
    if (type == Type::Integer)
        return QByteArray::number(integer);
    return std::nullopt;
}

QString RedisValue::toText() const
{
    return QString::fromUtf8(toBytes().value_or(QByteArray()));
}

RedisValue RedisValue::fromReply(const redisReply *reply)
{
    RedisValue v;
    if (!reply)
        return v;
    switch (reply->type) {
    case REDIS_REPLY_INTEGER:
        v.type = Type::Integer;
        v.integer = reply->integer;
        break;
    case REDIS_REPLY_STRING:
        v.type = Type::String;
        v.string = QByteArray(reply->str, static_cast<qsizetype>(reply->len));
        break;
    case REDIS_REPLY_STATUS:
        v.type = Type::Status;
        v.string = QByteArray(reply->str, static_cast<qsizetype>(reply->len));
        break;
    case REDIS_REPLY_ERROR:
        v.type = Type::Error;
        v.string = QByteArray(reply->str, static_cast<qsizetype>(reply->len));
        break;
    case REDIS_REPLY_ARRAY:
        v.type = Type::Array;
        v.elements.reserve(static_cast<qsizetype>(reply->elements));
        for (size_t i = 0; i < reply->elements; ++i)
            v.elements.append(fromReply(reply->element[i]));
        break;
    default:
        v.type = Type::Nil;
    }
    return v;
}

RedisValue RedisValue::bulk(const QByteArray &bytes)
{
    RedisValue v;
    v.type = Type::String;
    v.string = bytes;
    return v;
}

RedisValue RedisValue::number(long long n)
{
    RedisValue v;
    v.type = Type::Integer;
    v.integer = n;
    return v;
}

RedisValue RedisValue::list(QList<RedisValue> elements)
{
    RedisValue v;
    v.type = Type::Array;
    v.elements = std::move(elements);
    return v;
}

} // namespace reclaim
