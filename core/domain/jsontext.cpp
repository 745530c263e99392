#include "domain/jsontext.h"

#include <QVarLengthArray>
#include <cstring>

namespace reclaim {

namespace {

constexpr int kMaxDepth = 512;

bool isWhitespace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isHex(char c)
{
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The length of the well-formed UTF-8 sequence at `p` (its first byte not ASCII), or 0: no
// overlong forms, no surrogates, nothing above U+10FFFF.
int utf8Length(const unsigned char *p, const unsigned char *end)
{
    const unsigned char b = p[0];
    int n = 0;
    unsigned char lo = 0x80, hi = 0xBF; // the range of the second byte
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        if (b == 0xE0)
            lo = 0xA0;
        else if (b == 0xED)
            hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        if (b == 0xF0)
            lo = 0x90;
        else if (b == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (end - p < n || p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < n; ++i)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return n;
}

class CompactCopy
{
public:
    // `out` nullptr: checked only.
    CompactCopy(QByteArray *out, QByteArrayView in)
        : m_out(out), m_p(reinterpret_cast<const unsigned char *>(in.data())),
          m_end(m_p + in.size())
    {}

    bool document()
    {
        skipWhitespace();
        if (m_p == m_end || (*m_p != '{' && *m_p != '['))
            return false;
        if (!value())
            return false;
        skipWhitespace();
        return m_p == m_end;
    }

private:
    // One value of any kind; containers without recursion, so a deep document cannot exhaust the
    // stack (it is refused past kMaxDepth).
    bool value()
    {
        QVarLengthArray<char, 32> open; // '}' or ']' for each container entered
        bool wantValue = true;
        while (true) {
            skipWhitespace();
            if (m_p == m_end)
                return false;
            if (wantValue) {
                const char c = static_cast<char>(*m_p);
                if (c == '{' || c == '[') {
                    if (open.size() >= kMaxDepth)
                        return false;
                    open.append(c == '{' ? '}' : ']');
                    put(c);
                    skipWhitespace();
                    if (m_p != m_end && static_cast<char>(*m_p) == open.last()) {
                        put(open.last());
                        open.removeLast();
                        wantValue = false;
                    } else if (c == '{' && !member()) {
                        return false;
                    }
                    if (!wantValue && open.isEmpty())
                        return true;
                    continue;
                }
                if (!scalar())
                    return false;
                wantValue = false;
                if (open.isEmpty())
                    return true;
                continue;
            }
            // After a value: its container goes on or closes.
            const char c = static_cast<char>(*m_p);
            if (c == ',') {
                put(',');
                if (open.last() == '}' && !member())
                    return false;
                wantValue = true;
            } else if (c == open.last()) {
                put(c);
                open.removeLast();
                if (open.isEmpty())
                    return true;
            } else {
                return false;
            }
        }
    }

    // A member's key and colon; its value is read next.
    bool member()
    {
        skipWhitespace();
        if (m_p == m_end || *m_p != '"' || !string())
            return false;
        skipWhitespace();
        if (m_p == m_end || *m_p != ':')
            return false;
        put(':');
        return true;
    }

    bool scalar()
    {
        switch (*m_p) {
        case '"':
            return string();
        case 't':
            return literal("true");
        case 'f':
            return literal("false");
        case 'n':
            return literal("null");
        default:
            return number();
        }
    }

    bool literal(const char *word)
    {
        const auto n = static_cast<qsizetype>(std::strlen(word));
        if (m_end - m_p < n || std::memcmp(m_p, word, static_cast<size_t>(n)) != 0)
            return false;
        copy(n);
        return true;
    }

    bool number()
    {
        const unsigned char *p = m_p;
        auto digits = [&] {
            const unsigned char *from = p;
            while (p != m_end && isDigit(static_cast<char>(*p)))
                ++p;
            return p != from;
        };
        if (p != m_end && *p == '-')
            ++p;
        if (p != m_end && *p == '0')
            ++p;
        else if (!digits())
            return false;
        if (p != m_end && *p == '.') {
            ++p;
            if (!digits())
                return false;
        }
        if (p != m_end && (*p == 'e' || *p == 'E')) {
            ++p;
            if (p != m_end && (*p == '+' || *p == '-'))
                ++p;
            if (!digits())
                return false;
        }
        copy(p - m_p);
        return true;
    }

    bool string()
    {
        const unsigned char *p = m_p + 1;
        while (p != m_end) {
            const unsigned char c = *p;
            if (c == '"') {
                copy(p + 1 - m_p);
                return true;
            }
            if (c < 0x20)
                return false;
            if (c == '\\') {
                if (m_end - p < 2)
                    return false;
                const char e = static_cast<char>(p[1]);
                if (e == 'u') {
                    if (m_end - p < 6)
                        return false;
                    for (int i = 2; i < 6; ++i)
                        if (!isHex(static_cast<char>(p[i])))
                            return false;
                    p += 6;
                } else if (std::strchr("\"\\/bfnrt", e) != nullptr && e != '\0') {
                    p += 2;
                } else {
                    return false;
                }
            } else if (c < 0x80) {
                ++p;
            } else {
                const int n = utf8Length(p, m_end);
                if (n == 0)
                    return false;
                p += n;
            }
        }
        return false;
    }

    void skipWhitespace()
    {
        while (m_p != m_end && isWhitespace(static_cast<char>(*m_p)))
            ++m_p;
    }

    void put(char c)
    {
        if (m_out)
            m_out->append(c);
        ++m_p;
    }

    void copy(qsizetype n)
    {
        if (m_out)
            m_out->append(reinterpret_cast<const char *>(m_p), n);
        m_p += n;
    }

    QByteArray *m_out;
    const unsigned char *m_p;
    const unsigned char *m_end;
};

} // namespace

bool appendCompactDocument(QByteArray &out, QByteArrayView in)
{
    const qsizetype before = out.size();
    if (CompactCopy(&out, in).document())
        return true;
    out.truncate(before);
    return false;
}

bool isJsonObjectText(QByteArrayView in)
{
    qsizetype first = 0;
    while (first < in.size() && isWhitespace(in.at(first)))
        ++first;
    return first < in.size() && in.at(first) == '{' && CompactCopy(nullptr, in).document();
}

} // namespace reclaim
