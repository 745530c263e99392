// Checks JSON text from outside (a job's data, a restored payload) and copies it compact, in one
// pass: a report embeds thousands of payloads, and parsing each into QJsonValues only to write
// it out again cost more than the rest of the report.
#pragma once

#include <QByteArray>
#include <QByteArrayView>

namespace reclaim {

// Appends `in` to `out` without its insignificant whitespace when `in` is exactly one JSON
// object or array (RFC 8259: strings valid UTF-8, nesting at most 512 deep, nothing after it
// but whitespace) and returns true; otherwise leaves `out` as it was and returns false.
bool appendCompactDocument(QByteArray &out, QByteArrayView in);

// Whether `in` is exactly one JSON object, by the same rules.
bool isJsonObjectText(QByteArrayView in);

} // namespace reclaim
