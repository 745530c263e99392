// The audit export's file: CSV with a header and RFC 4180 quoting, JSON as an array of objects,
// secrets redacted as on screen, and a cancelled export leaves the file that was there alone.
#include "service/auditexport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace reclaim;

namespace {

AuditEntry entry(qint64 id, const QString &detail)
{
    AuditEntry e;
    e.id = id;
    e.at = QDateTime::fromString(QStringLiteral("2026-12-03T03:04:05.678Z"), Qt::ISODateWithMs);
    e.runId = QStringLiteral("r1");
    e.actorKind = QStringLiteral("operator");
    e.actorHost = QStringLiteral("ops1");
    e.actorUser = QStringLiteral("alice");
    e.generation = 7;
    e.domain = QStringLiteral("video");
    e.rowId = QStringLiteral("vj_%1").arg(id);
    e.action = QStringLiteral("FAIL");
    e.observedStatus = QStringLiteral("PROCESSING");
    e.observedUpdatedAt = QStringLiteral("2026-12-03 02:00:00.123456");
    e.result = QStringLiteral("rejected");
    e.detail = detail;
    return e;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestAuditExport : public QObject
{
    Q_OBJECT
private slots:
    void csvQuotesWhatNeedsQuotingAndRedactsSecrets()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.csv"));
        AuditFileWriter w;
        QString error;
        QVERIFY(w.open(path, &error));
        w.write({entry(2, QStringLiteral("plain")),
                 entry(1, QStringLiteral("a, \"quoted\"\nline; postgresql://u:hunter2@db/x"))});
        QVERIFY(w.finish(&error));
        QCOMPARE(w.written(), 2);
        const QByteArray csv = readAll(path);
        QVERIFY(csv.startsWith("id,at,domain,rowId,action,result,"));
        QVERIFY(csv.contains("2,2026-12-03T03:04:05.678Z,video,vj_2,FAIL,rejected,operator,alice,"
                             "ops1,r1,7,PROCESSING,2026-12-03 02:00:00.123456,plain\r\n"));
        QVERIFY(csv.contains(",\"a, \"\"quoted\"\"\nline; "));
        QVERIFY(!csv.contains("hunter2"));
    }

    // An error text must not run as a formula in a spreadsheet.
    void csvDefusesFormulas()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.csv"));
        AuditFileWriter w;
        QString error;
        QVERIFY(w.open(path, &error));
        w.write({entry(1, QStringLiteral("=HYPERLINK(\"x\")"))});
        QVERIFY(w.finish(&error));
        QVERIFY(readAll(path).contains(",\"'=HYPERLINK(\"\"x\"\")\"\r\n"));
    }

    void jsonIsAnArrayOfObjects()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.json"));
        AuditFileWriter w;
        QString error;
        QVERIFY(w.open(path, &error));
        w.write({entry(3, QStringLiteral("x"))});
        w.write({entry(2, QStringLiteral("y")), entry(1, QStringLiteral("z"))});
        QVERIFY(w.finish(&error));
        QJsonParseError parse;
        const QJsonArray all = QJsonDocument::fromJson(readAll(path), &parse).array();
        QCOMPARE(parse.error, QJsonParseError::NoError);
        QCOMPARE(all.size(), 3);
        QCOMPARE(all.at(0).toObject().value(QStringLiteral("id")).toInteger(), 3);
        QCOMPARE(all.at(2).toObject().value(QStringLiteral("detail")).toString(),
                 QStringLiteral("z"));
        QCOMPARE(all.at(1).toObject().value(QStringLiteral("generation")).toInteger(), 7);
    }

    void aCancelledExportLeavesTheOldFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.csv"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("before\n");
        }
        AuditFileWriter w;
        QString error;
        QVERIFY(w.open(path, &error));
        w.write({entry(1, QStringLiteral("half"))});
        w.cancel();
        QCOMPARE(readAll(path), QByteArray("before\n"));
    }

    void anUnwritablePathIsNamed()
    {
        AuditFileWriter w;
        QString error;
        QVERIFY(!w.open(QStringLiteral("/nonexistent-dir/a.csv"), &error));
        QVERIFY2(error.contains(QStringLiteral("/nonexistent-dir/a.csv")), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestAuditExport)
#include "test_auditexport.moc"
