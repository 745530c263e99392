#include "redis/redisvalue.h"

#include <algorithm>
#include <hiredis/hiredis.h>
#include <memory>
#include <new>

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

namespace {

// Where the value being read goes: the root is allocated (and handed to the reader), every other
// value is the slot its array made room for, filled in place (the array never grows again).
RedisValue *slotFor(const redisReadTask *task)
{
    if (task->parent) {
        auto *parent = static_cast<RedisValue *>(task->parent->obj);
        return &parent->elements[task->idx];
    }
    return new (std::nothrow) RedisValue;
}

void *createString(const redisReadTask *task, char *str, size_t len)
{
    RedisValue *v = slotFor(task);
    if (!v)
        return nullptr;
    v->type = task->type == REDIS_REPLY_ERROR    ? RedisValue::Type::Error
              : task->type == REDIS_REPLY_STATUS ? RedisValue::Type::Status
                                                 : RedisValue::Type::String;
    v->string = QByteArray(str, static_cast<qsizetype>(len));
    return v;
}

void *createArray(const redisReadTask *task, int elements)
{
    RedisValue *v = slotFor(task);
    if (!v)
        return nullptr;
    v->type = RedisValue::Type::Array;
    v->elements.resize(std::max(0, elements));
    return v;
}

void *createInteger(const redisReadTask *task, long long value)
{
    RedisValue *v = slotFor(task);
    if (!v)
        return nullptr;
    v->type = RedisValue::Type::Integer;
    v->integer = value;
    return v;
}

void *createNil(const redisReadTask *task)
{
    RedisValue *v = slotFor(task);
    if (v)
        v->type = RedisValue::Type::Nil;
    return v;
}

// The reader frees only a root (a reply it gives up on); its children are inside it.
void freeValue(void *value)
{
    delete static_cast<RedisValue *>(value);
}

redisReplyObjectFunctions valueFunctions{createString, createArray, createInteger, createNil,
                                         freeValue};

} // namespace

redisReplyObjectFunctions *RedisValue::readerFunctions()
{
    return &valueFunctions;
}

RedisValue RedisValue::takeReply(void *reply)
{
    std::unique_ptr<RedisValue> owned(static_cast<RedisValue *>(reply));
    return owned ? std::move(*owned) : RedisValue();
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
