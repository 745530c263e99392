#include "heldpanelbench.h"

#include "consolesession.h"
#include "consolewindow.h"
#include "heldactionsmodel.h"
#include "heldpanel.h"
#include "stallprobe.h"

#include <QElapsedTimer>
#include <QTemporaryDir>

namespace reclaim::bench {

namespace {

QList<HeldAction> heldActions(int n)
{
    const QDateTime held = QDateTime::currentDateTimeUtc().addSecs(-600);
    QList<HeldAction> out;
    out.reserve(n);
    for (int i = 0; i < n; ++i) {
        HeldAction h;
        h.id = i + 1;
        Action &a = h.action;
        a.domain = QStringLiteral("incident");
        a.rowId = QStringLiteral("row-%1").arg(i);
        a.kind = ActionKind::Requeue;
        a.queue = QStringLiteral("incident-render");
        a.jobId = QStringLiteral("incident-row-%1").arg(i);
        a.jobName = QStringLiteral("render");
        a.reason = QStringLiteral("QUEUED since 2 h, but not in incident-render");
        a.heldReason = QStringLiteral("more actions than run.guard.maxActions (%1 > 500)").arg(n);
        a.precondition.status = QStringLiteral("QUEUED");
        a.precondition.updatedAtText = QStringLiteral("2026-12-07 09:00:00.000");
        h.heldLimit = QStringLiteral("max-actions");
        h.runId = QStringLiteral("c481871a");
        h.heldAt = held;
        h.lastRunId = h.runId;
        h.lastSeenAt = held;
        out << h;
    }
    return out;
}

} // namespace

int runHeldPanelBench(const Args &args)
{
    const int n = qMax(1, args.number(QStringLiteral("synthetic"), 20000));
    const int reps = qMax(1, args.number(QStringLiteral("reps"), 3));
    const QList<HeldAction> held = heldActions(n);
    QTemporaryDir dir;
    ui::Settings settings(dir.filePath(QStringLiteral("console.ini")));

    QList<double> listCall, listUi, decideCall, decideUi, stall;
    for (int rep = 0; rep < reps; ++rep) {
        auto window = newWindow(settings, QString());
        window->showHeldActions(true);
        settle();
        ui::ConsoleSession *session = window->session();
        StallProbe probe;
        probe.start();
        // The listing, as the recovery thread's answer arrives.
        QElapsedTimer t;
        t.start();
        emit session->heldListed(held, QString());
        listCall << t.nsecsElapsed() / 1e6;
        settle();
        listUi << t.nsecsElapsed() / 1e6;
        if (window->heldPanel()->model()->waitingCount() != n)
            return fail(QStringLiteral("the panel shows %1 waiting, %2 were listed")
                            .arg(window->heldPanel()->model()->waitingCount())
                            .arg(n));
        // Approving them all: the decisions come from the recovery thread as the approval
        // makes them, a queued signal each, in bursts of a set (the approval decides a set of
        // rows at a time); the event loop runs between bursts.
        constexpr int kBurst = 1000;
        double calls = 0;
        t.restart();
        for (int at = 0; at < n; at += kBurst) {
            QElapsedTimer c;
            c.start();
            for (int i = at; i < qMin(n, at + kBurst); ++i) {
                HeldAction done = held.at(i);
                done.state = HeldState::Executed;
                done.stateBy = QStringLiteral("operator@host");
                const HeldDecision d{done.id, HeldDecision::Outcome::Executed,
                                     QStringLiteral("applied"), done, std::nullopt};
                QMetaObject::invokeMethod(
                    session, [session, d] { emit session->heldDecided(d); }, Qt::QueuedConnection);
            }
            calls += c.nsecsElapsed() / 1e6;
            settle();
        }
        decideCall << calls;
        settle();
        decideUi << t.nsecsElapsed() / 1e6;
        probe.stop();
        stall << probe.maxStall();
        if (window->heldPanel()->model()->waitingCount() != 0 ||
            window->heldPanel()->model()->decidedCount() != n)
            return fail(QStringLiteral("after %1 decisions the panel shows %2 waiting, %3 decided")
                            .arg(n)
                            .arg(window->heldPanel()->model()->waitingCount())
                            .arg(window->heldPanel()->model()->decidedCount()));
    }
    printJson({{QStringLiteral("measure"), QStringLiteral("held-panel")},
               {QStringLiteral("held"), n},
               {QStringLiteral("listingCallMs"), summarize(listCall)},
               {QStringLiteral("listingUiMs"), summarize(listUi)},
               {QStringLiteral("decisionsPostMs"), summarize(decideCall)},
               {QStringLiteral("decisionsUiMs"), summarize(decideUi)},
               {QStringLiteral("longestStallMs"), summarize(stall)}});
    return 0;
}

} // namespace reclaim::bench
