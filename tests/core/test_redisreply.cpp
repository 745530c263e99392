// hiredis' reader building replies as RedisValue in place (RedisValue::readerFunctions): every
// kind of reply, nested arrays, replies split at every byte, and a reader given up on halfway
// through an array. No server: the bytes are what Redis would send.
#include "redis/redisvalue.h"

#include <QTest>
#include <hiredis/hiredis.h>
#include <memory>

using namespace reclaim;

namespace {

struct ReaderDeleter
{
    void operator()(redisReader *r) const { redisReaderFree(r); }
};
using Reader = std::unique_ptr<redisReader, ReaderDeleter>;

Reader newReader()
{
    return Reader(redisReaderCreateWithFunctions(RedisValue::readerFunctions()));
}

// Every reply in `bytes`, fed `chunk` bytes at a time; QFAIL on a protocol error.
QList<RedisValue> readAll(const QByteArray &bytes, qsizetype chunk)
{
    Reader reader = newReader();
    QList<RedisValue> out;
    for (qsizetype at = 0; at < bytes.size(); at += chunk) {
        const QByteArray piece = bytes.mid(at, chunk);
        if (redisReaderFeed(reader.get(), piece.constData(), static_cast<size_t>(piece.size())) !=
            REDIS_OK)
            return {};
        for (;;) {
            void *raw = nullptr;
            if (redisReaderGetReply(reader.get(), &raw) != REDIS_OK)
                return {};
            if (!raw)
                break;
            out << RedisValue::takeReply(raw);
        }
    }
    return out;
}

// Feeds `bytes` to `reader` and asks it for one reply: what redisReaderGetReply answered, the
// reply (if any) in `raw`; kNotFed if the bytes could not even be fed (not REDIS_ERR, which is
// what a protocol error answers).
constexpr int kNotFed = -100;

int feedAndAsk(redisReader *reader, const QByteArray &bytes, void **raw)
{
    if (redisReaderFeed(reader, bytes.constData(), static_cast<size_t>(bytes.size())) != REDIS_OK)
        return kNotFed;
    *raw = nullptr;
    return redisReaderGetReply(reader, raw);
}

// What Redis sends for: "OK", -ERR, 42, "héllo", nil, an empty array, a nil array, and a probe's
// shape: an array of strings, an integer, a nil, a nested array and an error.
const QByteArray kWire = QByteArrayLiteral("+OK\r\n"
                                           "-ERR unknown command 'NOPE'\r\n"
                                           ":42\r\n"
                                           "$6\r\nh\xc3\xa9llo\r\n"
                                           "$-1\r\n"
                                           "*0\r\n"
                                           "*-1\r\n"
                                           "*5\r\n"
                                           "$7\r\nwaiting\r\n"
                                           ":-2\r\n"
                                           "$-1\r\n"
                                           "*2\r\n$1\r\na\r\n*1\r\n:7\r\n"
                                           "-WRONGTYPE Operation against a key\r\n");

} // namespace

class TestRedisReply : public QObject
{
    Q_OBJECT

private slots:
    void everyKindOfReplyIsBuiltAsItWasSent_data()
    {
        QTest::addColumn<qsizetype>("chunk");
        QTest::newRow("whole") << kWire.size();
        QTest::newRow("byte by byte") << qsizetype(1);
        QTest::newRow("three at a time") << qsizetype(3);
    }

    void everyKindOfReplyIsBuiltAsItWasSent()
    {
        QFETCH(qsizetype, chunk);
        const QList<RedisValue> replies = readAll(kWire, chunk);
        QCOMPARE(replies.size(), 8);

        QCOMPARE(replies.at(0).type, RedisValue::Type::Status);
        QCOMPARE(replies.at(0).string, QByteArray("OK"));
        QVERIFY(replies.at(1).isError());
        QCOMPARE(replies.at(1).string, QByteArray("ERR unknown command 'NOPE'"));
        QCOMPARE(replies.at(2).type, RedisValue::Type::Integer);
        QCOMPARE(replies.at(2).integer, 42LL);
        QCOMPARE(replies.at(3).type, RedisValue::Type::String);
        QCOMPARE(replies.at(3).toText(), QStringLiteral("h\u00e9llo"));
        QVERIFY(replies.at(4).isNil());
        QVERIFY(replies.at(5).isArray());
        QVERIFY(replies.at(5).elements.isEmpty());
        QVERIFY(replies.at(6).isNil());

        const RedisValue &probe = replies.at(7);
        QVERIFY(probe.isArray());
        QCOMPARE(probe.elements.size(), 5);
        QCOMPARE(probe.elements.at(0).toText(), QStringLiteral("waiting"));
        QCOMPARE(probe.elements.at(1).toInteger(), std::optional<long long>(-2));
        QVERIFY(probe.elements.at(2).isNil());
        const RedisValue &nested = probe.elements.at(3);
        QVERIFY(nested.isArray());
        QCOMPARE(nested.elements.size(), 2);
        QCOMPARE(nested.elements.at(0).toText(), QStringLiteral("a"));
        QVERIFY(nested.elements.at(1).isArray());
        QCOMPARE(nested.elements.at(1).elements.size(), 1);
        QCOMPARE(nested.elements.at(1).elements.at(0).integer, 7LL);
        QVERIFY(probe.elements.at(4).isError());
        QCOMPARE(probe.elements.at(4).string, QByteArray("WRONGTYPE Operation against a key"));
    }

    // A thousand lookups' worth of values in one reply: each in its own slot, in order.
    void aLargeReplyKeepsEveryValueInItsPlace()
    {
        QByteArray wire = QByteArrayLiteral("*9000\r\n");
        for (int i = 0; i < 9000; ++i) {
            const QByteArray s = QByteArray::number(i);
            wire += i % 3 == 0
                        ? QByteArray(":" + s + "\r\n")
                        : QByteArray("$" + QByteArray::number(s.size()) + "\r\n" + s + "\r\n");
        }
        const QList<RedisValue> replies = readAll(wire, 4096);
        QCOMPARE(replies.size(), 1);
        QCOMPARE(replies.at(0).elements.size(), 9000);
        for (int i = 0; i < 9000; ++i)
            QCOMPARE(replies.at(0).elements.at(i).toInteger(), std::optional<long long>(i));
    }

    // A reply cut off in the middle of a nested array, then the reader freed: it frees the part
    // built so far (a leak or a double free shows under valgrind or ASan).
    void aReaderGivenUpHalfwayFreesWhatItBuilt()
    {
        Reader reader = newReader();
        void *raw = nullptr;
        QCOMPARE(
            feedAndAsk(reader.get(), QByteArrayLiteral("*3\r\n$3\r\nabc\r\n*2\r\n:1\r\n"), &raw),
            REDIS_OK);
        QVERIFY(!raw); // not complete yet
        reader.reset();
    }

    // Bytes that are not RESP halfway through an array: an error, and the partial reply freed.
    void aProtocolErrorInsideAnArrayIsAnError()
    {
        Reader reader = newReader();
        void *raw = nullptr;
        QCOMPARE(feedAndAsk(reader.get(), QByteArrayLiteral("*2\r\n:1\r\n?what\r\n"), &raw),
                 REDIS_ERR);
        QVERIFY(!raw);
        QVERIFY(reader->err != 0);
    }
};

QTEST_GUILESS_MAIN(TestRedisReply)
#include "test_redisreply.moc"
