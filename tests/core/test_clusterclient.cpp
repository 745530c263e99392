// The Redis Cluster client against scripted nodes on loopback (tests/core/fakeredisnode.h): each
// node answers as a cluster master would, from a shared picture of who serves which slot, and
// the tests move slots, migrate keys, take the cluster down and drop connections under the
// client. What is checked is what each node received: where each command went, how often, and
// what was never sent.
#include "config/connectionurl.h"
#include "fakeredisnode.h"
#include "redis/clusterclient.h"
#include "redis/redislink.h"
#include "util/clusterslot.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QHash>
#include <QSet>
#include <QTest>
#include <memory>
#include <mutex>

using namespace reclaim;
using namespace reclaim::test;

namespace {

// The cluster as the nodes see it. The client is never told any of this: it learns it from the
// nodes' replies.
struct World
{
    std::mutex mutex;
    std::vector<int> owner = std::vector<int>(kClusterSlotCount, -1); // slot -> node index
    QHash<int, int> importing;       // slot -> the node it is migrating to
    QSet<QByteArray> migrated;       // keys already moved to the importing node
    QSet<QPair<int, int>> asking;    // (node, connection) whose next command follows ASKING
    QList<QSet<QByteArray>> scripts; // per node: SHAs loaded
    QHash<QByteArray, QByteArray> data;
    int tryAgain = 0;          // how many more key commands are answered TRYAGAIN
    int clusterDown = 0;       // how many more key commands are answered CLUSTERDOWN
    bool noShards = false;     // a server older than 7
    bool notClustered = false; // cluster support disabled
    QByteArray failNextWith;   // the next key command's error, once
    QHash<int, int> liar;      // node -> the node it says MOVED to, whatever the key
    QByteArray dropAfterSetOn; // a SET of this key runs, then the connection closes unanswered
    QList<HostPort> addresses;
};

QByteArray sha1(const QByteArray &source)
{
    return QCryptographicHash::hash(source, QCryptographicHash::Sha1).toHex();
}

// The master of `slot` as FakeCluster lays the slots out at first.
int defaultOwner(int slot)
{
    return slot <= 5460 ? 0 : slot <= 10922 ? 1 : 2;
}

QList<QByteArray> keysOf(const QList<QByteArray> &argv)
{
    const QByteArray cmd = argv.first().toUpper();
    if (cmd == "EVALSHA")
        return argv.mid(3, argv.at(2).toInt());
    if (argv.size() > 1)
        return {argv.at(1)};
    return {};
}

QByteArray shards(const World &w)
{
    QList<QByteArray> out;
    for (int n = 0; n < w.addresses.size(); ++n) {
        QList<QByteArray> ranges;
        for (int s = 0; s < kClusterSlotCount;) {
            if (w.owner.at(s) != n) {
                ++s;
                continue;
            }
            int e = s;
            while (e + 1 < kClusterSlotCount && w.owner.at(e + 1) == n)
                ++e;
            ranges << resp::integer(s) << resp::integer(e);
            s = e + 1;
        }
        const QList<QByteArray> node{
            resp::bulk("id"),       resp::bulk(QByteArray(40, char('a' + n))),
            resp::bulk("port"),     resp::integer(w.addresses.at(n).port),
            resp::bulk("ip"),       resp::bulk("127.0.0.1"),
            resp::bulk("endpoint"), resp::bulk("127.0.0.1"),
            resp::bulk("role"),     resp::bulk("master"),
            resp::bulk("health"),   resp::bulk("online")};
        out << resp::array({resp::bulk("slots"), resp::array(ranges), resp::bulk("nodes"),
                            resp::array({resp::array(node)})});
    }
    return resp::array(out);
}

QByteArray slotRanges(const World &w)
{
    QList<QByteArray> out;
    for (int s = 0; s < kClusterSlotCount;) {
        const int n = w.owner.at(s);
        int e = s;
        while (e + 1 < kClusterSlotCount && w.owner.at(e + 1) == n)
            ++e;
        if (n >= 0)
            out << resp::array(
                {resp::integer(s), resp::integer(e),
                 resp::array({resp::bulk("127.0.0.1"), resp::integer(w.addresses.at(n).port),
                              resp::bulk(QByteArray(40, char('a' + n)))})});
        s = e + 1;
    }
    return resp::array(out);
}

QByteArray moved(const World &w, const char *kind, int slot, int node)
{
    return resp::error(QByteArray(kind) + ' ' + QByteArray::number(slot) +
                       " 127.0.0.1:" + QByteArray::number(w.addresses.at(node).port));
}

// A cluster master's answer to `argv`, received by node `self` on `connection`.
QByteArray answer(World &w, int self, int connection, const QList<QByteArray> &argv)
{
    const std::lock_guard lock(w.mutex);
    const QByteArray cmd = argv.first().toUpper();
    if (cmd == "CLUSTER") {
        if (w.notClustered)
            return resp::error("ERR This instance has cluster support disabled");
        if (argv.value(1).toUpper() == "SHARDS")
            return w.noShards ? resp::error("ERR unknown subcommand 'SHARDS'. Try CLUSTER HELP.")
                              : shards(w);
        return slotRanges(w);
    }
    if (cmd == "ASKING") {
        w.asking.insert({self, connection});
        return resp::ok();
    }
    if (cmd == "SCRIPT") {
        w.scripts[self].insert(sha1(argv.at(2)));
        return resp::bulk(sha1(argv.at(2)));
    }
    if (cmd == "PING")
        return resp::status("PONG");
    const bool asking = w.asking.remove({self, connection});
    const QList<QByteArray> keys = keysOf(argv);
    const int slot = clusterKeySlot(keys.first());
    if (w.clusterDown > 0) {
        --w.clusterDown;
        return resp::error("CLUSTERDOWN The cluster is down");
    }
    if (w.liar.contains(self))
        return moved(w, "MOVED", slot, w.liar.value(self));
    if (!w.failNextWith.isEmpty())
        return resp::error(std::exchange(w.failNextWith, QByteArray()));
    const bool importingHere = w.importing.value(slot, -1) == self;
    if (w.owner.at(slot) != self && !(asking && importingHere))
        return moved(w, "MOVED", slot, w.owner.at(slot));
    if (w.owner.at(slot) == self && w.importing.contains(slot) && w.migrated.contains(keys.first()))
        return moved(w, "ASK", slot, w.importing.value(slot));
    if (w.tryAgain > 0) {
        --w.tryAgain;
        return resp::error("TRYAGAIN Multiple keys request during rehashing of slot");
    }
    if (cmd == "GET")
        return w.data.contains(keys.first()) ? resp::bulk(w.data.value(keys.first())) : resp::nil();
    if (cmd == "SET") {
        w.data.insert(keys.first(), argv.at(2));
        if (keys.first() == w.dropAfterSetOn)
            return FakeRedisNode::closeConnection();
        return resp::ok();
    }
    if (cmd == "EVALSHA") {
        if (!w.scripts.at(self).contains(argv.at(1)))
            return resp::error("NOSCRIPT No matching script. Please use EVAL.");
        return resp::bulk("ran on " + QByteArray::number(self));
    }
    return resp::error("ERR unknown command in this fake");
}

// Three masters sharing the slots as redis-cli --cluster create would.
struct FakeCluster
{
    World world;
    std::vector<std::unique_ptr<FakeRedisNode>> nodes;

