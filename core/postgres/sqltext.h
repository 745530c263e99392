// Small pieces of SQL text that every statement of the store builds the same way.
#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QString>
#include <QVariant>

namespace reclaim {

// The SQL identifier, double-quoted (config validation already refused anything but plain names).
QString quoteIdentifier(const QString &name);

// A configured table, `table` or `schema.table`, each part quoted on its own: "schema"."table".
// Never one quoted string with the dot inside, which would name a table called "schema.table".
QString quoteTableName(const QString &name);

// "?, ?, ?" for `n` bind values.
QString placeholders(qsizetype n);

// QtSql binds a null QString as SQL NULL; Reclaim's own text columns want "" for "nothing".
QVariant sqlText(const QString &s);

// A text column's value as UTF-8 holding only its own bytes: QString::toUtf8() reserves three
// bytes per character, and a mass recovery keeps one such value per candidate for the run.
QByteArray compactUtf8(const QVariant &value);

// A timestamptz column selected as whole milliseconds since the epoch (NULL stays NULL), and
// the value read back in UTC. QtSql would convert each timestamp to local time, which reads
// the time zone file again for every value: a third of an approval of 100,000 held actions.
QString epochMsOf(const QString &column);
QDateTime utcFromEpochMs(const QVariant &value);

} // namespace reclaim
