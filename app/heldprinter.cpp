#include "heldprinter.h"

#include "domain/jsonwriter.h"

#include <QMap>
#include <QTextStream>

namespace reclaim {

using namespace Qt::Literals::StringLiterals;

void writeHeldAction(JsonWriter &w, const HeldAction &h)
{
    const Action &a = h.action;
    w.beginObject()
        .member("id"_L1, h.id)
        .member("domain"_L1, a.domain)
        .member("rowId"_L1, a.rowId)
        .member("type"_L1, a.jobType)
        .member("kind"_L1, actionKindName(a.kind))
        .member("reason"_L1, a.reason);
    w.key("precondition"_L1)
        .beginObject()
        .member("status"_L1, a.precondition.status)
        .member("updatedAt"_L1, a.precondition.updatedAtText)
        .member("generation"_L1, a.precondition.generation)
        .endObject();
    w.member("held"_L1, a.heldReason)
        .member("heldLimit"_L1, h.heldLimit)
        .member("runId"_L1, h.runId)
        .member("heldAt"_L1, h.heldAt)
        .member("lastRunId"_L1, h.lastRunId)
        .member("lastSeenAt"_L1, h.lastSeenAt)
        .member("state"_L1, heldStateName(h.state))
        .member("stateBy"_L1, h.stateBy)
        .member("stateAt"_L1, h.stateAt)
        .member("stateDetail"_L1, h.stateDetail);
    if (a.kind == ActionKind::Requeue)
        w.member("queue"_L1, a.queue).member("jobId"_L1, a.jobId).member("jobName"_L1, a.jobName);
    w.endObject();
}

void writeHeldDecision(JsonWriter &w, const HeldDecision &d)
{
    w.beginObject()
        .member("id"_L1, d.id)
        .member("outcome"_L1, heldOutcomeName(d.outcome))
        .member("detail"_L1, d.detail);
    if (d.current) {
        w.key("heldAction"_L1);
        writeHeldAction(w, *d.current);
    }
    if (d.action)
        w.member("result"_L1, actionResultName(d.action->result))
            .member("auditId"_L1, d.action->auditId);
    w.endObject();
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
