// Which PostgreSQL row a BullMQ job's payload names (data.jobId), read the way the scan must read
// it: a payload that is valid JSON but names no row is read and simply not a match; only one that
// is not JSON at all, or that was cut short before it reached us, could be anyone's.
#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

namespace reclaim {

struct PayloadRowId
{
    enum class Read
    {
        Names,     // a JSON object with a string or integer "jobId": rowId holds it
        NamesNone, // valid JSON (any value BullMQ accepts as data) that names no row
        Unreadable // not JSON: could be any candidate's payload
    };
    Read read = Read::Unreadable;
    QString rowId;
};

PayloadRowId readPayloadRowId(const QByteArray &data);

} // namespace reclaim
