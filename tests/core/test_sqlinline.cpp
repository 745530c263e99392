// util/sqlinline.h: the values of a one-round-trip statement are the driver's own literals, in
// order, only where a placeholder stands (never inside a quoted literal or identifier, never
// inside a value already put in), and a count that does not match sends nothing.
#include "util/sqlinline.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>

using namespace reclaim;

class TestSqlInline : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // The driver formats literals without a server: nothing here connects.
        QVERIFY(QSqlDatabase::isDriverAvailable(QStringLiteral("QPSQL")));
        QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("inline"));
    }
    void cleanupTestCase() { QSqlDatabase::removeDatabase(QStringLiteral("inline")); }

    void placeholdersBecomeTheDriversLiterals()
    {
        QSqlQuery q(QSqlDatabase::database(QStringLiteral("inline"), false));
        QCOMPARE(inlineValues(q, QStringLiteral("SELECT ?, '?', \"a?b\", ?::json, ?"),
                              {QStringLiteral("it's"), QVariant(), 42}),
                 QStringLiteral("SELECT 'it''s', '?', \"a?b\", NULL::json, 42"));
    }
    void aValueIsNeverReadAsAPlaceholder()
    {
        QSqlQuery q(QSqlDatabase::database(QStringLiteral("inline"), false));
        QCOMPARE(inlineValues(q, QStringLiteral("SELECT ?, ?"),
                              {QStringLiteral("why? '?'"), QStringLiteral("x")}),
                 QStringLiteral("SELECT 'why? ''?''', 'x'"));
    }
    void aNullStringIsNull()
    {
        QSqlQuery q(QSqlDatabase::database(QStringLiteral("inline"), false));
        QCOMPARE(inlineValues(q, QStringLiteral("SELECT ?, ?"), {QString(), QStringLiteral("")}),
                 QStringLiteral("SELECT NULL, ''"));
    }
    void aCountThatDoesNotMatchSendsNothing()
    {
        QSqlQuery q(QSqlDatabase::database(QStringLiteral("inline"), false));
        QVERIFY(inlineValues(q, QStringLiteral("SELECT ?, ?"), {1}).isEmpty());
        QVERIFY(inlineValues(q, QStringLiteral("SELECT ?"), {1, 2}).isEmpty());
        QVERIFY(!execInline(q, QStringLiteral("SELECT ?"), {}));
    }
};

QTEST_GUILESS_MAIN(TestSqlInline)
#include "test_sqlinline.moc"
