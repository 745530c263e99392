// The pure parts of Redis Cluster routing: the key slot function against the cluster
// specification's vectors, hash tags, which arguments of a command are keys, the slot map read
// from CLUSTER SHARDS and CLUSTER SLOTS replies, redirection replies, and redis+cluster:// URLs.
#include "config/connectionurl.h"
#include "config/fencekeys.h"
#include "redis/clusterredirect.h"
#include "redis/clusterslotmap.h"
#include "redis/commandkeys.h"
#include "util/clusterslot.h"

#include <QTest>

using namespace reclaim;

namespace {

RedisValue str(const QByteArray &s)
{
    return RedisValue::bulk(s);
}
RedisValue num(long long n)
{
    return RedisValue::number(n);
}
RedisValue arr(QList<RedisValue> elements)
{
    return RedisValue::list(std::move(elements));
}

RedisValue shardNode(const QByteArray &endpoint, int port, const QByteArray &role,
                     const QByteArray &health = "online", int tlsPort = 0)
{
    QList<RedisValue> fields{str("id"),
                             str(QByteArray(40, 'e')),
                             str("port"),
                             num(port),
                             str("ip"),
                             str("10.0.0.9"),
                             str("endpoint"),
                             str(endpoint),
                             str("role"),
                             str(role),
                             str("replication-offset"),
                             num(42),
                             str("health"),
                             str(health)};
    if (tlsPort > 0)
        fields << str("tls-port") << num(tlsPort);
    return arr(fields);
}

} // namespace

class TestClusterRouting : public QObject
{
    Q_OBJECT
private slots:
    void keySlot_data();
    void keySlot();
    void hashTag_data();
    void hashTag();
    void commandKeys_data();
    void commandKeys();
    void slotMapFromShards();
    void slotMapFromSlots();
    void slotMapRefusesWhatItCannotRead();
    void redirects_data();
    void redirects();
    void clusterUrl_data();
    void clusterUrl();
    void clusterUrlRefused_data();
    void clusterUrlRefused();
    void fenceKeysPerQueueSlot();
};

void TestClusterRouting::keySlot_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<int>("slot");
    // The specification's example: CRC16("123456789") = 0x31C3, 12739 modulo 16384.
    QTest::newRow("spec vector") << QByteArray("123456789") << 0x31C3 % 16384;
    // Values redis-server 7.0 (Debian 12) gives for CLUSTER KEYSLOT of the same keys.
    QTest::newRow("foo") << QByteArray("foo") << 12182;
    QTest::newRow("bar") << QByteArray("bar") << 5061;
    QTest::newRow("hello") << QByteArray("hello") << 866;
    QTest::newRow("empty") << QByteArray("") << 0;
    QTest::newRow("tag bull") << QByteArray("{bull}:render:wait") << 9263;
    QTest::newRow("same tag other key") << QByteArray("bull:{bull}:x") << 9263;
    QTest::newRow("tag user1000") << QByteArray("{user1000}.following") << 3443;
    QTest::newRow("empty tag hashes the whole key") << QByteArray("foo{}{bar}") << 8363;
    QTest::newRow("tag up to the first }") << QByteArray("foo{{bar}}zap") << 4015;
    QTest::newRow("first tag only") << QByteArray("foo{bar}{zap}") << 5061;
    QTest::newRow("no closing brace") << QByteArray("foo{bar") << 15278;
}

void TestClusterRouting::keySlot()
{
    QFETCH(QByteArray, key);
    QFETCH(int, slot);
    QCOMPARE(clusterKeySlot(key), slot);
}

