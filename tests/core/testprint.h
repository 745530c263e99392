// How QCOMPARE prints the core's enums, so a failed comparison says "ABSENT" rather than
// "<unknown>".
#pragma once

#include "domain/runreport.h"

#include <QTest>

namespace QTest {

template <> inline char *toString(const reclaim::Verdict &v)
{
    return qstrdup(qPrintable(reclaim::verdictName(v)));
}

template <> inline char *toString(const reclaim::ActionResult &r)
{
    return qstrdup(qPrintable(reclaim::actionResultName(r)));
}

template <> inline char *toString(const reclaim::ActionKind &k)
{
    return qstrdup(qPrintable(reclaim::actionKindName(k)));
}

template <> inline char *toString(const reclaim::RunReport::Outcome &o)
{
    return qstrdup(qPrintable(reclaim::RunReport::outcomeName(o)));
}

template <> inline char *toString(const reclaim::LockReport::State &s)
{
    return qstrdup(qPrintable(reclaim::LockReport::stateName(s)));
}

} // namespace QTest
