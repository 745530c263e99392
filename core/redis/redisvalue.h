// An owned copy of one Redis reply, so no hiredis pointer outlives the call that produced it.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <optional>

struct redisReply;

namespace reclaim {

struct RedisValue
{
    enum class Type
    {
        Nil,
        Integer,
        String,
        Status,
        Error,
        Array
    };

    Type type = Type::Nil;
    long long integer = 0;
    QByteArray string; // String, Status and Error text
    QList<RedisValue> elements;

    bool isNil() const { return type == Type::Nil; }
    bool isError() const { return type == Type::Error; }
    bool isArray() const { return type == Type::Array; }
    std::optional<long long> toInteger() const;
    std::optional<QByteArray> toBytes() const;
    // toBytes() as UTF-8 text; empty for a nil, an array or an error.
    QString toText() const;

    static RedisValue fromReply(const redisReply *reply);
    // Values built by hand: a reply as a server would send it, for parsers' tests.
    static RedisValue bulk(const QByteArray &bytes);
    static RedisValue number(long long n);
    static RedisValue list(QList<RedisValue> elements);
};

} // namespace reclaim
