// Compact JSON written straight to a device as it is produced: the report of a mass recovery is
// tens of megabytes, and building it as a tree of QJsonValues first took longer than the
// recovery's own writes (and several times the report's size in memory).
#pragma once

#include <QByteArray>
#include <QLatin1StringView>
#include <QString>
#include <QVarLengthArray>

class QDateTime;
class QIODevice;

namespace reclaim {

class JsonWriter
{
public:
    // Written to `out` in chunks; nullptr: kept in data() only.
    explicit JsonWriter(QIODevice *out = nullptr);
    ~JsonWriter();
    JsonWriter(const JsonWriter &) = delete;
    JsonWriter &operator=(const JsonWriter &) = delete;

    JsonWriter &beginObject();
    JsonWriter &endObject();
    JsonWriter &beginArray();
    JsonWriter &endArray();
    // The next member's name; its value follows.
    JsonWriter &key(QLatin1StringView name);
    JsonWriter &value(const QString &s);
    JsonWriter &value(QLatin1StringView s);
    JsonWriter &value(qint64 n);
    JsonWriter &value(int n) { return value(static_cast<qint64>(n)); }
    JsonWriter &value(bool b);
    // As QDateTime::toString(Qt::ISODateWithMs) writes it ("" when invalid).
    JsonWriter &value(const QDateTime &t);
    JsonWriter &null();
    // Text from outside that should be JSON (a job's data, a payload): embedded as it is when it
    // is one object or array, else written as a string, as it reads.
    JsonWriter &document(const QByteArray &text);

    template <typename T> JsonWriter &member(QLatin1StringView name, const T &v)
    {
        key(name);
        return value(v);
    }

    // The next value or member starts on a line of its own: one candidate or action per line.
    void breakLine() { m_breakLine = true; }
    // Everything written so far, sent to the device; false when it refused some.
    bool flush();
    bool failed() const { return m_failed; }
    // What was written and not yet flushed (all of it without a device).
    const QByteArray &data() const { return m_buffer; }

private:
    void separate();
    void appendString(QStringView s);
    void appendLatin1String(QLatin1StringView s);
    // Appends '"' and the leading characters of `s` that go out as they are; how many.
    template <typename Char> qsizetype appendPlainAscii(const Char *s, qsizetype size);
    void flushIfLarge();

    QIODevice *m_out;
    QByteArray m_buffer;
    // Per open container: whether the next value needs a comma before it.
    QVarLengthArray<bool, 16> m_needsComma;
    bool m_afterKey = false;
    bool m_breakLine = false;
    bool m_failed = false;
};

} // namespace reclaim
