#include "auditbench.h"

#include "auditmodel.h"
#include "auditview.h"
#include "postgres/pgconnection.h"
#include "postgres/pgjobstore.h"
#include "stallprobe.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QSqlError>
#include <QSqlQuery>
#include <QTableView>
#include <QTimer>
#include <memory>

namespace reclaim::bench {

namespace {

const QString kBenchRun = QStringLiteral("bench-audit");

void settle()
{
    for (int i = 0; i < 8; ++i) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents(QEventLoop::AllEvents);
    }
}

// Replaces the benchmark's own audit rows with `rows` new ones: a thousand jobs across three
// domains, every result, operators and daemons, in one INSERT.
Expected<bool, QString> seedAudit(const ReclaimConfig &config, int rows)
{
    auto store = PgJobStore::open(config, false); // creates Reclaim's schema if needed
    if (!store)
        return unexpected(store.error().message);
    auto conn = PgConnection::open(config);
    if (!conn)
        return unexpected(conn.error().message);
    QSqlQuery q((*conn)->database());
    if (!q.exec(QStringLiteral("DELETE FROM reclaim.audit WHERE run_id = '%1'").arg(kBenchRun)))
        return unexpected(q.lastError().text());
    const QString insert =
        QStringLiteral(
            "INSERT INTO reclaim.audit (at, run_id, actor_kind, actor_host, actor_user, "
            "generation, "
            "domain, row_id, action, observed_status, observed_updated_at, result, detail) "
            "SELECT now() - (%1 - g) * interval '1 second', '%2', "
            "CASE WHEN g %% 10 = 0 THEN 'operator' ELSE 'daemon' END, 'host' || (g %% 3), "
            "CASE WHEN g %% 10 = 0 THEN 'op' || (g %% 7) ELSE 'reclaim' END, g / 50, "
            "(ARRAY['video','slide','image'])[1 + g %% 3], 'bench-job-' || (g %% 1000), "
            "CASE WHEN g %% 4 = 0 THEN 'REQUEUE' ELSE 'FAIL' END, 'PROCESSING', "
            "to_char(now() - g * interval '1 second', 'YYYY-MM-DD HH24:MI:SS.US'), "
            "(ARRAY['applied','stale','fenced','dropped','rejected','error'])[1 + g %% 6], "
            "'recovered by Reclaim: PROCESSING since then, but no queue entry (row ' || g || ')' "
            "FROM generate_series(1, %1) g")
            .arg(rows)
            .arg(kBenchRun)
            .replace(QStringLiteral("%%"), QStringLiteral("%"));
    if (!q.exec(insert))
        return unexpected(q.lastError().text());
    q.exec(QStringLiteral("ANALYZE reclaim.audit"));
    return true;
}

struct Opened
{
    double windowMs = 0;      // show() of the empty window until it is painted
    double windowStallMs = 0; // the longest UI-thread stall meanwhile
    double callMs = 0;        // setConfig()/setFilter(): the window's own calls
    double applyMs = 0;       // inserting the first page into the model and painting it
    double insertMs = 0;      // of which inserting it (the model and the view's bookkeeping)
    double wallMs = 0;     // setConfig() to first page painted, the audit thread's query included
    double maxStallMs = 0; // the longest UI-thread stall meanwhile
    int rows = 0;
};

// Opens a fresh history window (filtered by `filter`) and waits for its first page on screen.
Expected<Opened, QString> openHistory(const ReclaimConfig &config, const AuditFilter &filter,
                                      std::unique_ptr<ui::AuditView> &view)
{
    Opened o;
    StallProbe probe;
    view = std::make_unique<ui::AuditView>();
    view->resize(1400, 860);
    QElapsedTimer apply;
    // The connections die with this function's locals: the view outlives them.
    QObject scope;
    QObject::connect(view->model(), &QAbstractItemModel::rowsAboutToBeInserted, &scope,
                     [&] { apply.start(); });
    QEventLoop loop;
    bool shown = false;
    QObject::connect(view.get(), &ui::AuditView::pageShown, &loop, [&] {
        shown = true;
        o.insertMs = apply.isValid() ? apply.nsecsElapsed() / 1e6 : 0;
        loop.quit();
    });
    QTimer::singleShot(60000, &loop, &QEventLoop::quit);
    // The window itself first (a fresh top-level window's first layout and paint, nothing to do
    // with the audit), then the history in it.
    probe.start();
    QElapsedTimer window;
    window.start();
    view->show();
    settle();
    o.windowMs = window.nsecsElapsed() / 1e6;
    probe.stop();
    o.windowStallMs = probe.maxStall();
    probe.start();
    QElapsedTimer wall;
    wall.start();
    QElapsedTimer call;
    call.start();
    if (filter == AuditFilter{}) {
        view->setConfig(config);
    } else {
        view->setConfig(config); // loads unfiltered; the filtered load below replaces it
        view->setFilter(filter);
    }
    o.callMs = call.nsecsElapsed() / 1e6;
    loop.exec();
    if (!shown)
        return unexpected(QStringLiteral("the first audit page did not arrive within 60 s"));
    if (!view->statusText().isEmpty() && view->statusText().startsWith(QStringLiteral("Could")))
        return unexpected(view->statusText());
    settle(); // the paint of the page
    o.applyMs = apply.isValid() ? apply.nsecsElapsed() / 1e6 : 0;
    o.wallMs = wall.nsecsElapsed() / 1e6;
    probe.stop();
    o.maxStallMs = probe.maxStall();
    o.rows = view->model()->rowCount();
    return o;
}

QJsonObject toJson(const QList<Opened> &runs)
{
    QList<double> ui, call, apply, wall, stall, window, windowStall, insert;
    for (const Opened &o : runs) {
        insert << o.insertMs;
        window << o.windowMs;
        windowStall << o.windowStallMs;
        ui << o.callMs + o.applyMs;
        call << o.callMs;
        apply << o.applyMs;
        wall << o.wallMs;
        stall << o.maxStallMs;
    }
    return {{QStringLiteral("firstPageUiMs"), summarize(ui)},
            {QStringLiteral("openCallMs"), summarize(call)},
            {QStringLiteral("applyAndPaintMs"), summarize(apply)},
            {QStringLiteral("insertMs"), summarize(insert)},
            {QStringLiteral("openToFirstPageMs"), summarize(wall)},
            {QStringLiteral("maxStallMs"), summarize(stall)},
            {QStringLiteral("emptyWindowShowMs"), summarize(window)},
            {QStringLiteral("emptyWindowMaxStallMs"), summarize(windowStall)},
            {QStringLiteral("firstPageRows"), runs.isEmpty() ? 0 : runs.first().rows}};
}

} // namespace

