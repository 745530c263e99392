// The report's JSON writer and the check that lets it embed a payload as it is: whatever goes
// in, what comes out is one valid JSON document that reads back as what was written.
#include "domain/jsontext.h"
#include "domain/jsonwriter.h"

#include <QBuffer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace reclaim;
using namespace Qt::Literals::StringLiterals;

namespace {

QJsonDocument parsed(const QByteArray &text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("not JSON (%s): %s", qPrintable(error.errorString()), text.left(200).constData());
    return doc;
}

// What the writer makes of `text` as a member's value: embedded or a string.
QJsonValue embedded(const QByteArray &text)
{
    JsonWriter w;
    w.beginObject().key("v"_L1).document(text).endObject();
    return parsed(w.data()).object().value(u"v"_s);
}

QByteArray nested(int depth)
{
    return QByteArray(depth, '[') + QByteArray(depth, ']');
}

} // namespace

class TestJsonWriter : public QObject
{
    Q_OBJECT

private slots:
    void stringsReadBackAsWritten_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("plain") << u"orphaned; input rebuilt from the database"_s;
        QTest::newRow("quotes and backslashes") << u"say \"no\" \\ C:\\path"_s;
        QTest::newRow("line breaks and tabs") << u"a\nb\r\nc\td"_s;
        QTest::newRow("control characters") << QString::fromUtf16(u"\u0001\u001f\b\f\u0000x", 6);
        QTest::newRow("accents") << u"échec à l'enqueue"_s;
        QTest::newRow("outside the BMP") << u"job \U0001F525 failed"_s;
        QTest::newRow("DEL and U+2028") << QString::fromUtf16(u"\u007f\u2028\u2029", 3);
        QTest::newRow("empty") << QString();
    }
    void stringsReadBackAsWritten()
    {
        QFETCH(QString, text);
        JsonWriter w;
        w.beginObject().member("s"_L1, text).endObject();
        QCOMPARE(parsed(w.data()).object().value(u"s"_s).toString(), text);
        // Nothing below U+0020 is written as it is.
        for (const char c : w.data())
            QVERIFY2(static_cast<unsigned char>(c) >= 0x20, w.data().constData());
    }

    void timesAreWrittenAsQtWritesThem_data()
    {
        QTest::addColumn<QDateTime>("time");
        const QDate day(2026, 12, 7);
        QTest::newRow("UTC") << QDateTime(day, QTime(18, 4, 5, 67), Qt::UTC);
        QTest::newRow("UTC, on the second") << QDateTime(day, QTime(0, 0), Qt::UTC);
        QTest::newRow("UTC, the last millisecond of a year")
            << QDateTime(QDate(1999, 12, 31), QTime(23, 59, 59, 999), Qt::UTC);
        QTest::newRow("UTC, year 999") << QDateTime(QDate(999, 1, 2), QTime(3, 4), Qt::UTC);
        QTest::newRow("an offset") << QDateTime(day, QTime(18, 4, 5, 67), Qt::OffsetFromUTC, 7200);
        QTest::newRow("local time") << QDateTime(day, QTime(18, 4, 5, 67));
        QTest::newRow("invalid") << QDateTime();
    }
    void timesAreWrittenAsQtWritesThem()
    {
        QFETCH(QDateTime, time);
        JsonWriter w;
        w.beginArray().value(time).endArray();
        QCOMPARE(w.data(), "[\"" + time.toString(Qt::ISODateWithMs).toUtf8() + "\"]");
    }

    void containersTakeTheirCommasAndLineBreaks()
    {
        JsonWriter w;
        w.beginObject();
        w.breakLine();
        w.member("n"_L1, Q_INT64_C(9007199254740993)); // above 2^53: written exactly
        w.breakLine();
        w.member("ok"_L1, true).member("no"_L1, false).key("none"_L1).null();
        w.breakLine();
        w.key("list"_L1).beginArray();
        for (int i = 0; i < 3; ++i) {
            w.breakLine();
            w.beginObject().member("i"_L1, i).key("empty"_L1).beginArray().endArray().endObject();
        }
        w.endArray();
        w.endObject();
        QCOMPARE(w.data(), QByteArray("{\n\"n\":9007199254740993,\n\"ok\":true,\"no\":false,"
                                      "\"none\":null,\n\"list\":[\n{\"i\":0,\"empty\":[]},\n"
                                      "{\"i\":1,\"empty\":[]},\n{\"i\":2,\"empty\":[]}]}"));
        QVERIFY(!parsed(w.data()).isNull());
    }

    // A payload that is one object or array goes in as it is, without its whitespace; anything
    // else is written as the string it reads as, never as broken JSON.
    void documentsAreEmbeddedOnlyWhenTheyAreJson_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("embeds");
        QTest::newRow("object") << QByteArray("{\"a\":1,\"b\":[true,false,null],\"c\":\"x\"}")
                                << true;
        QTest::newRow("spaced") << QByteArray(" {\n \"a\" : [ 1 , 2.5e-3 , -0 ] ,\t\"b\":{}}\r\n")
                                << true;
        QTest::newRow("array") << QByteArray("[{\"id\":\"o1\"},\"two\",-3.25E+2]") << true;
        QTest::newRow("escapes")
            << QByteArray("{\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\udd25\"}") << true;
        QTest::newRow("utf-8") << QByteArray("{\"s\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5\"}")
                               << true;
        QTest::newRow("empty containers") << QByteArray("[[],{},[{}]]") << true;
        QTest::newRow("deep, within the limit") << nested(500) << true;
        QTest::newRow("a number") << QByteArray("42") << false;
        QTest::newRow("a string") << QByteArray("\"text\"") << false;
        QTest::newRow("not JSON") << QByteArray("{a:1}") << false;
        QTest::newRow("trailing text") << QByteArray("{\"a\":1} x") << false;
        QTest::newRow("two documents") << QByteArray("{}{}") << false;
        QTest::newRow("trailing comma") << QByteArray("{\"a\":1,}") << false;
        QTest::newRow("missing colon") << QByteArray("{\"a\" 1}") << false;
        QTest::newRow("leading zero") << QByteArray("[01]") << false;
        QTest::newRow("bare dot") << QByteArray("[1.]") << false;
        QTest::newRow("bad escape") << QByteArray("[\"\\x\"]") << false;
        QTest::newRow("short \\u") << QByteArray("[\"\\u12\"]") << false;
        QTest::newRow("raw line break in a string") << QByteArray("[\"a\nb\"]") << false;
        QTest::newRow("invalid UTF-8") << QByteArray("[\"\xff\"]") << false;
        QTest::newRow("overlong UTF-8") << QByteArray("[\"\xc0\xaf\"]") << false;
        QTest::newRow("UTF-8 surrogate") << QByteArray("[\"\xed\xa0\x80\"]") << false;
        QTest::newRow("truncated") << QByteArray("{\"a\":[1,2") << false;
        QTest::newRow("mismatched") << QByteArray("[1}") << false;
        QTest::newRow("too deep") << nested(600) << false;
        QTest::newRow("truncated literal") << QByteArray("[tru]") << false;
    }
    void documentsAreEmbeddedOnlyWhenTheyAreJson()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, embeds);
        QByteArray out = "prefix";
        QCOMPARE(appendCompactDocument(out, text), embeds);
        QCOMPARE(isJsonObjectText(text), embeds && text.trimmed().startsWith('{'));
        if (!embeds) {
            QCOMPARE(out, QByteArray("prefix")); // left as it was
            const QJsonValue v = embedded(text);
            QVERIFY2(v.isString(), text.left(80).constData());
            QCOMPARE(v.toString(), QString::fromUtf8(text));
            return;
        }
        const QByteArray compact = out.mid(6);
        // The same value, without a byte of insignificant whitespace.
        QCOMPARE(parsed(compact), parsed(text));
        QVERIFY(!compact.contains('\n') && !compact.contains("\" :"));
        const QJsonValue v = embedded(text);
        QVERIFY(v.isObject() || v.isArray());
    }

    void whitespaceGoesAndTheRestStaysAsItWas()
    {
        QByteArray out;
        QVERIFY(
            appendCompactDocument(out, " {\n \"a b\" : [ 1 , 2.5e-3 , -0 ] ,\t\"c\":{ } }\r\n"));
        // Numbers and strings byte for byte (no re-formatting), only the whitespace around them
        // gone.
        QCOMPARE(out, QByteArray("{\"a b\":[1,2.5e-3,-0],\"c\":{}}"));
    }

    // A long report goes to its device in chunks as it is written, and a device that refuses a
    // write is told, not ignored.
    void aLongDocumentIsWrittenInChunks()
    {
        QBuffer device;
        QVERIFY(device.open(QIODevice::WriteOnly));
        {
            JsonWriter w(&device);
            w.beginArray();
            for (int i = 0; i < 20000; ++i) {
                w.breakLine();
                w.beginObject().member("i"_L1, i).member("s"_L1, u"x"_s.repeated(20)).endObject();
                if (i == 15000)
                    QVERIFY(device.size() > 0); // sent before the end
                QVERIFY(w.data().size() < 300 * 1024);
            }
            w.endArray();
            QVERIFY(w.flush());
        }
        const QJsonArray all = parsed(device.data()).array();
        QCOMPARE(all.size(), 20000);
        QCOMPARE(all.last().toObject().value(u"i"_s).toInt(), 19999);

        QBuffer readOnly;
        QVERIFY(readOnly.open(QIODevice::ReadOnly));
        JsonWriter refused(&readOnly);
        refused.beginArray().value(u"x"_s).endArray();
        QTest::ignoreMessage(QtWarningMsg, "QIODevice::write (QBuffer): ReadOnly device");
        QVERIFY(!refused.flush());
        QVERIFY(refused.failed());
    }
};

QTEST_GUILESS_MAIN(TestJsonWriter)
#include "test_jsonwriter.moc"
