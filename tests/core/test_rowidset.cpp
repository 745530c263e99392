// The compact set of row ids a run counts without listing: exactly a set of strings (every id
// in, nothing else, duplicates once), whatever the ids and however many, through its rehashes.
#include "domain/rowidset.h"

#include <QTest>

using namespace reclaim;

class TestRowIdSet : public QObject
{
    Q_OBJECT
private slots:
    void anEmptySetHoldsNothing()
    {
        const RowIdSet none;
        QVERIFY(none.isEmpty());
        QCOMPARE(none.size(), 0);
        QVERIFY(!none.contains(QString()));
        QVERIFY(!none.contains(QStringLiteral("ij_1")));
    }

    // Ids that differ only in ways a careless byte compare or a prefix match would miss.
    void holdsExactlyWhatWasAdded()
    {
        RowIdSet set{QStringLiteral("ij_1"), QStringLiteral("ij_10"), QString(),
                     QStringLiteral("é-ünïcode-✓"), QStringLiteral("ij_1")};
        QCOMPARE(set.size(), 4);
        QVERIFY(set.contains(QStringLiteral("ij_1")));
        QVERIFY(set.contains(QStringLiteral("ij_10")));
        QVERIFY(set.contains(QString()));
        QVERIFY(set.contains(QStringLiteral("é-ünïcode-✓")));
        QVERIFY(!set.contains(QStringLiteral("ij_")));
        QVERIFY(!set.contains(QStringLiteral("ij_100")));
        QVERIFY(!set.contains(QStringLiteral("IJ_1")));
        QVERIFY(!set.insert(QStringLiteral("ij_10")));
        QVERIFY(set.insert(QStringLiteral("ij_2")));
        QCOMPARE(set.values(),
                 (QStringList{QStringLiteral("ij_1"), QStringLiteral("ij_10"), QString(),
                              QStringLiteral("é-ünïcode-✓"), QStringLiteral("ij_2")}));
    }

    // Many ids, reserved for or not: every one found after every rehash, none that was not added,
    // and a copy is its own set.
    void manyIdsSurviveTheRehashes_data()
    {
        QTest::addColumn<bool>("reserved");
        QTest::newRow("grown") << false;
        QTest::newRow("reserved") << true;
    }
    void manyIdsSurviveTheRehashes()
    {
        QFETCH(bool, reserved);
        const int n = 100000;
        RowIdSet set;
        if (reserved)
            set.reserve(n);
        for (int i = 0; i < n; ++i)
            QVERIFY(set.insert(QStringLiteral("row-%1").arg(i * 2)));
        QCOMPARE(set.size(), n);
        for (int i = 0; i < 2 * n; ++i)
            if (set.contains(QStringLiteral("row-%1").arg(i)) != (i % 2 == 0))
                QFAIL(qPrintable(
                    QStringLiteral("row-%1 is wrongly %2")
                        .arg(i)
                        .arg(i % 2 == 0 ? QStringLiteral("missing") : QStringLiteral("present"))));
        RowIdSet copy = set;
        copy.insert(QStringLiteral("row-1"));
        QVERIFY(copy.contains(QStringLiteral("row-1")));
        QVERIFY(!set.contains(QStringLiteral("row-1")));
        QCOMPARE(set.toSet().size(), n);
        QVERIFY(!(copy == set));
    }
};

QTEST_APPLESS_MAIN(TestRowIdSet)
#include "test_rowidset.moc"
