#include "domain/rowidset.h"

#include <QHashFunctions>
#include <limits>

namespace reclaim {

RowIdSet::RowIdSet(std::initializer_list<QString> ids)
{
    for (const QString &id : ids)
        insert(id);
}

QByteArrayView RowIdSet::at(quint32 entry) const
{
    const quint32 begin = m_starts.at(entry);
    const quint32 end = entry + 1 < static_cast<quint32>(m_starts.size())
                            ? m_starts.at(entry + 1)
                            : static_cast<quint32>(m_bytes.size());
    return QByteArrayView(m_bytes.constData() + begin, end - begin);
}

qsizetype RowIdSet::slotOf(QByteArrayView id, size_t hash) const
{
    const qsizetype mask = m_slots.size() - 1;
    for (qsizetype s = static_cast<qsizetype>(hash) & mask;; s = (s + 1) & mask) {
        const quint32 v = m_slots.at(s);
        if (v == 0 || at(v - 1) == id)
            return s;
    }
}

void RowIdSet::rehash(qsizetype width)
{
    QList<quint32> fresh(width, 0);
    m_slots.swap(fresh);
    for (quint32 e = 0; e < static_cast<quint32>(m_starts.size()); ++e)
        m_slots[slotOf(at(e), qHash(at(e)))] = e + 1;
}

void RowIdSet::reserve(qsizetype n)
{
    qsizetype width = 16;
    while (width < 2 * n) // at most half full
        width *= 2;
    if (width > m_slots.size())
        rehash(width);
    m_starts.reserve(n);
}

bool RowIdSet::insert(const QString &id)
{
    const QByteArray utf8 = id.toUtf8();
    if (2 * (m_starts.size() + 1) > m_slots.size())
        rehash(qMax<qsizetype>(16, 2 * m_slots.size()));
    const qsizetype s = slotOf(utf8, qHash(QByteArrayView(utf8)));
    if (m_slots.at(s) != 0)
        return false;
    // Offsets are 32-bit: four gigabytes of ids is far past anything a run counts.
    Q_ASSERT(m_bytes.size() + utf8.size() < std::numeric_limits<quint32>::max());
    m_starts << static_cast<quint32>(m_bytes.size());
    m_bytes += utf8;
    m_slots[s] = static_cast<quint32>(m_starts.size());
    return true;
}

bool RowIdSet::contains(const QString &id) const
{
    if (m_slots.isEmpty())
        return false;
    const QByteArray utf8 = id.toUtf8();
    return m_slots.at(slotOf(utf8, qHash(QByteArrayView(utf8)))) != 0;
}

QStringList RowIdSet::values() const
{
    QStringList out;
    out.reserve(size());
    for (quint32 e = 0; e < static_cast<quint32>(m_starts.size()); ++e)
        out << QString::fromUtf8(at(e));
    return out;
}

QSet<QString> RowIdSet::toSet() const
{
    const QStringList all = values();
    return QSet<QString>(all.cbegin(), all.cend());
}

} // namespace reclaim