int runAuditBench(const Args &args)
{
    auto config = loadConfig(args.value(QStringLiteral("config")));
    if (!config)
        return fail(config.error());
    const int rows = qMax(1, args.number(QStringLiteral("rows"), 100000));
    const int reps = qMax(1, args.number(QStringLiteral("reps"), 3));
    const int scrollPages = qMax(1, args.number(QStringLiteral("scroll-pages"), 20));

    QElapsedTimer seedTime;
    seedTime.start();
    if (auto seeded = seedAudit(*config, rows); !seeded)
        return fail(QStringLiteral("seeding reclaim.audit: %1").arg(seeded.error()));
    const double seedMs = seedTime.nsecsElapsed() / 1e6;

    // What the machine alone does to a 5 ms timer (a shared machine deschedules it now and
    // then): the floor under every stall figure below.
    StallProbe idle;
    idle.start();
    {
        QEventLoop loop;
        QTimer::singleShot(qMax(100, args.number(QStringLiteral("idle-ms"), 2000)), &loop,
                           &QEventLoop::quit);
        loop.exec();
    }
    idle.stop();

    // A. Opening the history, unfiltered (the newest page of everything).
    QList<Opened> plain;
    std::unique_ptr<ui::AuditView> view;
    for (int rep = 0; rep < reps; ++rep) {
        auto opened = openHistory(*config, {}, view);
        if (!opened)
            return fail(opened.error());
        plain << *opened;
    }

    // B. Scrolling: page after page as the view reaches its end, the probe watching.
    StallProbe probe;
    QElapsedTimer scroll;
    probe.start();
    scroll.start();
    int pages = 0;
    while (pages < scrollPages && view->model()->more()) {
        const int before = view->model()->rowCount();
        QEventLoop loop;
        QObject::connect(view.get(), &ui::AuditView::pageShown, &loop, &QEventLoop::quit);
        QTimer::singleShot(60000, &loop, &QEventLoop::quit);
        view->view()->scrollToBottom();
        settle();
        if (view->model()->rowCount() == before)
            loop.exec();
        if (view->model()->rowCount() == before)
            return fail(QStringLiteral("scrolling did not load page %1").arg(pages + 2));
        ++pages;
    }
    settle();
    const double scrollMs = scroll.nsecsElapsed() / 1e6;
    probe.stop();
    const int scrolledRows = view->model()->rowCount();

    // C. One job's history (a thousandth of the rows), opened by "Find job by id".
    QList<Opened> filtered;
    AuditFilter job;
    job.rowId = QStringLiteral("bench-job-7");
    for (int rep = 0; rep < reps; ++rep) {
        auto opened = openHistory(*config, job, view);
        if (!opened)
            return fail(opened.error());
        filtered << *opened;
    }
    view.reset();

    QJsonObject plainJson = toJson(plain);
    const double firstUi = median([&] {
        QList<double> v;
        for (const Opened &o : plain)
            v << o.callMs + o.applyMs;
        return v;
    }());
    double worstStall = probe.maxStall();
    for (const Opened &o : plain + filtered)
        worstStall = std::max(worstStall, o.maxStallMs);
    printJson({{QStringLiteral("measure"), QStringLiteral("audit")},
               {QStringLiteral("auditRows"), rows},
               {QStringLiteral("seedMs"), seedMs},
               {QStringLiteral("idleProbe"), idle.toJson()},
               {QStringLiteral("open"), plainJson},
               {QStringLiteral("scroll"),
                QJsonObject{{QStringLiteral("pages"), pages},
                            {QStringLiteral("rowsShown"), scrolledRows},
                            {QStringLiteral("totalMs"), scrollMs},
                            {QStringLiteral("msPerPage"), pages > 0 ? scrollMs / pages : 0.0},
                            {QStringLiteral("probe"), probe.toJson()}}},
               {QStringLiteral("openJob"), toJson(filtered)},
               {QStringLiteral("targets"),
                QJsonObject{{QStringLiteral("firstPageUiUnder100Ms"), firstUi < 100},
                            {QStringLiteral("noStallOver50Ms"), worstStall <= 50},
                            {QStringLiteral("worstStallMs"), worstStall}}}});
    return 0;
}

} // namespace reclaim::bench