void TestClusterRouting::hashTag_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("hashed");
    QTest::newRow("no braces") << QByteArray("bull:q:1") << QByteArray("bull:q:1");
    QTest::newRow("prefix tag") << QByteArray("{bull}:q:1") << QByteArray("bull");
    QTest::newRow("queue tag") << QByteArray("bull:{render}:1") << QByteArray("render");
    QTest::newRow("empty tag") << QByteArray("a{}b{c}") << QByteArray("a{}b{c}");
    QTest::newRow("nested") << QByteArray("foo{{bar}}zap") << QByteArray("{bar");
    QTest::newRow("unclosed") << QByteArray("foo{bar") << QByteArray("foo{bar");
    QTest::newRow("close before open") << QByteArray("}a{b}") << QByteArray("b");
}

void TestClusterRouting::hashTag()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, hashed);
    QCOMPARE(clusterHashTag(key).toByteArray(), hashed);
}

void TestClusterRouting::commandKeys_data()
{
    QTest::addColumn<QList<QByteArray>>("argv");
    QTest::addColumn<int>("scope"); // -1: refused
    QTest::addColumn<QList<QByteArray>>("keys");
    using L = QList<QByteArray>;
    const int keys = static_cast<int>(CommandKeys::Scope::Keys);
    const int keyless = static_cast<int>(CommandKeys::Scope::Keyless);
    const int local = static_cast<int>(CommandKeys::Scope::NodeLocal);
    QTest::newRow("GET") << L{"GET", "k"} << keys << L{"k"};
    QTest::newRow("hmget lower case") << L{"hmget", "h", "a", "b"} << keys << L{"h"};
    QTest::newRow("EXISTS") << L{"EXISTS", "a", "b"} << keys << L{"a", "b"};
    QTest::newRow("EVALSHA") << L{"EVALSHA", "sha", "2", "k1", "k2", "arg"} << keys
                             << L{"k1", "k2"};
    QTest::newRow("EVALSHA no keys") << L{"EVALSHA", "sha", "0", "arg"} << keyless << L{};
    QTest::newRow("EVALSHA count past args") << L{"EVALSHA", "sha", "3", "k1"} << -1 << L{};
    QTest::newRow("EVALSHA count not a number") << L{"EVALSHA", "sha", "x", "k1"} << -1 << L{};
    QTest::newRow("PING") << L{"PING"} << keyless << L{};
    QTest::newRow("SCRIPT LOAD") << L{"SCRIPT", "LOAD", "return 1"} << keyless << L{};
    QTest::newRow("SCAN") << L{"SCAN", "0"} << local << L{};
    QTest::newRow("unknown") << L{"OBJECT", "ENCODING", "k"} << -1 << L{};
    QTest::newRow("GET without key") << L{"GET"} << -1 << L{};
}

void TestClusterRouting::commandKeys()
{
    QFETCH(QList<QByteArray>, argv);
    QFETCH(int, scope);
    QFETCH(QList<QByteArray>, keys);
    const auto r = reclaim::commandKeys(argv);
    if (scope < 0) {
        QVERIFY(!r);
        QVERIFY(!r.error().isEmpty());
        return;
    }
    QVERIFY2(r, r ? "" : qPrintable(r.error()));
    QCOMPARE(static_cast<int>(r->scope), scope);
    QCOMPARE(r->keys, keys);
}

