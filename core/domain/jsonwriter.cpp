#include "domain/jsonwriter.h"

#include "domain/jsontext.h"

#include <QDateTime>
#include <QIODevice>
#include <type_traits>

namespace reclaim {

namespace {

// Sent to the device once this much is buffered: few system calls, little memory.
constexpr qsizetype kChunk = 256 * 1024;

const char kHex[] = "0123456789abcdef";

// A character JSON does not allow as it is in a string, escaped.
void appendEscaped(QByteArray &out, char16_t c)
{
    switch (c) {
    case u'"':
        out.append("\\\"", 2);
        return;
    case u'\\':
        out.append("\\\\", 2);
        return;
    case u'\n':
        out.append("\\n", 2);
        return;
    case u'\r':
        out.append("\\r", 2);
        return;
    case u'\t':
        out.append("\\t", 2);
        return;
    case u'\b':
        out.append("\\b", 2);
        return;
    case u'\f':
        out.append("\\f", 2);
        return;
    default:
        break;
    }
    const char u[6] = {'\\', 'u', '0', '0', kHex[(c >> 4) & 0xF], kHex[c & 0xF]};
    out.append(u, 6);
}

bool needsEscape(char16_t c)
{
    return c < 0x20 || c == u'"' || c == u'\\';
}

} // namespace

JsonWriter::JsonWriter(QIODevice *out) : m_out(out)
{
    m_buffer.reserve(m_out ? kChunk + kChunk / 4 : 256);
}

JsonWriter::~JsonWriter()
{
    flush();
}

bool JsonWriter::flush()
{
    if (!m_out || m_buffer.isEmpty())
        return !m_failed;
    if (m_out->write(m_buffer) != m_buffer.size())
        m_failed = true;
    m_buffer.clear(); // keeps its capacity
    return !m_failed;
}

void JsonWriter::flushIfLarge()
{
    if (m_out && m_buffer.size() >= kChunk)
        flush();
}

void JsonWriter::separate()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (!m_needsComma.isEmpty()) {
        if (m_needsComma.last())
            m_buffer.append(',');
        m_needsComma.last() = true;
    }
    if (m_breakLine) {
        m_buffer.append('\n');
        m_breakLine = false;
    }
}

JsonWriter &JsonWriter::beginObject()
{
    separate();
    m_buffer.append('{');
    m_needsComma.append(false);
    return *this;
}

JsonWriter &JsonWriter::endObject()
{
    m_needsComma.removeLast();
    m_breakLine = false;
    m_buffer.append('}');
    flushIfLarge();
    return *this;
}

JsonWriter &JsonWriter::beginArray()
{
    separate();
    m_buffer.append('[');
    m_needsComma.append(false);
    return *this;
}

JsonWriter &JsonWriter::endArray()
{
    m_needsComma.removeLast();
    m_breakLine = false;
    m_buffer.append(']');
    flushIfLarge();
    return *this;
}

JsonWriter &JsonWriter::key(QLatin1StringView name)
{
    separate();
    appendLatin1String(name);
    m_buffer.append(':');
    m_afterKey = true;
    return *this;
}

JsonWriter &JsonWriter::value(const QString &s)
{
    separate();
    appendString(s);
    return *this;
}

JsonWriter &JsonWriter::value(QLatin1StringView s)
{
    separate();
    appendLatin1String(s);
    return *this;
}

JsonWriter &JsonWriter::value(qint64 n)
{
    separate();
    m_buffer.append(QByteArray::number(n));
    return *this;
}

JsonWriter &JsonWriter::value(bool b)
{
    separate();
    m_buffer.append(b ? "true" : "false");
    return *this;
}

JsonWriter &JsonWriter::value(const QDateTime &t)
{
    separate();
    // A UTC time (every time Reclaim reports is one) written digit by digit: Qt's formatter goes
    // through vsnprintf, and the three times of each of 20,000 decisions were a tenth of what
    // an approval's report cost. Anything else as Qt writes it.
    const QDate date = t.date();
    const QTime time = t.time();
    if (!t.isValid() || t.timeSpec() != Qt::UTC || date.year() < 1000 || date.year() > 9999) {
        appendString(t.toString(Qt::ISODateWithMs));
        return *this;
    }
    char text[] = "\"0000-00-00T00:00:00.000Z\"";
    const auto digits = [&text](qsizetype at, int width, int n) {
        for (qsizetype i = at + width - 1; i >= at; --i, n /= 10)
            text[i] = static_cast<char>('0' + n % 10);
    };
    digits(1, 4, date.year());
    digits(6, 2, date.month());
    digits(9, 2, date.day());
    digits(12, 2, time.hour());
    digits(15, 2, time.minute());
    digits(18, 2, time.second());
    digits(21, 3, time.msec());
    m_buffer.append(text, sizeof(text) - 1);
    return *this;
}

JsonWriter &JsonWriter::null()
{
    separate();
    m_buffer.append("null", 4);
    return *this;
}

JsonWriter &JsonWriter::document(const QByteArray &text)
{
    separate();
    if (!appendCompactDocument(m_buffer, text))
        appendString(QString::fromUtf8(text));
    return *this;
}

void JsonWriter::appendLatin1String(QLatin1StringView s)
{
    const qsizetype plain = appendPlainAscii(s.data(), s.size());
    for (const char c : s.sliced(plain)) {
        const auto u = static_cast<unsigned char>(c);
        if (needsEscape(u))
            appendEscaped(m_buffer, u);
        else if (u < 0x80)
            m_buffer.append(c);
        else
            m_buffer.append(QString(QChar(char16_t(u))).toUtf8());
    }
    m_buffer.append('"');
}

void JsonWriter::appendString(QStringView s)
{
    const qsizetype plain = appendPlainAscii(s.utf16(), s.size());
    for (qsizetype i = plain; i < s.size(); ++i) {
        const char16_t c = s.at(i).unicode();
        if (c < 0x80) {
            if (needsEscape(c))
                appendEscaped(m_buffer, c);
            else
                m_buffer.append(static_cast<char>(c));
            continue;
        }
        // A run of non-ASCII characters in one UTF-8 conversion (surrogate pairs stay whole).
        qsizetype end = i + 1;
        while (end < s.size() && s.at(end).unicode() >= 0x80)
            ++end;
        m_buffer.append(s.sliced(i, end - i).toUtf8());
        i = end - 1;
    }
    m_buffer.append('"');
}

template <typename Char> qsizetype JsonWriter::appendPlainAscii(const Char *s, qsizetype size)
{
    // The opening quote and the string's leading run of ASCII that needs no escape, written
    // through a pointer: nearly every string a report holds is all of that, and appending it a
    // character at a time was most of the time a 20 MB report took to write.
    const qsizetype start = m_buffer.size();
    m_buffer.resize(start + 1 + size);
    char *out = m_buffer.data() + start;
    *out++ = '"';
    qsizetype i = 0;
    for (; i < size; ++i) {
        const auto c = static_cast<char16_t>(static_cast<std::make_unsigned_t<Char>>(s[i]));
        if (c >= 0x80 || needsEscape(c))
            break;
        *out++ = static_cast<char>(c);
    }
    m_buffer.truncate(start + 1 + i);
    return i;
}

} // namespace reclaim
