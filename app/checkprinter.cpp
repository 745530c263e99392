#include "checkprinter.h"

#include "exitcodes.h"

namespace reclaim {

QString formatCheckReport(const CheckReport &report)
{
    qsizetype width = 0;
    for (const CheckItem &i : report.items)
        width = qMax(width, i.id.size());
    QString out;
    for (const CheckItem &i : report.items) {
        out += QStringLiteral("%1  %2  %3\n")
                   .arg(CheckReport::statusName(i.status).toUpper(), i.id.leftJustified(width),
                        i.summary);
        if (!i.fix.isEmpty())
            out +=
                QStringLiteral("%1fix: %2\n").arg(QString(6 + width + 2, QLatin1Char(' ')), i.fix);
    }
    const qsizetype warned = report.ids(CheckStatus::Warn).size();
    const qsizetype failed = report.ids(CheckStatus::Fail).size();
    out += QStringLiteral("%1: %2 items, %3 passed, %4 warned, %5 failed (%6 ms)\n")
               .arg(CheckReport::statusName(report.result()).toUpper())
               .arg(report.items.size())
               .arg(report.items.size() - warned - failed)
               .arg(warned)
               .arg(failed)
               .arg(report.elapsedMs);
    return out;
}

int exitCodeForCheck(const CheckReport &report)
{
    switch (report.result()) {
    case CheckStatus::Pass:
        return exitcode::Ran;
    case CheckStatus::Warn:
        return exitcode::CheckWarned;
    case CheckStatus::Fail:
        break;
    }
    return exitcode::CheckFailed;
}

} // namespace reclaim