void TestClusterRouting::slotMapFromShards()
{
    const HostPort asked{QStringLiteral("seed"), 7000};
    // Two shards as Redis 7 answers, a replica listed first in one, a shard with no slots (a
    // master just added), and a master that does not know its endpoint ("?").
    const RedisValue reply = arr({
        arr({str("slots"), arr({num(0), num(99), num(200), num(299)}), str("nodes"),
             arr({shardNode("10.0.0.2", 7003, "replica"), shardNode("10.0.0.1", 7000, "master")})}),
        arr({str("slots"), arr({num(100), num(199)}), str("nodes"),
             arr({shardNode("?", 7001, "master")})}),
        arr({str("slots"), arr({}), str("nodes"), arr({shardNode("10.0.0.5", 7005, "master")})}),
    });
    const auto map = ClusterSlotMap::fromShards(reply, asked, false);
    QVERIFY2(map, map ? "" : qPrintable(map.error().describe()));
    QCOMPARE(map->servedSlots(), 300);
    QCOMPARE(*map->owner(0), (HostPort{QStringLiteral("10.0.0.1"), 7000}));
    QCOMPARE(*map->owner(250), (HostPort{QStringLiteral("10.0.0.1"), 7000}));
    QCOMPARE(*map->owner(150), (HostPort{QStringLiteral("seed"), 7001}));
    QVERIFY(!map->owner(300));
    QVERIFY(!map->owner(16384));
    QCOMPARE(map->masters().size(), 2);
    QCOMPARE(map->describe(), QStringLiteral("0-99 10.0.0.1:7000; 100-199 seed:7001; 200-299 "
                                             "10.0.0.1:7000; 300-16383 (no master)"));

    // Over TLS a node's tls-port is the one to reach.
    const RedisValue tls = arr({arr({str("slots"), arr({num(0), num(16383)}), str("nodes"),
                                     arr({shardNode("h", 0, "master", "online", 8000)})})});
    const auto tlsMap = ClusterSlotMap::fromShards(tls, asked, true);
    QVERIFY(tlsMap);
    QCOMPARE(tlsMap->owner(5)->port, 8000);

    // A failed master still owns its slots until a replica is promoted; one that is not failed
    // is preferred when a shard briefly names two.
    const RedisValue failing = arr(
        {arr({str("slots"), arr({num(0), num(16383)}), str("nodes"),
              arr({shardNode("old", 7000, "master", "fail"), shardNode("new", 7003, "master")})})});
    const auto failMap = ClusterSlotMap::fromShards(failing, asked, false);
    QVERIFY(failMap);
    QCOMPARE(failMap->owner(0)->host, QStringLiteral("new"));
}

void TestClusterRouting::slotMapFromSlots()
{
    const HostPort asked{QStringLiteral("seed"), 7000};
    const RedisValue reply =
        arr({arr({num(0), num(8191), arr({str("10.0.0.1"), num(7000), str("id1")}),
                  arr({str("10.0.0.4"), num(7003), str("id4")})}),
             arr({num(8192), num(16383), arr({str(""), num(7001), str("id2")})})});
    const auto map = ClusterSlotMap::fromSlots(reply, asked);
    QVERIFY2(map, map ? "" : qPrintable(map.error().describe()));
    QCOMPARE(map->servedSlots(), 16384);
    QCOMPARE(*map->owner(8191), (HostPort{QStringLiteral("10.0.0.1"), 7000}));
    QCOMPARE(*map->owner(8192), (HostPort{QStringLiteral("seed"), 7001}));
}

void TestClusterRouting::slotMapRefusesWhatItCannotRead()
{
    const HostPort asked{QStringLiteral("seed"), 7000};
    QVERIFY(!ClusterSlotMap::fromShards(str("OK"), asked, false));
    QVERIFY(
        !ClusterSlotMap::fromShards(arr({arr({str("slots"), arr({num(0), num(16384)}), str("nodes"),
                                              arr({shardNode("h", 7000, "master")})})}),
                                    asked, false));
    QVERIFY(!ClusterSlotMap::fromShards(arr({arr({str("slots"), arr({num(0), num(5)}), str("nodes"),
                                                  arr({shardNode("h", 7000, "replica")})})}),
                                        asked, false));
    QVERIFY(!ClusterSlotMap::fromSlots(arr({arr({num(0), num(5)})}), asked));
    const auto e =
        ClusterSlotMap::fromSlots(arr({arr({num(9), num(5), arr({str("h"), num(1)})})}), asked);
    QVERIFY(!e);
    QCOMPARE(e.error().kind, RedisError::Kind::Reply);
}

