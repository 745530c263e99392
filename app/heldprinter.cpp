#include "heldprinter.h"

#include <QMap>
#include <QTextStream>

namespace reclaim {

QJsonObject heldActionJson(const HeldAction &h)
{
    const Action &a = h.action;
    QJsonObject o{{QStringLiteral("id"), h.id},
                  {QStringLiteral("domain"), a.domain},
                  {QStringLiteral("rowId"), a.rowId},
                  {QStringLiteral("type"), a.jobType},
                  {QStringLiteral("kind"), actionKindName(a.kind)},
                  {QStringLiteral("reason"), a.reason},
                  {QStringLiteral("precondition"),
                   QJsonObject{{QStringLiteral("status"), a.precondition.status},
                               {QStringLiteral("updatedAt"), a.precondition.updatedAtText},
                               {QStringLiteral("generation"), a.precondition.generation}}},
                  {QStringLiteral("held"), a.heldReason},
                  {QStringLiteral("heldLimit"), h.heldLimit},
                  {QStringLiteral("runId"), h.runId},
                  {QStringLiteral("heldAt"), h.heldAt.toString(Qt::ISODateWithMs)},
                  {QStringLiteral("lastRunId"), h.lastRunId},
                  {QStringLiteral("lastSeenAt"), h.lastSeenAt.toString(Qt::ISODateWithMs)},
                  {QStringLiteral("state"), heldStateName(h.state)},
                  {QStringLiteral("stateBy"), h.stateBy},
                  {QStringLiteral("stateAt"), h.stateAt.toString(Qt::ISODateWithMs)},
                  {QStringLiteral("stateDetail"), h.stateDetail}};
    if (a.kind == ActionKind::Requeue) {
        o.insert(QStringLiteral("queue"), a.queue);
        o.insert(QStringLiteral("jobId"), a.jobId);
        o.insert(QStringLiteral("jobName"), a.jobName);
    }
    return o;
}

QJsonObject heldDecisionJson(const HeldDecision &d)
{
    QJsonObject o{{QStringLiteral("id"), d.id},
                  {QStringLiteral("outcome"), heldOutcomeName(d.outcome)},
                  {QStringLiteral("detail"), d.detail}};
    if (d.current)
        o.insert(QStringLiteral("heldAction"), heldActionJson(*d.current));
    if (d.action) {
        o.insert(QStringLiteral("result"), actionResultName(d.action->result));
        o.insert(QStringLiteral("auditId"), d.action->auditId);
    }
    return o;
}

QString formatHeldList(const QList<HeldAction> &held)
{
    QString out;
    QTextStream s(&out);
    if (held.isEmpty()) {
        s << "Nothing is held for an operator.\n";
        return out;
    }
    s << held.size() << " held action" << (held.size() == 1 ? "" : "s")
      << " (approve: reclaim --approve ID…, or --approve --domain NAME; reject: reclaim --reject "
         "ID…)\n";
    // Grouped by domain, then by what holds it; within a group, oldest first (as read).
    QMap<QString, QList<const HeldAction *>> groups;
    for (const HeldAction &h : held)
        groups[h.action.domain + QLatin1Char('\x1f') + h.heldLimit] << &h;
    for (auto it = groups.cbegin(); it != groups.cend(); ++it) {
        const HeldAction &first = *it.value().first();
        s << "\n"
          << first.action.domain << " — " << it.value().size() << " held by "
          << (first.heldLimit == QLatin1String("policy")
                  ? QStringLiteral("its policy")
                  : QStringLiteral("the guard (%1)").arg(first.heldLimit))
          << ": " << it.value().last()->action.heldReason << "\n";
        s << QStringLiteral("  %1 %2 %3 %4 %5\n")
                 .arg(QStringLiteral("ID"), -8)
                 .arg(QStringLiteral("KIND"), -8)
                 .arg(QStringLiteral("ROW"), -24)
                 .arg(QStringLiteral("AS SEEN (status, updatedAt)"), -40)
                 .arg(QStringLiteral("HELD SINCE / STATE"));
        for (const HeldAction *h : it.value()) {
            QString state = h->heldAt.toString(Qt::ISODate);
            if (h->state != HeldState::Held)
                state += QStringLiteral("  %1 by %2").arg(heldStateName(h->state), h->stateBy);
            s << QStringLiteral("  %1 %2 %3 %4 %5\n")
                     .arg(h->id, -8)
                     .arg(actionKindName(h->action.kind), -8)
                     .arg(h->action.rowId, -24)
                     .arg(h->action.precondition.status + QLatin1Char(' ') +
                              h->action.precondition.updatedAtText,
                          -40)
                     .arg(state);
        }
    }
    return out;
}

QString formatHeldDecision(const HeldDecision &d)
{
    QString what = QString::number(d.id);
    if (d.current)
        what += QStringLiteral(" %1 %2").arg(d.current->action.id,
                                             actionKindName(d.current->action.kind));
    return QStringLiteral("%1: %2 — %3").arg(what, heldOutcomeName(d.outcome), d.detail);
}

} // namespace reclaim
