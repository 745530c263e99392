// One CSV cell, as every export of Reclaim writes it: RFC 4180 quoting, and a cell a spreadsheet
// would evaluate as a formula (=, +, -, @ first) gets a leading apostrophe, so that an error text
// from Redis or PostgreSQL never runs in someone's spreadsheet.
#pragma once

#include <QString>

namespace reclaim {

inline QString csvCell(QString text)
{
    if (!text.isEmpty() && QStringLiteral("=+-@\t\r").contains(text.front()))
        text.prepend(QLatin1Char('\''));
    if (text.contains(QLatin1Char('"')) || text.contains(QLatin1Char(',')) ||
        text.contains(QLatin1Char('\n')) || text.contains(QLatin1Char('\r'))) {
        text.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        return QLatin1Char('"') + text + QLatin1Char('"');
    }
    return text;
}

} // namespace reclaim
