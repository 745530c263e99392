// One Redis reply, owned: no hiredis pointer outlives the call that produced it.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <optional>

struct redisReplyObjectFunctions;

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

    // hiredis' reader building each reply as a RedisValue in place (redisReplyObjectFunctions),
    // rather than as its own tree of redisReply copied here and freed: a reply of a thousand
    // lookups is nine thousand values, and each one allocated, copied and freed twice cost more
    // than reading it. Set on a reader before it reads anything; what it answers is taken with
    // takeReply(), and nothing else may free it.
    static redisReplyObjectFunctions *readerFunctions();
    static RedisValue takeReply(void *reply);
    // Values built by hand: a reply as a server would send it, for parsers' tests.
    static RedisValue bulk(const QByteArray &bytes);
    static RedisValue number(long long n);
    static RedisValue list(QList<RedisValue> elements);
};

} // namespace reclaim