void TestClusterRouting::redirects_data()
{
    QTest::addColumn<QString>("message");
    QTest::addColumn<int>("kind"); // -1: not a redirection
    QTest::addColumn<int>("slot");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    const int moved = static_cast<int>(ClusterRedirect::Kind::Moved);
    const int ask = static_cast<int>(ClusterRedirect::Kind::Ask);
    const int again = static_cast<int>(ClusterRedirect::Kind::TryAgain);
    const int down = static_cast<int>(ClusterRedirect::Kind::ClusterDown);
    QTest::newRow("MOVED") << "MOVED 3999 127.0.0.1:6381" << moved << 3999 << "127.0.0.1" << 6381;
    QTest::newRow("ASK") << "ASK 3999 10.1.2.3:7002" << ask << 3999 << "10.1.2.3" << 7002;
    QTest::newRow("MOVED ipv6") << "MOVED 1 ::1:7000" << moved << 1 << "::1" << 7000;
    QTest::newRow("MOVED bracketed") << "MOVED 1 [::1]:7000" << moved << 1 << "::1" << 7000;
    QTest::newRow("MOVED hostname")
        << "MOVED 16383 redis-2.internal:6379" << moved << 16383 << "redis-2.internal" << 6379;
    QTest::newRow("MOVED unknown endpoint") << "MOVED 5 :7009" << moved << 5 << "answering" << 7009;
    QTest::newRow("TRYAGAIN") << "TRYAGAIN Multiple keys request during rehashing of slot" << again
                              << -1 << "answering" << 7000;
    QTest::newRow("CLUSTERDOWN") << "CLUSTERDOWN Hash slot not served" << down << -1 << "answering"
                                 << 7000;
    QTest::newRow("CROSSSLOT") << "CROSSSLOT Keys in request don't hash to the same slot" << -1 << 0
                               << "" << 0;
    QTest::newRow("non local key")
        << "ERR Script attempted to access a non local key in a cluster node" << -1 << 0 << "" << 0;
    QTest::newRow("MOVED bad slot") << "MOVED 16384 h:1" << -1 << 0 << "" << 0;
    QTest::newRow("MOVED no port") << "MOVED 1 h" << -1 << 0 << "" << 0;
}

void TestClusterRouting::redirects()
{
    QFETCH(QString, message);
    QFETCH(int, kind);
    QFETCH(int, slot);
    QFETCH(QString, host);
    QFETCH(int, port);
    const HostPort answering{QStringLiteral("answering"), 7000};
    const auto r = parseClusterRedirect(RedisError{RedisError::Kind::Server, message}, answering);
    if (kind < 0) {
        QVERIFY(!r);
        return;
    }
    QVERIFY(r);
    QCOMPARE(static_cast<int>(r->kind), kind);
    QCOMPARE(r->slot, slot);
    QCOMPARE(r->node.host, host);
    QCOMPARE(r->node.port, port);
    // Only a server's error reply is one: the same text as a connection error is not.
    QVERIFY(!parseClusterRedirect(RedisError{RedisError::Kind::Io, message}, answering));
}

void TestClusterRouting::clusterUrl_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("seeds");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("password");
    QTest::addColumn<bool>("tls");
    QTest::addColumn<QString>("redacted");
    QTest::newRow("three seeds") << "redis+cluster://h1:7000,h2:7001,h3"
                                 << "h1:7000,h2:7001,h3:6379"
                                 << ""
                                 << "" << false << "redis+cluster://h1:7000,h2:7001,h3:6379";
    QTest::newRow("acl user, tls")
        << "rediss+cluster://reclaim:qq7%2Fzz9@[::1]:7000/0"
        << "[::1]:7000"
        << "reclaim"
        << "qq7/zz9" << true << "rediss+cluster://reclaim:***@[::1]:7000";
    QTest::newRow("password only") << "redis+cluster://:qq7zz9@10.0.0.1:7000/"
                                   << "10.0.0.1:7000"
                                   << ""
                                   << "qq7zz9" << false << "redis+cluster://:***@10.0.0.1:7000";
}