    FakeCluster()
    {
        for (int n = 0; n < 3; ++n) {
            nodes.push_back(std::make_unique<FakeRedisNode>(
                [this, n](int connection, const QList<QByteArray> &argv) {
                    return answer(world, n, connection, argv);
                }));
            world.addresses << nodes.back()->address();
            world.scripts << QSet<QByteArray>();
        }
        for (int s = 0; s < kClusterSlotCount; ++s)
            world.owner[s] = defaultOwner(s);
    }
    bool listening() const
    {
        return std::all_of(nodes.begin(), nodes.end(),
                           [](const auto &n) { return n->isListening(); });
    }
    void moveSlot(int slot, int to)
    {
        const std::lock_guard lock(world.mutex);
        world.owner[slot] = to;
    }
    int received(int node, const QByteArray &command) const
    {
        return nodes.at(node)->count(command);
    }
    // How many times `command` reached any node.
    int receivedByAny(const QByteArray &command) const
    {
        int n = 0;
        for (const auto &node : nodes)
            n += node ? node->count(command) : 0;
        return n;
    }
    void clearReceived()
    {
        for (auto &n : nodes)
            n->clearReceived();
    }
};

ClusterClient::Options fastOptions()
{
    ClusterClient::Options o;
    o.backoff = std::chrono::milliseconds(5);
    o.refreshInterval =
        std::chrono::milliseconds(60'000); // only the first read, unless a test says
    return o;
}

std::unique_ptr<ClusterClient> clientOf(FakeCluster &c, ClusterClient::Options o = fastOptions())
{
    RedisEndpoint endpoint;
    return std::make_unique<ClusterClient>(
        QList<HostPort>{c.world.addresses.at(1)},
        ClusterClient::connectorFor(endpoint, std::chrono::milliseconds(2000)), o);
}

RedisCommand get(const QByteArray &key)
{
    return {QByteArrayLiteral("GET"), key};
}

// The first key "k<n>" whose slot is served by `node` in the default layout.
QByteArray keyServedBy(int node, int skip = 0)
{
    for (int i = 0;; ++i) {
        const QByteArray key = "k" + QByteArray::number(i);
        if (defaultOwner(clusterKeySlot(key)) == node && skip-- == 0)
            return key;
    }
}

} // namespace

class TestClusterClient : public QObject
{
    Q_OBJECT
private slots:
    void eachCommandGoesToTheMasterOfItsSlot();
    void movedPatchesTheSlotAndTheMapIsReadAtMostOnceAnInterval();
    void askGoesToTheNamedNodeOnceAndLeavesTheMap();
    void tryAgainWaitsAndSendsAgain();
    void aRedirectionPastTheBudgetIsReportedNotFollowedForEver();
    void clusterDownWaitsReadsTheMapAndSendsAgain();
    void keysInTwoSlotsAreRefusedBeforeAnythingIsSent();
    void crossSlotAndNonLocalKeyRepliesAreNotSentAgain();
    void noScriptOnTheNodeARedirectLedToLoadsTheScriptThere();
    void aWriteWhoseReplyIsLostIsUnansweredAndNotSentAgain();
    void aNodeThatCannotBeReachedFailsOnlyItsOwnCommands();
    void clusterSlotsOnAServerWithoutShards();
    void aNodeNotInClusterModeIsNamed();
    void nodeLocalCommandsAreSentOnlyToANamedNode();
    void sentBatchesAreReceivedInTheOrderSent();
    void aRunOverAClusterUrlGoesThroughTheClusterClient();
};

void TestClusterClient::eachCommandGoesToTheMasterOfItsSlot()
{
    FakeCluster c;
    QVERIFY(c.listening());
    for (int n = 0; n < 3; ++n)
        c.world.data.insert(keyServedBy(n), "value " + QByteArray::number(n));
    auto client = clientOf(c);
    const auto results = client->pipeline(
        {get(keyServedBy(0)), get(keyServedBy(1)), get(keyServedBy(2)), get("absent")});
    QVERIFY2(results, results ? "" : qPrintable(results.error().describe()));
    QCOMPARE(results->size(), 4);
    for (int n = 0; n < 3; ++n) {
        QVERIFY(results->at(n));
        QCOMPARE(results->at(n)->toBytes().value_or(""), "value " + QByteArray::number(n));
        QCOMPARE(c.received(n, "GET"), n == defaultOwner(clusterKeySlot("absent")) ? 2 : 1);
    }
    // A missing key is a nil from its master: a value, not an error.
    QVERIFY(results->at(3));
    QVERIFY(results->at(3)->isNil());
    QCOMPARE(client->slotMapReads(), 1);
    QCOMPARE(client->slotMap().servedSlots(), kClusterSlotCount);
    QCOMPARE(client->slotMap().masters().size(), 3);
}

void TestClusterClient::movedPatchesTheSlotAndTheMapIsReadAtMostOnceAnInterval()
{
    FakeCluster c;
    QVERIFY(c.listening());
    auto options = fastOptions();
    options.refreshInterval = std::chrono::milliseconds(400);
    auto client = clientOf(c, options);
    QVERIFY(client->refreshSlotMap());
    QCOMPARE(client->slotMapReads(), 1);

    // Two slots of node 0 move to node 2 behind the client's back.
    const QByteArray first = keyServedBy(0);
    const QByteArray second = keyServedBy(0, 1);
    QVERIFY(clusterKeySlot(first) != clusterKeySlot(second));
    c.moveSlot(clusterKeySlot(first), 2);
    c.moveSlot(clusterKeySlot(second), 2);
    c.world.data.insert(first, "moved");

    QElapsedTimer clock;
    clock.start();
    auto r = client->command(get(first));
    QVERIFY(r);
    QCOMPARE(r->toBytes().value_or(""), QByteArray("moved"));
    QCOMPARE(c.received(0, "GET"), 1); // answered MOVED
    QCOMPARE(c.received(2, "GET"), 1); // sent again there
    // The slot was patched at once; the whole map was not read again within the interval.
    QCOMPARE(*client->slotMap().owner(clusterKeySlot(first)), c.world.addresses.at(2));
    if (clock.elapsed() < 350)
        QCOMPARE(client->slotMapReads(), 1);

    // The patched slot goes straight to its new master.
    c.clearReceived();
    QVERIFY(client->command(get(first)));
    QCOMPARE(c.received(0, "GET"), 0);
    QCOMPARE(c.received(2, "GET"), 1);

    // After the interval, the next MOVED reads the whole map, which names the other moved slot.
    QTest::qWait(450);
    QVERIFY(client->command(get(second)));
    QCOMPARE(client->slotMapReads(), 2);
    QCOMPARE(*client->slotMap().owner(clusterKeySlot(second)), c.world.addresses.at(2));
}

void TestClusterClient::askGoesToTheNamedNodeOnceAndLeavesTheMap()
{
    FakeCluster c;
    QVERIFY(c.listening());
    const QByteArray key = keyServedBy(1);
    const QByteArray neighbour = [&] {
        for (int i = 0;; ++i) {
            const QByteArray k = "{" + key + "}n" + QByteArray::number(i);
            if (clusterKeySlot(k) == clusterKeySlot(key))
                return k;
        }
    }();
    const int slot = clusterKeySlot(key);
    {
        const std::lock_guard lock(c.world.mutex);
        c.world.importing.insert(slot, 0);
        c.world.migrated.insert(key);
        c.world.data.insert(key, "already on the importing node");
    }
    auto client = clientOf(c);
    auto r = client->command(get(key));
    QVERIFY2(r, r ? "" : qPrintable(r.error().describe()));
    QCOMPARE(r->toBytes().value_or(""), QByteArray("already on the importing node"));
    QCOMPARE(c.received(1, "GET"), 1);
    QCOMPARE(c.received(0, "ASKING"), 1);
    QCOMPARE(c.received(0, "GET"), 1);
    // ASK is for that one key, that one time: the slot is still node 1's.
    QCOMPARE(*client->slotMap().owner(slot), c.world.addresses.at(1));
    c.clearReceived();
    QVERIFY(client->command(get(neighbour)));
    QCOMPARE(c.received(1, "GET"), 1);
    QCOMPARE(c.received(0, "GET"), 0);
}

void TestClusterClient::tryAgainWaitsAndSendsAgain()
{
    FakeCluster c;
    QVERIFY(c.listening());
    c.world.tryAgain = 2;
    c.world.data.insert(keyServedBy(2), "after the migration");
    auto client = clientOf(c);
    auto r = client->command(get(keyServedBy(2)));
    QVERIFY(r);
    QCOMPARE(r->toBytes().value_or(""), QByteArray("after the migration"));
    QCOMPARE(c.received(2, "GET"), 3);
}

void TestClusterClient::aRedirectionPastTheBudgetIsReportedNotFollowedForEver()
{
    FakeCluster c;
    QVERIFY(c.listening());
    c.world.tryAgain = 1000;
    auto client = clientOf(c);
    auto r = client->command(get(keyServedBy(2)));
    QVERIFY(!r);
    QCOMPARE(r.error().kind, RedisError::Kind::Redirected);
    QVERIFY2(r.error().message.contains(QLatin1String("TRYAGAIN")), qPrintable(r.error().message));
    QCOMPARE(c.received(2, "GET"), fastOptions().attempts);

    // Two nodes that each say the other has the slot: the same budget ends it.
    FakeCluster loop;
    QVERIFY(loop.listening());
    const QByteArray key = keyServedBy(0);
    auto looping = clientOf(loop);
    loop.world.liar = {{0, 1}, {1, 0}};
    auto l = looping->command(get(key));
    QVERIFY(!l);
    QCOMPARE(l.error().kind, RedisError::Kind::Redirected);
    QCOMPARE(loop.received(0, "GET") + loop.received(1, "GET"), fastOptions().attempts);
}

void TestClusterClient::clusterDownWaitsReadsTheMapAndSendsAgain()
{
    FakeCluster c;
    QVERIFY(c.listening());
    auto options = fastOptions();
    options.refreshInterval = std::chrono::milliseconds(0);
    auto client = clientOf(c, options);
    QVERIFY(client->refreshSlotMap());
    // The cluster goes down while slot S fails over from node 2 to node 0.
    const QByteArray key = keyServedBy(2);
    c.world.clusterDown = 1;
    c.moveSlot(clusterKeySlot(key), 0);
    c.world.data.insert(key, "on the new master");
    auto r = client->command(get(key));
    QVERIFY2(r, r ? "" : qPrintable(r.error().describe()));
    QCOMPARE(r->toBytes().value_or(""), QByteArray("on the new master"));
    QCOMPARE(c.received(2, "GET"), 1);
    QCOMPARE(c.received(0, "GET"), 1); // routed by the map read after CLUSTERDOWN, no MOVED
    QCOMPARE(client->slotMapReads(), 2);
}

void TestClusterClient::keysInTwoSlotsAreRefusedBeforeAnythingIsSent()
{
    FakeCluster c;
    QVERIFY(c.listening());
    auto client = clientOf(c);
    const QByteArray source = "return 1";
    const RedisCommand split{"EVALSHA", sha1(source), "2", "{bull}:render:wait", "{other}:x"};
    const RedisCommand tagged{"EVALSHA", sha1(source), "2", "{bull}:render:wait",
                              "{bull}:render:meta"};
    c.world.scripts[defaultOwner(clusterKeySlot("bull"))].insert(sha1(source));
    const QList<RedisResult> results = client->exchange({split, tagged});
    QCOMPARE(results.size(), 2);
    QVERIFY(!results.at(0));
    QCOMPARE(results.at(0).error().kind, RedisError::Kind::Unroutable);
    const QString why = results.at(0).error().message;
    QVERIFY2(why.contains(QLatin1String("'{bull}:render:wait'")) &&
                 why.contains(QLatin1String("'{other}:x'")) &&
                 why.contains(QLatin1String("hash tag")),
             qPrintable(why));
    QVERIFY2(results.at(1),
             qPrintable(results.at(1) ? QString() : results.at(1).error().describe()));
    QCOMPARE(c.receivedByAny("EVALSHA"), 1); // the tagged one only

    // A command whose keys this client cannot tell is not sent by guess either.
    auto unknown = client->command({"OBJECT", "ENCODING", "k"});
    QVERIFY(!unknown);
    QCOMPARE(unknown.error().kind, RedisError::Kind::Unroutable);
    QCOMPARE(c.receivedByAny("OBJECT"), 0);
}

void TestClusterClient::crossSlotAndNonLocalKeyRepliesAreNotSentAgain()
{
    FakeCluster c;
    QVERIFY(c.listening());
    auto client = clientOf(c);
    const QByteArray key = keyServedBy(1);
    for (const QByteArray &error :
         {QByteArray("CROSSSLOT Keys in request don't hash to the same slot"),
          QByteArray("ERR Script attempted to access a non local key in a cluster node script: "
                     "f_0123, on @user_script:1.")}) {
        c.clearReceived();
        c.world.failNextWith = error;
        auto r = client->command(get(key));
        QVERIFY(!r);
        QCOMPARE(r.error().kind, RedisError::Kind::Server);
        QCOMPARE(r.error().message, QString::fromUtf8(error));
        QCOMPARE(c.received(1, "GET"), 1);
    }
}

void TestClusterClient::noScriptOnTheNodeARedirectLedToLoadsTheScriptThere()
{
    FakeCluster c;
    QVERIFY(c.listening());
    const QByteArray source = "return redis.call('GET', KEYS[1])";
    const QByteArray key = keyServedBy(0);
    c.world.scripts[0].insert(sha1(source));
    auto client = clientOf(c);
    client->learnScript(sha1(source), source);
    QVERIFY(client->refreshSlotMap());
    c.moveSlot(clusterKeySlot(key), 1); // a failover or a reshard: node 1 never saw the script
    const RedisCommand eval{"EVALSHA", sha1(source), "1", key};
    const QList<RedisResult> results = client->exchange({eval});
    QVERIFY2(results.at(0),
             qPrintable(results.at(0) ? QString() : results.at(0).error().describe()));
    QCOMPARE(results.at(0)->toBytes().value_or(""), QByteArray("ran on 1"));
    QCOMPARE(c.received(0, "EVALSHA"), 1); // MOVED
    QCOMPARE(c.received(1, "EVALSHA"), 2); // NOSCRIPT, then run
    QCOMPARE(c.received(1, "SCRIPT"), 1);

    // A script the client was never given the source of is not guessed at.
    const RedisCommand stranger{"EVALSHA", sha1("return 2"), "1", key};
    auto r = client->exchange({stranger});
    QVERIFY(!r.at(0));
    QCOMPARE(r.at(0).error().kind, RedisError::Kind::NoScript);
}

void TestClusterClient::aWriteWhoseReplyIsLostIsUnansweredAndNotSentAgain()
{
    FakeCluster c;
    QVERIFY(c.listening());
    const QByteArray lost = keyServedBy(1);
    const QByteArray fine = keyServedBy(2);
    c.world.dropAfterSetOn = lost;
    auto client = clientOf(c);
    const QList<RedisResult> results = client->exchange({{"SET", lost, "v1"}, {"SET", fine, "v2"}});
    QCOMPARE(results.size(), 2);
    QVERIFY(!results.at(0));
    QCOMPARE(results.at(0).error().kind, RedisError::Kind::Unanswered);
    QVERIFY(results.at(1));
    QCOMPARE(c.received(1, "SET"), 1);                    // never sent again ...
    QCOMPARE(c.world.data.value(lost), QByteArray("v1")); // ... though it did run
    QCOMPARE(c.world.data.value(fine), QByteArray("v2"));
    // The next call opens a new connection to that node.
    c.world.dropAfterSetOn.clear();
    QVERIFY(client->command(get(lost)));
}

void TestClusterClient::aNodeThatCannotBeReachedFailsOnlyItsOwnCommands()
{
    FakeCluster c;
    QVERIFY(c.listening());
    for (int n = 0; n < 3; ++n)
        c.world.data.insert(keyServedBy(n), "here");
    auto client = clientOf(c);
    QVERIFY(client->refreshSlotMap());
    c.nodes[2].reset(); // node 2 is gone: its port refuses
    const auto results =
        client->pipeline({get(keyServedBy(0)), get(keyServedBy(2)), get(keyServedBy(1))});
    QVERIFY(results);
    QVERIFY(results->at(0));
    QVERIFY(results->at(2));
    // Could not look: an error naming the node, never a nil read as "not there".
    QVERIFY(!results->at(1));
    QCOMPARE(results->at(1).error().kind, RedisError::Kind::Connect);
    QVERIFY2(results->at(1).error().message.contains(QString::number(c.world.addresses.at(2).port)),
             qPrintable(results->at(1).error().message));
}

void TestClusterClient::clusterSlotsOnAServerWithoutShards()
{
    FakeCluster c;
    QVERIFY(c.listening());
    c.world.noShards = true;
    c.world.data.insert(keyServedBy(2), "old server");
    auto client = clientOf(c);
    auto r = client->command(get(keyServedBy(2)));
    QVERIFY2(r, r ? "" : qPrintable(r.error().describe()));
    QCOMPARE(r->toBytes().value_or(""), QByteArray("old server"));
    QCOMPARE(c.received(1, "CLUSTER"), 2); // SHARDS refused, then SLOTS
    QCOMPARE(c.received(2, "GET"), 1);
    QCOMPARE(client->slotMap().servedSlots(), kClusterSlotCount);
}

void TestClusterClient::aNodeNotInClusterModeIsNamed()
{
    FakeCluster c;
    QVERIFY(c.listening());
    c.world.notClustered = true;
    auto client = clientOf(c);
    auto r = client->pipeline({get("k")});
    QVERIFY(!r);
    QCOMPARE(r.error().kind, RedisError::Kind::Unroutable);
    QVERIFY2(r.error().message.contains(c.world.addresses.at(1).describe()) &&
                 r.error().message.contains(QLatin1String("not in cluster mode")),
             qPrintable(r.error().message));
    QCOMPARE(c.receivedByAny("GET"), 0);
}

void TestClusterClient::nodeLocalCommandsAreSentOnlyToANamedNode()
{
    FakeCluster c;
    QVERIFY(c.listening());
    auto client = clientOf(c);
    auto scan = client->command({"SCAN", "0"});
    QVERIFY(!scan);
    QCOMPARE(scan.error().kind, RedisError::Kind::Unroutable);
    QCOMPARE(c.receivedByAny("SCAN"), 0);
    auto ping = client->commandOn(c.world.addresses.at(2), {"PING"});
    QVERIFY(ping);
    QCOMPARE(c.received(2, "PING"), 1);
}

void TestClusterClient::sentBatchesAreReceivedInTheOrderSent()
{
    FakeCluster c;
    QVERIFY(c.listening());
    c.world.data.insert(keyServedBy(0), "first");
    c.world.data.insert(keyServedBy(2), "second");
    auto client = clientOf(c);
    const auto sentOne = client->send({get(keyServedBy(0))});
    const auto sentTwo = client->send({get(keyServedBy(2)), get(keyServedBy(1))});
    QVERIFY(sentOne && sentTwo);
    QCOMPARE(*sentOne, 1);
    QCOMPARE(*sentTwo, 2);
    auto one = client->receive(1);
    auto two = client->receive(2);
    QVERIFY(one && two);
    QCOMPARE(one->at(0)->toBytes().value_or(""), QByteArray("first"));
    QCOMPARE(two->at(0)->toBytes().value_or(""), QByteArray("second"));
    QVERIFY(two->at(1)->isNil());
    // Nothing more was sent: reading again is an error, never an empty batch.
    auto none = client->receive(1);
    QVERIFY(!none);
}

// The adapters reach Redis through RedisLink: a redis+cluster:// URL gives them the cluster
// client, and each run starts by reading the slot map again.
void TestClusterClient::aRunOverAClusterUrlGoesThroughTheClusterClient()
{
    FakeCluster c;
    QVERIFY(c.listening());
    c.world.data.insert(keyServedBy(2), "via the link");
    const auto endpoint = parseRedisUrl(
        QStringLiteral("redis+cluster://127.0.0.1:%1").arg(c.world.addresses.at(0).port));
    QVERIFY(endpoint);
    RedisLink link(*endpoint, std::chrono::milliseconds(2000));
    auto channel = link.connection();
    QVERIFY(channel);
    auto r = (*channel)->command(get(keyServedBy(2)));
    QVERIFY2(r, r ? "" : qPrintable(r.error().describe()));
    QCOMPARE(r->toBytes().value_or(""), QByteArray("via the link"));
    QCOMPARE(c.received(0, "CLUSTER"), 1);
    QCOMPARE(c.received(2, "GET"), 1);
    QVERIFY(link.roundTrips() >= 2);

    link.startRun();
    auto again = link.connection();
    QVERIFY(again && *again == *channel);
    QVERIFY((*again)->command(get(keyServedBy(2))));
    QCOMPARE(c.received(0, "CLUSTER"), 2); // the map read again for the new run
}

QTEST_GUILESS_MAIN(TestClusterClient)
#include "test_clusterclient.moc"
