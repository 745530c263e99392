#include "evidencehtml.h"

#include "config/connectionurl.h"
#include "verdictstyle.h"

#include <QDateTime>
#include <QJsonDocument>
#include <algorithm>

namespace reclaim::ui {

namespace {

QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}

QString when(qint64 ms)
{
    if (ms <= 0)
        return QStringLiteral("-");
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString lockText(qint64 ttlMs)
{
    if (ttlMs == -2)
        return QStringLiteral("none");
    if (ttlMs == -1)
        return QStringLiteral("held, no expiry");
    return QStringLiteral("held, %1 s left").arg((ttlMs + 999) / 1000);
}

QString section(const QString &title)
{
    return QStringLiteral("<h3 style='margin-top:10px; margin-bottom:4px'>%1</h3>").arg(esc(title));
}

QString pre(const QString &text)
{
    return QStringLiteral("<pre style='background:#f4f4f4; margin:0'>%1</pre>").arg(esc(text));
}

// One block per lookup rather than a wide table: the details panel is narrow, and an operator
// reads these top to bottom.
QString evidenceBlocks(const CandidateVerdict &v)
{
    if (v.evidence.isEmpty())
        return QStringLiteral("<p>No lookup was made.</p>");
    QString html;
    for (const Sighting &s : v.evidence) {
        QString state;
        if (s.error)
            state = QStringLiteral("<b style='color:%1'>? could not look:</b> %2")
                        .arg(verdictColor(Verdict::Unknown).name(), esc(redactSecrets(*s.error)));
        else if (s.runnable())
            state = QStringLiteral("<b style='color:%1'>\u2713 %2</b> (runnable)")
                        .arg(verdictColor(Verdict::Scheduled).name(), esc(s.state));
        else
            state = QStringLiteral("<b>%1</b> (not runnable)").arg(esc(s.state));
        html +=
            QStringLiteral(
                "<p style='margin-top:6px; margin-bottom:0'><b>%1</b> &middot; job id <tt>%2</tt> "
                "&middot; %3</p>")
                .arg(esc(s.queue), esc(s.jobId),
                     s.how == FoundBy::Direct
                         ? QStringLiteral("direct lookup")
                         : QStringLiteral("found by scan of <tt>data.jobId</tt>"));
        QStringList lines{QStringLiteral("State: ") + state};
        // A job that is not there has no lock or attempts worth a line, unless a lock lingers.
        const bool present = s.state != QLatin1String("missing");
        if (!s.error && (present || s.lockTtlMs != -2)) {
            lines << QStringLiteral("Worker lock: %1 &middot; attempts: %2")
                         .arg(lockText(s.lockTtlMs),
                              esc(s.attempts.isEmpty() ? QStringLiteral("-") : s.attempts));
        }
        if (!s.error) {
            if (s.timestamp || s.processedOn || s.finishedOn)
                lines << QStringLiteral("Created %1 &middot; processed %2 &middot; finished %3")
                             .arg(when(s.timestamp), when(s.processedOn), when(s.finishedOn));
            if (!s.failedReason.isEmpty())
                lines << QStringLiteral("Failed reason: %1").arg(esc(s.failedReason));
        }
        html += QStringLiteral("<p style='margin-left:12px; margin-top:0'>%1</p>")
                    .arg(lines.join(QStringLiteral("<br>")));
    }
    return html;
}

QString actionHtml(const CandidateVerdict &v, const Action *action, bool approving)
{
    if (!action) {
        switch (v.verdict) {
        case Verdict::Unknown:
            return QStringLiteral(
                "<p><b>Nothing.</b> Reclaim could not look, so it will not act: it looks "
                "again next run. Check the error above (Redis reachable? key of the right "
                "type?).</p>");
        case Verdict::Scheduled:
            return QStringLiteral("<p><b>Nothing.</b> The job is runnable in its queue.</p>");
        case Verdict::Absent:
            return QStringLiteral("<p><b>Nothing planned.</b></p>");
        }
    }
    const Action &a = *action;
    QString html =
        QStringLiteral("<p><b>%1</b> &mdash; %2</p>").arg(actionKindName(a.kind), esc(a.reason));
    html += QStringLiteral(
                "<p>Only if the row still has <b>status %1</b> and <b>updatedAt %2</b>, and run "
                "generation <b>%3</b> is still the newest (re-checked under the lock when "
                "approved).</p>")
                .arg(esc(a.precondition.status), esc(a.precondition.updatedAtText))
                .arg(a.precondition.generation);
    if (approving)
        html += QStringLiteral("<p><b>Running\u2026</b></p>");
    else if (a.result != ActionResult::Pending)
        html += QStringLiteral("<p>Result: <b style='color:%1'>%2</b> at %3 &mdash; %4</p>")
                    .arg(actionResultColor(a.result).name(), esc(actionOutcomeText(a)),
                         a.executedAt.toLocalTime().toString(QStringLiteral("HH:mm:ss")),
                         esc(redactSecrets(a.resultDetail.isEmpty() ? actionResultMeaning(a.result)
                                                                    : a.resultDetail)));
    if (a.kind == ActionKind::Requeue && !a.payload.isEmpty())
        html +=
            QStringLiteral("<p>Would enqueue job <b>%1</b> named <b>%2</b> on <b>%3</b> with:</p>")
                .arg(esc(a.jobId), esc(a.jobName), esc(a.queue)) +
            pre(prettyJson(a.payload));
    return html;
}

} // namespace

QString prettyJson(const QByteArray &bytes)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || doc.isNull())
        return QString::fromUtf8(bytes);
    return QString::fromUtf8(doc.toJson(QJsonDocument::Indented)).trimmed();
}

QString evidenceHtml(const CandidateVerdict &v, const Action *action, bool approving)
{
    QString html;
    html += section(QStringLiteral("Why: what each lookup saw"));
    // The reason is repeated only when no single lookup carries it (an unfinished scan).
    const bool lookupFailed = std::any_of(v.evidence.cbegin(), v.evidence.cend(),
                                          [](const Sighting &s) { return s.failed(); });
    if (v.verdict == Verdict::Unknown && !lookupFailed)
        html +=
            QStringLiteral("<p><b style='color:%1'>? Could not look:</b> %2</p>")
                .arg(verdictColor(Verdict::Unknown).name(), esc(redactSecrets(v.unknownReason)));
    html += evidenceBlocks(v);
    if (v.scanned)
        html += QStringLiteral(
            "<p>The domain's queues were also scanned by payload <tt>data.jobId</tt>.</p>");

    html += section(QStringLiteral("What Reclaim will do"));
    html += actionHtml(v, action, approving);

    bool payloadShown = false;
    for (const Sighting &s : v.evidence) {
        if (s.data.isEmpty())
            continue;
        html += section(QStringLiteral("Job payload in %1 (%2)").arg(s.queue, s.jobId));
        html += pre(prettyJson(s.data));
        payloadShown = true;
        break;
    }
    if (!payloadShown && v.verdict == Verdict::Scheduled)
        html += QStringLiteral("<p>The job is runnable: its payload stays in its queue. A run "
                               "keeps payloads only for the jobs it may act on.</p>");

    html += section(QStringLiteral("Database row"));
    html +=
        pre(v.candidate.rowJson.isEmpty()
                ? (v.verdict == Verdict::Scheduled
                       ? QStringLiteral("(not kept: the job is runnable, nothing is done to it)")
                       : QStringLiteral("(not available)"))
                : prettyJson(v.candidate.rowJson));
    return html;
}

} // namespace reclaim::ui
