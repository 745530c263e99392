#include "jobexplanationhtml.h"

#include "config/connectionurl.h"
#include "verdictstyle.h"

#include <QStringList>

namespace reclaim::ui {

namespace {

QString esc(const QString &s)
{
    return redactSecrets(s).toHtmlEscaped();
}

} // namespace

QString jobExplanationHtml(const QString &rowId, const QList<JobExplanation> &found,
                           const QString &error)
{
    if (!error.isEmpty())
        return QStringLiteral("<b style='color:#b71c1c'>Could not look %1 up:</b> %2")
            .arg(esc(rowId), esc(error));
    if (found.isEmpty())
        return QStringLiteral("Now: <b>no row %1</b> in any domain's table.").arg(esc(rowId));
    QStringList lines;
    for (const JobExplanation &e : found) {
        if (!e.error.isEmpty()) {
            lines << QStringLiteral("Now, <b>%1</b>: <b style='color:#b71c1c'>could not read the "
                                    "row</b> (%2)")
                         .arg(esc(e.domain), esc(e.error));
            continue;
        }
        const CandidateVerdict &v = *e.lookup;
        lines << QStringLiteral("Now, <b>%1/%2</b>: row status <b>%3</b>, updatedAt %4 "
                                "(%5); in its queues: <b style='color:%6'>%7</b> &mdash; %8")
                     .arg(esc(e.domain), esc(rowId), esc(v.candidate.status),
                          esc(v.candidate.updatedAtText),
                          e.candidate ? QStringLiteral("a candidate")
                                      : QStringLiteral("not a candidate"),
                          verdictColor(v.verdict).name(), verdictName(v.verdict), esc(v.summary()));
    }
    return lines.join(QStringLiteral("<br>")) +
           QStringLiteral("<br><i>Direct lookup of the current job id only (no scan).</i>");
}

} // namespace reclaim::ui
