// BullmqLayout: which family a queue's meta `version` stamp names, and whether Reclaim reads and
// writes it. Unit test: no servers.
#include "bullmq/bullmqlayout.h"

#include <QTest>

using namespace reclaim;

class TestBullmqLayout : public QObject
{
    Q_OBJECT
private slots:
    void familyFromTheMetaVersion_data()
    {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("tag"); // the family written, empty when none
        QTest::addColumn<bool>("readable");
        QTest::newRow("4.x") << QStringLiteral("bullmq:4.18.3") << QStringLiteral("4") << true;
        QTest::newRow("5.x") << QStringLiteral("bullmq:5.81.5") << QStringLiteral("5") << true;
        QTest::newRow("6.x") << QStringLiteral("bullmq:6.7.6") << QStringLiteral("6") << true;
        QTest::newRow("6.x prerelease")
            << QStringLiteral("bullmq:6.8.0-beta.1") << QStringLiteral("6") << true;
        QTest::newRow("unstamped: read, not written") << QString() << QString() << true;
        QTest::newRow("newer major") << QStringLiteral("bullmq:7.0.0") << QString() << false;
        QTest::newRow("older major") << QStringLiteral("bullmq:3.16.2") << QString() << false;
        QTest::newRow("another library")
            << QStringLiteral("bullmq-pro:7.10.0") << QString() << false;
        QTest::newRow("not a version") << QStringLiteral("bullmq:6") << QString() << false;
        QTest::newRow("trailing text") << QStringLiteral("bullmq:6.7.6 x") << QString() << false;
    }
    void familyFromTheMetaVersion()
    {
        QFETCH(QString, version);
        QFETCH(QString, tag);
        QFETCH(bool, readable);
        const BullmqLayout layout = BullmqLayout::fromMetaVersion(version);
        QCOMPARE(layout.familyTag(), tag);
        QCOMPARE(layout.writable(), !tag.isEmpty());
        QCOMPARE(layout.readable(), readable);
        QCOMPARE(layout.version, version);
        // Whatever is refused says so, naming the queue (and the stamp when there is one).
        QCOMPARE(layout.refusal(QStringLiteral("render")).isEmpty(), layout.writable());
        if (!layout.writable()) {
            QVERIFY(layout.refusal(QStringLiteral("render")).contains(QLatin1String("render")));
            QVERIFY(layout.refusal(QStringLiteral("render")).contains(version));
        }
    }

    // #30: a queue that lost its stamp (with the rest of Redis's data) is written as its domain
    // says; a stamp always wins over the assumption, and nothing else is ever assumed.
    void writingAssumesOnlyWhenThereIsNoStamp_data()
    {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("ifUnstamped");
        QTest::addColumn<QString>("tag");
        QTest::addColumn<bool>("assumed");
        QTest::newRow("no stamp, nothing said") << QString() << QString() << QString() << false;
        for (const char *major : {"4", "5", "6"})
            QTest::addRow("no stamp, %s said", major)
                << QString() << QString::fromLatin1(major) << QString::fromLatin1(major) << true;
        QTest::newRow("a stamp wins") << QStringLiteral("bullmq:6.7.6") << QStringLiteral("5")
                                      << QStringLiteral("6") << false;
        QTest::newRow("an unknown stamp is never overridden")
            << QStringLiteral("bullmq:7.0.0") << QStringLiteral("6") << QString() << false;
        QTest::newRow("no major the loader accepts")
            << QString() << QStringLiteral("7") << QString() << false;
    }
    void writingAssumesOnlyWhenThereIsNoStamp()
    {
        QFETCH(QString, version);
        QFETCH(QString, ifUnstamped);
        QFETCH(QString, tag);
        QFETCH(bool, assumed);
        const BullmqLayout layout = BullmqLayout::forWriting(version, ifUnstamped);
        QCOMPARE(layout.familyTag(), tag);
        QCOMPARE(layout.assumed, assumed);
        QCOMPARE(layout.version, version); // the script checks the queue still says this
        if (assumed)
            QVERIFY2(layout.describe().contains(QStringLiteral("bullmqIfUnstamped")),
                     qPrintable(layout.describe()));
        if (version.isEmpty() && !assumed) // refused, naming the key that would let it write
            QVERIFY2(layout.refusal(QStringLiteral("render"))
                         .contains(QStringLiteral("domains[].bullmqIfUnstamped")),
                     qPrintable(layout.refusal(QStringLiteral("render"))));
    }
};

QTEST_GUILESS_MAIN(TestBullmqLayout)
#include "test_bullmqlayout.moc"
