// A set of row ids held compactly: the healthy candidates a run counts without listing them.
#pragma once

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QString>
#include <initializer_list>

namespace reclaim {

// After a lost Redis a run counts hundreds of thousands of healthy rows by id alone. As a
// QSet<QString> each id is a heap string of its own (~48 bytes) plus ~50 bytes of table, and it
// pins the page it was read into, among the strings of the same rows that were let go. Here
// every id is copied, as UTF-8, into one buffer, and the table holds 4-byte offsets into it:
// about 20 bytes an id, in a few large blocks. Copies are cheap (implicitly shared).
class RowIdSet
{
public:
    RowIdSet() = default;
    RowIdSet(std::initializer_list<QString> ids);

    // Adds `id`; nothing when it is already in. Returns whether it was added.
    bool insert(const QString &id);
    bool contains(const QString &id) const;
    qsizetype size() const { return m_starts.size(); }
    bool isEmpty() const { return m_starts.isEmpty(); }
    // Room for `n` ids in all without rebuilding the table.
    void reserve(qsizetype n);

    // Every id, in the order added (tests, and a report's few consumers that list them).
    QStringList values() const;
    QSet<QString> toSet() const;

    friend bool operator==(const RowIdSet &a, const RowIdSet &b) { return a.toSet() == b.toSet(); }

private:
    QByteArrayView at(quint32 entry) const;
    // The slot that holds `id`, or the empty slot where it would go.
    qsizetype slotOf(QByteArrayView id, size_t hash) const;
    void rehash(qsizetype width);

    QByteArray m_bytes;      // every id's UTF-8, one after another
    QList<quint32> m_starts; // where each id starts in m_bytes; it ends where the next starts
    QList<quint32> m_slots;  // open addressing: 0 empty, else 1 + index into m_starts
};

} // namespace reclaim