void TestClusterRouting::clusterUrl()
{
    QFETCH(QString, url);
    QFETCH(QString, seeds);
    QFETCH(QString, user);
    QFETCH(QString, password);
    QFETCH(bool, tls);
    QFETCH(QString, redacted);
    const auto e = parseRedisUrl(url);
    QVERIFY2(e, e ? "" : qPrintable(e.error()));
    QVERIFY(e->cluster);
    QVERIFY(!e->sentinel);
    QCOMPARE(e->cluster->describe(), seeds);
    QCOMPARE(e->user, user);
    QCOMPARE(e->password, password);
    QCOMPARE(e->tls.enabled, tls);
    QCOMPARE(e->database, 0);
    QCOMPARE(e->redacted(), redacted);
    QVERIFY(!e->redacted().contains(QLatin1String("qq7")));
}

void TestClusterRouting::clusterUrlRefused_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("message");
    QTest::newRow("database") << "redis+cluster://h1:7000/3"
                              << "a Redis Cluster has database 0 only";
    QTest::newRow("second node without host") << "redis+cluster://h1:7000,:7001"
                                              << "node 2: the host is missing";
    QTest::newRow("port out of range") << "redis+cluster://h1:70000"
                                       << "node 1: port 70000 is out of range (1 to 65535)";
    QTest::newRow("options") << "redis+cluster://h1?tls=1"
                             << "redis+cluster:// takes no options";
    QTest::newRow("user without password") << "redis+cluster://reclaim@h1:7000"
                                           << "reclaim";
    QTest::newRow("raw slash in the password") << "redis+cluster://:qq7/zz9@h1:7000"
                                               << "percent-encode";
}

void TestClusterRouting::clusterUrlRefused()
{
    QFETCH(QString, url);
    QFETCH(QString, message);
    const auto e = parseRedisUrl(url);
    QVERIFY(!e);
    QVERIFY2(e.error().contains(message), qPrintable(e.error()));
    QVERIFY2(!e.error().contains(QLatin1String("qq7")), qPrintable(e.error()));
}

void TestClusterRouting::fenceKeysPerQueueSlot()
{
    const QString lock = QStringLiteral("{reclaim}:lock:job-recovery");
    const QByteArray generation = "{reclaim}:lock:job-recovery:generation";

    // One node: every queue checks the generation counter itself.
    const FenceKeys single(lock, false);
    QCOMPARE(single.generation(), generation);
    QCOMPARE(single.forQueue(QStringLiteral("bull"), QStringLiteral("render")), generation);
    QVERIFY(single.copiesFor({{QStringLiteral("bull"), QStringLiteral("render")}}).isEmpty());

    // A cluster: a queue in the lock's slot checks the counter; any other, a copy in its slot.
    const FenceKeys cluster(lock, true);
    QCOMPARE(cluster.forQueue(QStringLiteral("{reclaim}"), QStringLiteral("render")), generation);
    const QByteArray render = cluster.forQueue(QStringLiteral("bull"), QStringLiteral("{render}"));
    QCOMPARE(render, QByteArray("{render}:reclaim:generation:{reclaim}:lock:job-recovery"));
    QCOMPARE(clusterKeySlot(render), clusterKeySlot("bull:{render}:wait"));
    const QByteArray bull = cluster.forQueue(QStringLiteral("{bull}"), QStringLiteral("a"));
    QCOMPARE(clusterKeySlot(bull), clusterKeySlot("{bull}:a:wait"));
    // One copy per slot, however many queues share it; none for the lock's own slot.
    const QList<QByteArray> copies =
        cluster.copiesFor({{QStringLiteral("{bull}"), QStringLiteral("a")},
                           {QStringLiteral("{bull}"), QStringLiteral("b")},
                           {QStringLiteral("bull"), QStringLiteral("{render}")},
                           {QStringLiteral("{reclaim}"), QStringLiteral("c")}});
    QCOMPARE(copies, (QList<QByteArray>{bull, render}));
}

QTEST_GUILESS_MAIN(TestClusterRouting)
#include "test_clusterrouting.moc"
