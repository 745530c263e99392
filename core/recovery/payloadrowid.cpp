#include "recovery/payloadrowid.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace reclaim {

namespace {

// QJsonDocument parses only an object or an array at the top; BullMQ stores JSON.stringify of
// whatever the producer passed (a string, a number, null, ...). Wrapped in an array, any single
// JSON value parses, and nothing that is not one JSON value does.
bool isSingleJsonValue(const QByteArray &data)
{
    QJsonParseError err;
    const QJsonDocument doc =
        QJsonDocument::fromJson(QByteArray("[") + data + QByteArray("]"), &err);
    return err.error == QJsonParseError::NoError && doc.isArray() && doc.array().size() == 1;
}

} // namespace

PayloadRowId readPayloadRowId(const QByteArray &data)
{
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(data, &err);
    if (err.error != QJsonParseError::NoError)
        return {isSingleJsonValue(data) ? PayloadRowId::Read::NamesNone
                                        : PayloadRowId::Read::Unreadable,
                {}};
    if (!doc.isObject())
        return {PayloadRowId::Read::NamesNone, {}};
    const QJsonValue v = doc.object().value(QStringLiteral("jobId"));
    if (v.isString())
        return {PayloadRowId::Read::Names, v.toString()};
    // A whole number only: 12.5 or 1e300 names no row id PostgreSQL would have written.
    if (v.isDouble() && v.toDouble() == static_cast<double>(v.toInteger()))
        return {PayloadRowId::Read::Names, QString::number(v.toInteger())};
    return {PayloadRowId::Read::NamesNone, {}};
}

} // namespace reclaim
