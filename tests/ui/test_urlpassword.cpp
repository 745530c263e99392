// The console's URL handling: a password is taken out of every URL form it accepts (host lists
// of Sentinel and Cluster included, which QUrl refuses whole), and the deployment selector's
// scheme rewriting keeps TLS and refuses a socket as a cluster.
#include "settings.h"
#include "urlpassword.h"

#include <QTest>

using namespace reclaim::ui;

class TestUrlPassword : public QObject
{
    Q_OBJECT
private slots:
    void takesThePassword_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("password");
        QTest::newRow("one host") << "redis://reclaim:s3cret@redis.prod:6380/0"
                                  << "redis://reclaim@redis.prod:6380/0"
                                  << "s3cret";
        QTest::newRow("default user") << "rediss://:s3cret@redis.prod"
                                      << "rediss://redis.prod"
                                      << "s3cret";
        QTest::newRow("cluster seeds")
            << "redis+cluster://reclaim:p%40ss@10.0.0.1:7000,10.0.0.2:7001"
            << "redis+cluster://reclaim@10.0.0.1:7000,10.0.0.2:7001"
            << "p@ss";
        QTest::newRow("sentinels and a master name")
            << "redis+sentinel://:pw@s1:26379,s2:26379/mymaster/2"
            << "redis+sentinel://s1:26379,s2:26379/mymaster/2"
            << "pw";
        QTest::newRow("socket") << "unix://reclaim:pw@/run/redis.sock?db=2"
                                << "unix://reclaim@/run/redis.sock?db=2"
                                << "pw";
        QTest::newRow("postgres") << "postgresql://reclaim:pg-pw@db:5432/app?sslmode=require"
                                  << "postgresql://reclaim@db:5432/app?sslmode=require"
                                  << "pg-pw";
        QTest::newRow("no password") << "redis+cluster://h1:7000,h2:7001"
                                     << "redis+cluster://h1:7000,h2:7001"
                                     << "";
        QTest::newRow("an @ after the path is no user info") << "redis+sentinel://s1/master@x"
                                                             << "redis+sentinel://s1/master@x"
                                                             << "";
    }

    void takesThePassword()
    {
        QFETCH(QString, typed);
        QFETCH(QString, url);
        QFETCH(QString, password);
        const auto taken = takeUrlPassword(typed);
        QVERIFY(taken);
        QCOMPARE(taken->url, url);
        QCOMPARE(taken->password, password);
        // What the console stores: never the secret, and a cluster URL is stored at all (QUrl
        // refused it, and the profile forgot it).
        QCOMPARE(Settings::withoutPassword(typed), url);
    }

    void refusesWhatIsNoUrl()
    {
        QVERIFY(!takeUrlPassword(QStringLiteral("redis.prod:6379")));
        QCOMPARE(Settings::withoutPassword(QStringLiteral("user:pw@host")), QString());
    }

    void formsFollowTheScheme()
    {
        QCOMPARE(redisFormOf(QStringLiteral("rediss+cluster://h:1")), RedisForm::Cluster);
        QCOMPARE(redisFormOf(QStringLiteral("redis+sentinel://h/m")), RedisForm::Sentinel);
        QCOMPARE(redisFormOf(QStringLiteral("unix:///run/r.sock")), RedisForm::SingleNode);
        QVERIFY(!redisFormOf(QStringLiteral("http://h")));
        QCOMPARE(withRedisForm(QStringLiteral("rediss://u@h:6380"), RedisForm::Cluster),
                 QStringLiteral("rediss+cluster://u@h:6380"));
        QCOMPARE(withRedisForm(QStringLiteral("redis+cluster://h1:1,h2:2"), RedisForm::SingleNode),
                 QStringLiteral("redis://h1:1,h2:2"));
        QCOMPARE(withRedisForm(QStringLiteral("h1:7000,h2:7001"), RedisForm::Cluster),
                 QStringLiteral("redis+cluster://h1:7000,h2:7001"));
        QCOMPARE(withRedisForm(QStringLiteral("unix:///run/r.sock"), RedisForm::Cluster),
                 QString());
    }
};

QTEST_GUILESS_MAIN(TestUrlPassword)
#include "test_urlpassword.moc"
