#include "consolebench.h"

#include "candidaterows.h"
#include "candidatetablemodel.h"
#include "consolewindow.h"
#include "mainwindow.h"
#include "service/engine.h"
#include "settings.h"
#include "stallprobe.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTimer>
#include <memory>

namespace reclaim::bench {

namespace {

using ui::MainWindow;

// A report shaped like a lost Redis's (issue 30): `orphans` QUEUED rows two hours old whose jobs
// are missing, each with its requeue planned, and `listed` healthy ones. For profiling the apply
// without servers (--synthetic N); the measurements on record use a real run's report.
RunReport syntheticReport(int orphans, int listed)
{
    RunReport report;
    report.outcome = RunReport::Outcome::Completed;
    report.finishedAt = QDateTime::currentDateTimeUtc();
    report.startedAt = report.finishedAt.addSecs(-30);
    DomainReport domain;
    domain.name = QStringLiteral("incident");
    const QDateTime updated = report.finishedAt.addSecs(-7200);
    for (int i = 0; i < orphans + listed; ++i) {
        const bool orphan = i < orphans;
        CandidateVerdict c;
        c.candidate.domain = domain.name;
        c.candidate.id =
            QString(QChar(orphan ? u'o' : u'h')) + QStringLiteral("%1").arg(i, 7, 10, QChar(u'0'));
        c.candidate.type = QStringLiteral("render");
        c.candidate.status = QStringLiteral("QUEUED");
        c.candidate.updatedAt = updated.addSecs(-(i % 600));
        c.candidate.updatedAtText = c.candidate.updatedAt.toString(Qt::ISODateWithMs);
        c.candidate.rowJson = QByteArrayLiteral("{\"id\":\"") + c.candidate.id.toUtf8() +
                              QByteArrayLiteral("\",\"status\":\"QUEUED\"}");
        c.verdict = orphan ? Verdict::Absent : Verdict::Scheduled;
        Sighting s;
        s.queue = QStringLiteral("incident");
        s.jobId = QStringLiteral("incident-") + c.candidate.id;
        s.state = orphan ? QStringLiteral("missing") : QStringLiteral("waiting");
        c.evidence << s;
        if (orphan) {
            Action a;
            a.id = domain.name + u'/' + c.candidate.id;
            a.domain = domain.name;
            a.rowId = c.candidate.id;
            a.jobType = c.candidate.type;
            a.kind = ActionKind::Requeue;
            a.reason =
                QStringLiteral("no job in any queue; the input is rebuilt by the restore query");
            a.precondition = {c.candidate.status, c.candidate.updatedAtText, 7};
            a.queue = s.queue;
            a.jobId = s.jobId;
            a.jobName = QStringLiteral("render");
            a.payload = QByteArrayLiteral("{\"frame\":12,\"source\":\"s3://bucket/x.mov\"}");
            report.actions << a;
        }
        domain.candidates << c;
    }
    report.domains << domain;
    return report;
}

} // namespace

int runConsoleBench(const Args &args)
{
    const int reps = qMax(1, args.number(QStringLiteral("reps"), 3));
    QTemporaryDir dir;
    ui::Settings settings(dir.filePath(QStringLiteral("console.ini")));
    const int synthetic = args.number(QStringLiteral("synthetic"), 0);
    const QString configPath = args.value(QStringLiteral("config"));
    std::optional<ReclaimConfig> config;
    if (synthetic <= 0) {
        auto loaded = loadConfig(configPath);
        if (!loaded)
            return fail(loaded.error());
        config = *loaded;
    }

    // A real report of the workload, produced off the clock.
    RunReport report = synthetic > 0 ? syntheticReport(synthetic, 1000) : RunReport{};
    if (synthetic <= 0) {
        Engine engine(*config);
        RunRequest request;
        request.trigger = QStringLiteral("console");
        request.dryRun = true;
        request.executeActions = false;
        report = engine.run(request);
    }
    if (report.outcome != RunReport::Outcome::Completed)
        return fail(QStringLiteral("the run for the console report did not complete: %1")
                        .arg(report.outcomeDetail));
    int candidates = 0;
    for (const DomainReport &d : report.domains)
        candidates += static_cast<int>(d.candidates.size());

    // A. Applying the report: a fresh window (every row new), then the same window again (every
    // row merged in place), each timed for the call alone and until the loop is idle again.
    // The console builds the candidate table's rows on the recovery thread the report comes from
    // (ConsoleSession): that part is timed on its own, off the UI thread's clock, as it runs.
    QList<double> firstCall, firstTotal, refreshCall, refreshTotal, rowsBuild;
    for (int rep = 0; rep < reps; ++rep) {
        auto window = newWindow(settings, configPath);
        for (int pass = 0; pass < 2; ++pass) {
            RunReport r = report;
            r.finishedAt = report.finishedAt.addSecs(60 * pass);
            QElapsedTimer b;
            b.start();
            ui::CandidateRows rows = ui::buildCandidateRows(r);
            rowsBuild << b.nsecsElapsed() / 1e6;
            QElapsedTimer t;
            t.start();
            window->showReport(r, std::move(rows));
            const double call = t.nsecsElapsed() / 1e6;
            settle();
            const double total = t.nsecsElapsed() / 1e6;
            (pass == 0 ? firstCall : refreshCall) << call;
            (pass == 0 ? firstTotal : refreshTotal) << total;
        }
        if (window->candidateModel()->rowCount() != candidates)
            return fail(QStringLiteral("the candidate table shows %1 rows, the report has %2")
                            .arg(window->candidateModel()->rowCount())
                            .arg(candidates));
        // What the operator sees after the refresh, to look at (--screenshot FILE.png).
        if (const QString shot = args.value(QStringLiteral("screenshot"));
            rep == 0 && !shot.isEmpty() && !window->grab().save(shot))
            return fail(QStringLiteral("could not write the screenshot %1").arg(shot));
    }

    if (synthetic > 0) {
        printJson({{QStringLiteral("measure"), QStringLiteral("console")},
                   {QStringLiteral("synthetic"), true},
                   {QStringLiteral("candidates"), candidates},
                   {QStringLiteral("rowsBuildOffUiMs"), summarize(rowsBuild)},
                   {QStringLiteral("firstApplyCallMs"), summarize(firstCall)},
                   {QStringLiteral("firstApplyUiMs"), summarize(firstTotal)},
                   {QStringLiteral("refreshApplyCallMs"), summarize(refreshCall)},
                   {QStringLiteral("refreshApplyUiMs"), summarize(refreshTotal)}});
        return 0;
    }

    // B. Stalls: the probe alone first (what the loaded machine does to a 5 ms timer), then a
    // real run from the window's own session, until its report is shown and painted.
    StallProbe idle;
    idle.start();
    {
        QEventLoop loop;
        QTimer::singleShot(qMax(100, args.number(QStringLiteral("idle-ms"), 1000)), &loop,
                           &QEventLoop::quit);
        loop.exec();
    }
    idle.stop();

    QJsonArray runs;
    QList<double> duringRun, withApply;
    // A real run per repetition: at the 1,000,000-row incident each takes about a minute, so its
    // repetitions are counted apart from the apply's (--run-reps, by default --reps).
    const int runReps = qMax(1, args.number(QStringLiteral("run-reps"), reps));
    for (int rep = 0; rep < runReps; ++rep) {
        auto window = newWindow(settings, configPath);
        StallProbe probe;
        QEventLoop loop;
        double shownAt = -1;
        QObject::connect(window.get(), &MainWindow::reportShown, &loop, [&] {
            shownAt = probe.now();
            QTimer::singleShot(300, &loop, &QEventLoop::quit); // include the paint that follows
        });
        QTimer::singleShot(600000, &loop, &QEventLoop::quit);
        probe.start();
        const double startedAt = probe.now();
        window->start();
        // The worker thread runs while this loop (the UI thread) keeps ticking. reportShown comes
        // at the end of showReport, before the tick that will see the apply's own delay.
        double maxBeforeReport = 0;
        QObject::connect(window.get(), &MainWindow::reportShown, &loop,
                         [&] { maxBeforeReport = probe.maxStall(); });
        loop.exec();
        probe.stop();
        if (shownAt < 0)
            return fail(QStringLiteral("the console's run did not report within 10 minutes"));
        duringRun << maxBeforeReport;
        withApply << probe.maxStall();
        QJsonObject o = probe.toJson();
        o.insert(QStringLiteral("runMs"), shownAt - startedAt);
        o.insert(QStringLiteral("maxStallBeforeReportMs"), maxBeforeReport);
        runs.append(o);
    }

    printJson({{QStringLiteral("measure"), QStringLiteral("console")},
               {QStringLiteral("candidates"), candidates},
               {QStringLiteral("rowsBuildOffUiMs"), summarize(rowsBuild)},
               {QStringLiteral("firstApplyCallMs"), summarize(firstCall)},
               {QStringLiteral("firstApplyUiMs"), summarize(firstTotal)},
               {QStringLiteral("refreshApplyCallMs"), summarize(refreshCall)},
               {QStringLiteral("refreshApplyUiMs"), summarize(refreshTotal)},
               {QStringLiteral("idleProbe"), idle.toJson()},
               {QStringLiteral("maxStallDuringRunMs"), summarize(duringRun)},
               {QStringLiteral("maxStallWithApplyMs"), summarize(withApply)},
               {QStringLiteral("runs"), runs}});
    return 0;
}

} // namespace reclaim::bench
