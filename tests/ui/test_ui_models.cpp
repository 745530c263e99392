// The console's models on synthetic reports: every model under QAbstractItemModelTester, each
// verdict rendered with icon, word and colour, refreshes merged (selection kept, signals batched).
#include "actionsmodel.h"
#include "auditmodel.h"
#include "candidateexport.h"
#include "candidatefilterproxy.h"
#include "candidaterows.h"
#include "candidatetablemodel.h"
#include "counttext.h"
#include "domainlistmodel.h"
#include "evidencehtml.h"
#include "freshness.h"
#include "heldactionsmodel.h"
#include "recovery/planner.h"
#include "support/fakes.h"
#include "syntheticreport.h"
#include "verdictstyle.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QFont>
#include <QLocale>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <QThread>
#include <memory>
#include <optional>

using namespace reclaim;
using namespace Qt::StringLiterals;
using namespace reclaim::ui;
using namespace reclaim::test;

namespace {

// The candidate model behind the console's filter proxy, both under QAbstractItemModelTester.
struct CheckedCandidateTable
{
    CandidateTableModel model;
    QAbstractItemModelTester modelTester{&model,
                                         QAbstractItemModelTester::FailureReportingMode::Fatal};
    CandidateFilterProxy proxy;
    std::optional<QAbstractItemModelTester> proxyTester;

    CheckedCandidateTable()
    {
        proxy.setSourceModel(&model);
        proxyTester.emplace(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    }
};

} // namespace

class TestUiModels : public QObject
{
    Q_OBJECT

private slots:
    void candidateRowShowsVerdict_data();
    void candidateRowShowsVerdict();
    void proxySortsWorstFirstAndOldestFirst();
    void proxyFiltersByTextVerdictAndDomain();
    void refreshKeepsSelection();
    void refreshBatchesChanges();
    void mostRowsChangedResets();
    void tenThousandRowsMergeInTwoSignals();
    void rowsBuiltOnAnotherThreadAreSwappedIn();
    void theModelKeepsTheOrderTheViewAsksFor();
    void aReplannedRefreshSharesTheActionsInPlace();
    void thePreparedReportCountsEachDomainOnce();
    void theClockMovesAgesUnderAFilter();
    void actionResultUpdatesRow();
    void domainsWorstFirst();
    void countsAreGroupedForReading();
    void unreadableDomainHasNoCounts();
    void actionsKeepHistoryAndReplacePlan();
    void unenqueueablePayloadSaysWhyAndWaitsForNoApproval();
    void aRejectionSaysWhoAndStaysOneRowAcrossRuns();
    void auditPagesAreAskedForOneAtATime();
    void heldActionsAndStaleRowsSaySo();
    void freshnessFollowsTheRuns();
    void csvQuotesAndDefusesFormulas();
    void heldDecisionsStayAcrossListingsUntilCleared();
    void aMassDecisionIsOneChangePerGroup();
    void aListingShowsWhatArrivedWhateverItsSenderDoesNext();
};

namespace {
QModelIndex findKey(const QAbstractItemModel *model, const QString &key)
{
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->index(r, 0).data(CandidateTableModel::KeyRole).toString() == key)
            return model->index(r, 0);
    return {};
}
} // namespace

void TestUiModels::candidateRowShowsVerdict_data()
{
    QTest::addColumn<int>("verdict");
    QTest::addColumn<QString>("domain");
    QTest::addColumn<QString>("word");
    QTest::addColumn<QString>("planned");
    QTest::addColumn<QString>("evidenceContains");
    QTest::newRow("unknown") << int(Verdict::Unknown) << u"slide"_s << u"UNKNOWN"_s
                             << u"none: looks again next run"_s
                             << u"unknown: Redis timeout error"_s;
    QTest::newRow("absent, fail") << int(Verdict::Absent) << u"slide"_s << u"ABSENT"_s
                                  << u"FAIL the row"_s
                                  << u"not in slide-generation; scan found no match"_s;
    QTest::newRow("absent, requeue")
        << int(Verdict::Absent) << u"video"_s << u"ABSENT"_s << u"REQUEUE to video-generation"_s
        << u"not in video-generation"_s;
    QTest::newRow("scheduled") << int(Verdict::Scheduled) << u"slide"_s << u"SCHEDULED"_s
                               << u"none"_s << u"slide-generation: active, worker lock 24 s"_s;
}

void TestUiModels::candidateRowShowsVerdict()
{
    QFETCH(int, verdict);
    QFETCH(QString, domain);
    QFETCH(QString, word);
    QFETCH(QString, planned);
    QFETCH(QString, evidenceContains);

    CheckedCandidateTable table;
    CandidateTableModel &model = table.model;
    CandidateFilterProxy &proxy = table.proxy;

    const CandidateVerdict c =
        syntheticCandidate(domain, QStringLiteral("r1"), static_cast<Verdict>(verdict));
    model.setReport(syntheticReport({c}));
    QCOMPARE(model.rowCount(), 1);
    const auto cell = [&](int column, int role = Qt::DisplayRole) {
        return model.index(0, column).data(role);
    };
    // The verdict is a word, an icon and a colour: never colour alone.
    QCOMPARE(cell(CandidateTableModel::VerdictColumn).toString(), word);
    QVERIFY(!cell(CandidateTableModel::VerdictColumn, Qt::DecorationRole).value<QIcon>().isNull());
    QCOMPARE(cell(CandidateTableModel::VerdictColumn, Qt::ForegroundRole).value<QColor>(),
             verdictColor(static_cast<Verdict>(verdict)));
    QCOMPARE(cell(CandidateTableModel::EvidenceColumn).toString(), c.summary());
    QVERIFY2(c.summary().contains(evidenceContains), qPrintable(c.summary()));
    QVERIFY2(cell(CandidateTableModel::ActionColumn).toString().startsWith(planned),
             qPrintable(cell(CandidateTableModel::ActionColumn).toString()));
    QCOMPARE(cell(CandidateTableModel::IdColumn).toString(), QStringLiteral("r1"));
    QCOMPARE(cell(CandidateTableModel::StatusColumn).toString(), QStringLiteral("PROCESSING"));
    QCOMPARE(cell(CandidateTableModel::AgeColumn).toString(), QStringLiteral("2 h 0 min"));
    QCOMPARE(cell(0, CandidateTableModel::KeyRole).toString(), domain + QStringLiteral("/r1"));
    QCOMPARE(proxy.rowCount(), 1);
}

void TestUiModels::proxySortsWorstFirstAndOldestFirst()
{
    CandidateTableModel model;
    CandidateFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setReport(
        syntheticReport({syntheticCandidate(u"slide"_s, u"s-young"_s, Verdict::Scheduled, 70),
                         syntheticCandidate(u"slide"_s, u"a-young"_s, Verdict::Absent, 70),
                         syntheticCandidate(u"slide"_s, u"u-1"_s, Verdict::Unknown, 70),
                         syntheticCandidate(u"slide"_s, u"a-old"_s, Verdict::Absent, 900)}));
    QStringList order;
    for (int r = 0; r < proxy.rowCount(); ++r)
        order << proxy.index(r, CandidateTableModel::IdColumn).data().toString();
    QCOMPARE(order, (QStringList{u"u-1"_s, u"a-old"_s, u"a-young"_s, u"s-young"_s}));
}

void TestUiModels::proxyFiltersByTextVerdictAndDomain()
{
    CandidateTableModel model;
    CandidateFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setReport(syntheticReport(manyCandidates(90)));
    QCOMPARE(proxy.rowCount(), 90);
    proxy.setVerdictShown(Verdict::Scheduled, false);
    QCOMPARE(proxy.rowCount(), 60);
    proxy.setDomain(QStringLiteral("video"));
    QCOMPARE(proxy.rowCount(), 20);
    proxy.setText(QStringLiteral("timeout"));
    QCOMPARE(proxy.rowCount(), 10); // the UNKNOWN video rows: their evidence says "timeout"
    for (int r = 0; r < proxy.rowCount(); ++r)
        QCOMPARE(proxy.index(r, 0).data(CandidateTableModel::VerdictRole).toInt(),
                 int(Verdict::Unknown));
    proxy.setText(QStringLiteral("ROW-00004 video")); // case-insensitive, every word must match
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setText({});
    proxy.setDomain({});
    proxy.setVerdictShown(Verdict::Scheduled, true);
    QCOMPARE(proxy.rowCount(), 90);
}

void TestUiModels::refreshKeepsSelection()
{
    CheckedCandidateTable table;
    CandidateTableModel &model = table.model;
    CandidateFilterProxy &proxy = table.proxy;
    QTableView view;
    view.setModel(&proxy);
    view.resize(800, 300);

    QList<CandidateVerdict> first = manyCandidates(60);
    model.setReport(syntheticReport(first));
    const QString key = QStringLiteral("video/row-00004"); // an ABSENT row
    const QModelIndex before = findKey(&proxy, key);
    QVERIFY(before.isValid());
    view.selectionModel()->setCurrentIndex(before, QItemSelectionModel::ClearAndSelect |
                                                       QItemSelectionModel::Rows);

    // The next run: the selected row's evidence changed and it became UNKNOWN (it moves in the
    // sort order), one row vanished and one is new.
    QList<CandidateVerdict> second = first;
    second[4] = syntheticCandidate(u"video"_s, u"row-00004"_s, Verdict::Unknown);
    second.removeAt(10);
    second << syntheticCandidate(u"slide"_s, u"row-new"_s, Verdict::Absent);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.setReport(syntheticReport(second, QDateTime(QDate(2024, 5, 1), QTime(12, 5), Qt::UTC)));

    QCOMPARE(reset.count(), 0);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(inserted.count(), 1);
    const QModelIndexList selected = view.selectionModel()->selectedRows();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected.first().data(CandidateTableModel::KeyRole).toString(), key);
    QCOMPARE(view.selectionModel()->currentIndex().data(CandidateTableModel::KeyRole).toString(),
             key);
    QCOMPARE(selected.first().data(CandidateTableModel::VerdictRole).toInt(),
             int(Verdict::Unknown));
}

namespace {
// The candidate of `rows` that `model` shows at `row`.
CandidateVerdict &candidateAt(QList<CandidateVerdict> &rows, const CandidateTableModel &model,
                              int row)
{
    const QString key = model.rowAt(row)->key;
    for (CandidateVerdict &c : rows)
        if (c.candidate.domain + u'/' + c.candidate.id == key)
            return c;
    qFatal("no candidate for the model's row %d", row);
}
} // namespace

void TestUiModels::refreshBatchesChanges()
{
    CandidateTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QList<CandidateVerdict> rows = manyCandidates(300);
    const QDateTime at(QDate(2024, 5, 1), QTime(12, 0), Qt::UTC);
    model.setReport(syntheticReport(rows, at));
    // The model keeps its rows worst first: the candidates at its rows 50..99 change, and that
    // is one dataChanged for that range, nothing else (same clock: the ages did not move).
    for (int k = 50; k < 100; ++k)
        candidateAt(rows, model, k).evidence.first().lockTtlMs = 5000 + k;
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setReport(syntheticReport(rows, at));
    QCOMPARE(reset.count(), 0);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex().row(), 50);
    QCOMPARE(changed.first().at(1).toModelIndex().row(), 99);
    QCOMPARE(model.lastMerge().changed, 50);

    // An identical report changes nothing.
    changed.clear();
    model.setReport(syntheticReport(rows, at));
    QCOMPARE(changed.count(), 0);
}

void TestUiModels::mostRowsChangedResets()
{
    CandidateTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setReport(syntheticReport(manyCandidates(40)));
    QList<CandidateVerdict> fresh;
    for (int i = 0; i < 40; ++i)
        fresh << syntheticCandidate(u"slide"_s, QStringLiteral("other-%1").arg(i), Verdict::Absent);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setReport(syntheticReport(fresh));
    QCOMPARE(reset.count(), 1);
    QVERIFY(model.lastMerge().reset);
    QCOMPARE(model.rowCount(), 40);
}

void TestUiModels::tenThousandRowsMergeInTwoSignals()
{
    CandidateTableModel model;
    CandidateFilterProxy proxy;
    proxy.setSourceModel(&model);
    QTableView view;
    view.setModel(&proxy);
    view.resize(1000, 600);
    view.show();
    QList<CandidateVerdict> rows = manyCandidates(10000);
    model.setReport(syntheticReport(rows));
    QCOMPARE(proxy.rowCount(), 10000);
    for (int k = 1000; k < 1100; ++k) // 100 consecutive rows (see refreshBatchesChanges)
        candidateAt(rows, model, k).evidence.first().lockTtlMs = 1000 + k;
    rows.removeAt(20);
    rows << syntheticCandidate(u"slide"_s, u"late-arrival"_s, Verdict::Absent);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QElapsedTimer t;
    t.start();
    model.setReport(syntheticReport(rows, QDateTime(QDate(2024, 5, 1), QTime(12, 5), Qt::UTC)));
    QCoreApplication::processEvents();
    const qint64 ms = t.elapsed();
    qInfo("merging a 10,000-row refresh took %lld ms", ms);
    QCOMPARE(reset.count(), 0);
    // The changed block plus one for the age column: not 100, not 10,000.
    QCOMPARE(changed.count(), 2);
    QCOMPARE(proxy.rowCount(), 10000);
}

void TestUiModels::rowsBuiltOnAnotherThreadAreSwappedIn()
{
    CheckedCandidateTable table;
    CandidateTableModel &model = table.model;
    CandidateFilterProxy &proxy = table.proxy;
    // Built where the console builds them, from a report that is gone once they are: the rows
    // keep what they point into.
    CandidateRows rows;
    std::unique_ptr<QThread> builder(QThread::create(
        [&rows] { rows = buildCandidateRows(syntheticReport(manyCandidates(90))); }));
    builder->start();
    QVERIFY(builder->wait(10000));

    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setRows(std::move(rows));
    QCOMPARE(reset.count(), 1); // into an empty table the rows are swapped in: one reset
    CandidateTableModel reference;
    reference.setReport(syntheticReport(manyCandidates(90)));
    QCOMPARE(model.rowCount(), reference.rowCount());
    for (int r = 0; r < model.rowCount(); ++r) {
        QCOMPARE(model.index(r, 0).data(CandidateTableModel::KeyRole),
                 reference.index(r, 0).data(CandidateTableModel::KeyRole));
        for (int c = 0; c < CandidateTableModel::ColumnCount; ++c)
            QCOMPARE(model.index(r, c).data(), reference.index(r, c).data());
    }
    QCOMPARE(proxy.rowCount(), 90);
    proxy.setText(QStringLiteral("TIMEOUT")); // the UNKNOWN rows' evidence, any case
    QCOMPARE(proxy.rowCount(), 30);
}

void TestUiModels::theModelKeepsTheOrderTheViewAsksFor()
{
    CheckedCandidateTable table;
    CandidateTableModel &model = table.model;
    CandidateFilterProxy &proxy = table.proxy;
    QList<CandidateVerdict> rows = manyCandidates(90);
    model.setReport(syntheticReport(rows));
    const auto ids = [&] {
        QStringList out;
        for (int r = 0; r < proxy.rowCount(); ++r)
            out << proxy.index(r, CandidateTableModel::IdColumn).data().toString();
        return out;
    };
    const QString key = QStringLiteral("video/row-00004");
    QPersistentModelIndex held(findKey(&proxy, key));
    QVERIFY(held.isValid());

    // The view's sort lands in the model (the proxy only filters), and what was selected
    // follows its row.
    proxy.sort(CandidateTableModel::IdColumn, Qt::DescendingOrder);
    QCOMPARE(model.order(), (CandidateOrder{CandidateTableModel::IdColumn, Qt::DescendingOrder}));
    QStringList expected = ids();
    std::sort(expected.begin(), expected.end(), std::greater<>());
    QCOMPARE(ids(), expected);
    QCOMPARE(held.data(CandidateTableModel::KeyRole).toString(), key);

    // Rows built in another order (the console's worker did not know yet) are put in the
    // model's; rows built in it are taken as they come.
    rows << syntheticCandidate(u"video"_s, u"row-99999"_s, Verdict::Absent);
    model.setRows(buildCandidateRows(syntheticReport(rows)));
    QCOMPARE(ids().first(), u"row-99999"_s);
    QCOMPARE(held.data(CandidateTableModel::KeyRole).toString(), key);
    CandidateRows built = buildCandidateRows(syntheticReport(rows), model.order());
    QCOMPARE(built.order, model.order());
    for (qsizetype i = 0; i < built.rows.size(); ++i) {
        QCOMPARE(built.index.value(built.rows.at(i).key), int(i));
        QCOMPARE(built.rows.at(i).key, model.rowAt(int(i))->key);
    }

    // Back to worst first, as a fresh table shows it: the same order as a model never sorted.
    proxy.sort(CandidateTableModel::VerdictColumn, Qt::AscendingOrder);
    CandidateTableModel fresh;
    fresh.setReport(syntheticReport(rows));
    for (int r = 0; r < fresh.rowCount(); ++r)
        QCOMPARE(model.rowAt(r)->key, fresh.rowAt(r)->key);
}

void TestUiModels::aReplannedRefreshSharesTheActionsInPlace()
{
    const QList<CandidateVerdict> rows = manyCandidates(90);
    const CandidateRows first = buildCandidateRows(syntheticReport(rows));
    QCOMPARE(first.actions.entries.size(), 30); // one per ABSENT candidate
    ActionsModel actions;
    QAbstractItemModelTester tester(&actions,
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy reset(&actions, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&actions, &QAbstractItemModel::dataChanged);
    actions.setPlan(first.actions, QDateTime::currentDateTimeUtc());
    QCOMPARE(reset.count(), 1); // into an empty table: one reset, nothing copied
    QCOMPARE(actions.rowCount(), 30);
    // The candidate table's row and the actions table hold the same action, not two copies.
    for (const CandidateRow &r : first.rows)
        if (r.action)
            QCOMPARE(actions.actionFor(r.key), r.action.get());

    // The next run plans the same actions: taken in place, one notification, no reset; a row
    // whose approval is in flight keeps what it shows.
    const QString approving = first.actions.entries.at(3).action->id;
    actions.setApproving(approving, true);
    const Action *before = actions.actionFor(approving);
    const CandidateRows second = buildCandidateRows(syntheticReport(rows));
    reset.clear();
    changed.clear();
    actions.setPlan(second.actions, QDateTime::currentDateTimeUtc());
    QCOMPARE(reset.count(), 0);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(actions.rowCount(), 30);
    QCOMPARE(actions.actionFor(approving), before);
    QCOMPARE(actions.actionFor(second.actions.entries.at(0).action->id),
             second.actions.entries.at(0).action.get());
    QCOMPARE(actions.pendingCount(), 30);
}

void TestUiModels::thePreparedReportCountsEachDomainOnce()
{
    RunReport report = syntheticReport(manyCandidates(90));
    report.domains.first().unlistedScheduled.insert(u"beyond-the-listed"_s);
    const CandidateRows rows = buildCandidateRows(report);
    QCOMPARE(rows.report->domains.size(), report.domains.size());
    for (qsizetype d = 0; d < report.domains.size(); ++d) {
        const DomainReport &counted = rows.report->domains.at(d);
        QVERIFY(counted.settledCounts.has_value());
        QVERIFY(!report.domains.at(d).settledCounts); // the run's own report is not written
        for (const Verdict v : {Verdict::Scheduled, Verdict::Absent, Verdict::Unknown}) {
            int n = 0;
            for (const CandidateVerdict &c : report.domains.at(d).candidates)
                n += c.verdict == v ? 1 : 0;
            if (v == Verdict::Scheduled)
                n += int(report.domains.at(d).unlistedScheduled.size());
            QCOMPARE(counted.settledCounts->of(v), n);
            QCOMPARE(report.domains.at(d).counts().of(v), n); // counted in one pass, unsettled
            QCOMPARE(report.domains.at(d).count(v), n);
        }
    }
    QCOMPARE(rows.report->counts().unknown, 30);
    QCOMPARE(rows.report->counts().scheduled, 31);
}

void TestUiModels::theClockMovesAgesUnderAFilter()
{
    CheckedCandidateTable table;
    const QList<CandidateVerdict> rows = manyCandidates(90);
    const QDateTime at(QDate(2024, 5, 1), QTime(12, 0), Qt::UTC);
    table.model.setReport(syntheticReport(rows, at));
    table.proxy.setText(QStringLiteral("timeout"));
    QCOMPARE(table.proxy.rowCount(), 30);
    const QString key = table.proxy.index(0, 0).data(CandidateTableModel::KeyRole).toString();
    const qint64 before =
        table.proxy.index(0, 0).data(CandidateTableModel::AgeSecondsRole).toLongLong();
    // The next run, an hour later, sees the same rows: only the ages move. The filter keeps the
    // same rows (it reads no age) and the proxy shows the new ages.
    QSignalSpy changed(&table.proxy, &QAbstractItemModel::dataChanged);
    table.model.setReport(syntheticReport(rows, at.addSecs(3600)));
    QCOMPARE(table.proxy.rowCount(), 30);
    QVERIFY(!changed.isEmpty());
    QCOMPARE(table.proxy.index(0, 0).data(CandidateTableModel::KeyRole).toString(), key);
    QCOMPARE(table.proxy.index(0, 0).data(CandidateTableModel::AgeSecondsRole).toLongLong(),
             before + 3600);
}

void TestUiModels::actionResultUpdatesRow()
{
    CandidateTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const CandidateVerdict c = syntheticCandidate(u"slide"_s, u"r1"_s, Verdict::Absent);
    model.setReport(syntheticReport({c}));
    Action a = syntheticAction(c, false);
    model.setApproving(a.id, true);
    QVERIFY(model.index(0, CandidateTableModel::ActionColumn)
                .data()
                .toString()
                .contains(QStringLiteral("running")));
    a.result = ActionResult::Stale;
    a.executedAt = QDateTime::currentDateTimeUtc();
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.updateAction(a);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.index(0, CandidateTableModel::ActionColumn).data().toString(),
             QStringLiteral("FAIL the row: stale (0 rows)"));
    QVERIFY(!model.rowForKey(a.id)->approving);

    // The next run plans it again, exactly as the first did: what the row shows changed since
    // that report (the result came in between), so the refresh must say so, not match the
    // report it was built from.
    changed.clear();
    model.setReport(syntheticReport({c}));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.lastMerge().changed, 1);
    QCOMPARE(model.index(0, CandidateTableModel::ActionColumn).data().toString(),
             QStringLiteral("FAIL the row"));
    // The same with a result that came without an approval in flight (another console's).
    model.updateAction(a);
    changed.clear();
    model.setReport(syntheticReport({c}));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.index(0, CandidateTableModel::ActionColumn).data().toString(),
             QStringLiteral("FAIL the row"));
}

// A mass incident's counts read "1,234", not "1234", in the domain list (the filter buttons, the
// "N of M shown" note and the actions title use the same countText).
void TestUiModels::countsAreGroupedForReading()
{
    const QLocale before;
    QLocale::setDefault(QLocale::c()); // the tests' and a server's; grouping is off by default
    QCOMPARE(countText(999), u"999"_s);
    QCOMPARE(countText(200000), u"200,000"_s);
    QCOMPARE(countText(1000000), u"1,000,000"_s);
    QList<CandidateVerdict> many;
    for (int i = 0; i < 1234; ++i)
        many << syntheticCandidate(u"video"_s, QString::number(i), Verdict::Absent);
    DomainListModel model;
    model.setReport(syntheticReport(many));
    QModelIndex all;
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.index(r, 0).data(DomainListModel::DomainRole).toString().isEmpty())
            all = model.index(r, DomainListModel::AbsentColumn);
    QVERIFY(all.isValid());
    QCOMPARE(all.data().toString(), u"1,234"_s);
    QLocale::setDefault(before);
}

void TestUiModels::domainsWorstFirst()
{
    DomainListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(DomainListModel::SeverityRole);
    proxy.setDynamicSortFilter(true);
    proxy.sort(0, Qt::DescendingOrder);
    QAbstractItemModelTester proxyTester(&proxy,
                                         QAbstractItemModelTester::FailureReportingMode::Fatal);

    model.setReport(syntheticReport({syntheticCandidate(u"slide"_s, u"1"_s, Verdict::Scheduled),
                                     syntheticCandidate(u"video"_s, u"2"_s, Verdict::Absent),
                                     syntheticCandidate(u"image"_s, u"3"_s, Verdict::Unknown),
                                     syntheticCandidate(u"image"_s, u"4"_s, Verdict::Scheduled)}));
    auto names = [&] {
        QStringList out;
        for (int r = 0; r < proxy.rowCount(); ++r)
            out << proxy.index(r, 0).data(DomainListModel::DomainRole).toString();
        return out;
    };
    QCOMPARE(names(), (QStringList{u""_s, u"image"_s, u"video"_s, u"slide"_s}));
    QCOMPARE(proxy.index(0, DomainListModel::UnknownColumn).data().toInt(), 1);
    QCOMPARE(proxy.index(0, DomainListModel::ScheduledColumn).data().toInt(), 2);

    // A refresh where slide gets worse re-sorts in place (no reset) and keeps the set of rows.
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setReport(syntheticReport({syntheticCandidate(u"slide"_s, u"1"_s, Verdict::Unknown),
                                     syntheticCandidate(u"slide"_s, u"5"_s, Verdict::Unknown),
                                     syntheticCandidate(u"video"_s, u"2"_s, Verdict::Absent),
                                     syntheticCandidate(u"image"_s, u"3"_s, Verdict::Unknown)}));
    QCOMPARE(reset.count(), 0);
    QCOMPARE(names(), (QStringList{u""_s, u"slide"_s, u"image"_s, u"video"_s}));
}

void TestUiModels::unreadableDomainHasNoCounts()
{
    DomainListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    RunReport r = syntheticReport({syntheticCandidate(u"slide"_s, u"1"_s, Verdict::Scheduled)});
    DomainReport broken;
    broken.name = QStringLiteral("video");
    broken.candidateError = QStringLiteral("relation \"VideoJob\" does not exist");
    r.domains << broken;
    model.setReport(r);
    int row = -1;
    for (int i = 0; i < model.rowCount(); ++i)
        if (model.index(i, 0).data(DomainListModel::DomainRole).toString() ==
            QLatin1String("video"))
            row = i;
    QVERIFY(row >= 0);
    // Not read is not zero.
    QCOMPARE(model.index(row, DomainListModel::AbsentColumn).data().toString(),
             QStringLiteral("\u2014"));
    QVERIFY(model.index(row, 0).data().toString().contains(QStringLiteral("not read")));
    QVERIFY(
        model.index(row, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("VideoJob")));
    QVERIFY(model.index(row, 0).data(DomainListModel::SeverityRole).toLongLong() >
            model.index(row == 1 ? 2 : 1, 0).data(DomainListModel::SeverityRole).toLongLong());
}

void TestUiModels::actionsKeepHistoryAndReplacePlan()
{
    ActionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const CandidateVerdict a = syntheticCandidate(u"slide"_s, u"a"_s, Verdict::Absent);
    const CandidateVerdict b = syntheticCandidate(u"video"_s, u"b"_s, Verdict::Absent);
    const CandidateVerdict c = syntheticCandidate(u"slide"_s, u"c"_s, Verdict::Absent);
    model.setReport(syntheticReport({a, b, c}));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.pendingCount(), 3);
    // The cell is compact (status and time of day); its tooltip says all of it.
    QCOMPARE(model.index(0, ActionsModel::PreconditionColumn).data().toString(),
             QStringLiteral("PROCESSING \u00b7 10:00:00.000"));
    const QString tip =
        model.index(0, ActionsModel::PreconditionColumn).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(a.candidate.updatedAtText) &&
                 tip.contains(QStringLiteral("generation 7")),
             qPrintable(tip));
    model.setWholeSeconds(true); // a narrow panel
    QCOMPARE(model.index(0, ActionsModel::PreconditionColumn).data().toString(),
             QStringLiteral("PROCESSING \u00b7 10:00:00"));
    model.setWholeSeconds(false);
    QCOMPARE(preconditionText(syntheticAction(a, false).precondition),
             QStringLiteral("status PROCESSING, updatedAt %1, generation 7")
                 .arg(a.candidate.updatedAtText));

    Action applied = syntheticAction(b, true);
    applied.result = ActionResult::Applied;
    applied.executedAt = QDateTime::currentDateTimeUtc();
    model.updateAction(applied);
    QCOMPARE(model.index(1, ActionsModel::ResultColumn).data().toString(),
             QStringLiteral("applied"));

    // Next run: only c is still planned. a's pending plan goes; b's applied result stays.
    model.setReport(syntheticReport({c}));
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(!model.actionFor(QStringLiteral("slide/a")));
    QCOMPARE(model.actionFor(QStringLiteral("video/b"))->result, ActionResult::Applied);
    QCOMPARE(model.actionFor(QStringLiteral("slide/c"))->result, ActionResult::Pending);

    // c runs and comes back stale; the next run plans it again: both stay, the plan is current.
    Action stale = syntheticAction(c, false);
    stale.result = ActionResult::Stale;
    model.updateAction(stale);
    model.setReport(syntheticReport({c}));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.actionFor(QStringLiteral("slide/c"))->result, ActionResult::Pending);
    QCOMPARE(model.index(1, ActionsModel::ResultColumn).data(ActionsModel::ResultRole).toInt(),
             int(ActionResult::Stale));
}

void TestUiModels::aRejectionSaysWhoAndStaysOneRowAcrossRuns()
{
    ActionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const CandidateVerdict c = syntheticCandidate(u"slide"_s, u"a"_s, Verdict::Absent);
    model.setReport(syntheticReport({c}));
    const QString key = QStringLiteral("slide/a");
    const auto result = [&] {
        return model.index(model.rowOf(key), ActionsModel::ResultColumn).data().toString();
    };
    model.setRecording(key, true);
    QCOMPARE(result(), QStringLiteral("rejecting\u2026"));
    // A run while the rejection is on its way does not replace the entry.
    model.setReport(syntheticReport({c}));
    QVERIFY(model.isRecording(key));

    Action rejected = syntheticAction(c, false);
    rejected.result = ActionResult::Rejected;
    rejected.rejectedBy = QStringLiteral("alice@ops1");
    rejected.executedAt = QDateTime::currentDateTimeUtc();
    model.updateAction(rejected);
    QVERIFY(!model.isRecording(key));
    QCOMPARE(result(), QStringLiteral("rejected by alice"));
    QVERIFY(model.index(model.rowOf(key), ActionsModel::ResultColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("rejected by alice@ops1")));
    QCOMPARE(model.pendingCount(), 0);

    // The next runs report the same rejection: still one row, not one per run.
    RunReport again = syntheticReport({c});
    again.actions.first() = rejected;
    model.setReport(again);
    model.setReport(again);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.actionFor(key)->result, ActionResult::Rejected);
}

// The history asks for the next page only when there is one and none is on its way, and stops
// asking after a failure until it is cleared.
void TestUiModels::auditPagesAreAskedForOneAtATime()
{
    // No QAbstractItemModelTester here: it calls fetchMore() itself, which is what is counted.
    AuditModel model;
    QSignalSpy asked(&model, &AuditModel::moreRequested);
    QVERIFY(!model.canFetchMore({}));
    AuditPage page;
    for (qint64 id = 300; id > 100; --id) {
        AuditEntry e;
        e.id = id;
        e.domain = QStringLiteral("video");
        e.rowId = QStringLiteral("vj_%1").arg(id);
        e.observedStatus = QStringLiteral("PROCESSING");
        e.observedUpdatedAt = QStringLiteral("2026-12-03 02:00:00.1");
        e.result = QStringLiteral("rejected");
        e.detail = QStringLiteral("postgresql://u:hunter2@db/x");
        page.entries << e;
    }
    page.more = true;
    model.appendPage(page);
    QCOMPARE(model.rowCount(), 200);
    QCOMPARE(model.lastId(), 101);
    QCOMPARE(model.index(0, AuditModel::JobColumn).data().toString(),
             QStringLiteral("video/vj_300"));
    QCOMPARE(model.index(0, AuditModel::PreconditionColumn).data().toString(),
             QStringLiteral("PROCESSING \u00b7 2026-12-03 02:00:00.1"));
    QVERIFY(!model.index(0, AuditModel::DetailColumn).data().toString().contains(u"hunter2"_s));
    QVERIFY(model.canFetchMore({}));
    model.fetchMore({});
    model.fetchMore({}); // one on its way already: not asked twice
    QCOMPARE(asked.count(), 1);
    QVERIFY(model.loading());
    model.appendPage(AuditPage{{}, false});
    QVERIFY(!model.canFetchMore({}));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    page.more = true;
    model.appendPage(page);
    model.setFailed(true);
    QVERIFY(!model.canFetchMore({}));
}

// Issue 18: the plan for a row whose restore query returned broken JSON (the real planner, on
// a fake store) reaches the console settled, with the reason in the action's detail and the
// evidence pane, and offers nothing to approve.
void TestUiModels::unenqueueablePayloadSaysWhyAndWaitsForNoApproval()
{
    const ReclaimConfig config = fakeConfig();
    CallLog log;
    FakeJobStore store(&log);
    store.restorable.insert(u"vj_1"_s, QByteArray(R"({"jobId": "vj_1", broken)"));
    CandidateVerdict c = syntheticCandidate(u"video"_s, u"vj_1"_s, Verdict::Absent);
    c.candidate.type = u"COMPOSE"_s;
    RunReport report = syntheticReport({c});
    report.actions = planActions(config.domains.at(0), {c}, store, 1);
    QCOMPARE(report.actions.size(), 1);

    ActionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setReport(report);
    QCOMPARE(model.pendingCount(), 0);
    const Action *a = model.actionFor(u"video/vj_1"_s);
    QVERIFY(a);
    const QString detail = actionDetailText(*a);
    QVERIFY2(detail.contains(u"not enqueued: the restore query of video returned a payload for "
                             "vj_1 that is not valid JSON"_s),
             qPrintable(detail));
    const QString html = evidenceHtml(c, a, false);
    QVERIFY2(html.contains(u"not enqueued"_s), qPrintable(html));
}

void TestUiModels::heldActionsAndStaleRowsSaySo()
{
    ActionsModel actions;
    QAbstractItemModelTester tester(&actions,
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    const CandidateVerdict a = syntheticCandidate(u"slide"_s, u"a"_s, Verdict::Absent);
    const CandidateVerdict b = syntheticCandidate(u"slide"_s, u"b"_s, Verdict::Absent);
    actions.setReport(syntheticReport({a, b}));
    Action applied = syntheticAction(b, false);
    applied.result = ActionResult::Applied;
    actions.updateAction(applied);
    QSignalSpy changed(&actions, &QAbstractItemModel::dataChanged);
    actions.setHold(QStringLiteral("On hold: Redis is unreachable"));
    QCOMPARE(changed.count(), 1); // one notification for the table
    const QModelIndex pending =
        actions.index(actions.rowOf(u"slide/a"_s), ActionsModel::ResultColumn);
    const QModelIndex done = actions.index(actions.rowOf(u"slide/b"_s), ActionsModel::ResultColumn);
    QCOMPARE(pending.data().toString(), QStringLiteral("on hold"));
    QCOMPARE(pending.data(Qt::ToolTipRole).toString(),
             QStringLiteral("On hold: Redis is unreachable"));
    QCOMPARE(pending.data(Qt::ForegroundRole).value<QColor>(), staleColor());
    QCOMPARE(done.data().toString(), QStringLiteral("applied")); // history is not held
    QCOMPARE(actions.pendingCount(), 1); // still pending: nothing was decided
    actions.setHold({});
    QCOMPARE(pending.data().toString(), QStringLiteral("awaiting"));

    CheckedCandidateTable t;
    t.model.setReport(syntheticReport({a, b}));
    QSignalSpy rowsChanged(&t.model, &QAbstractItemModel::dataChanged);
    t.model.setStale(true, QStringLiteral("Stale: the run at 11:48, 12 min ago"));
    QCOMPARE(rowsChanged.count(), 1);
    const QModelIndex verdict = t.model.index(0, CandidateTableModel::VerdictColumn);
    QCOMPARE(verdict.data().toString(), QStringLiteral("ABSENT \u00b7 stale"));
    QVERIFY(verdict.data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("Stale: the run")));
    QVERIFY(
        t.model.index(0, CandidateTableModel::IdColumn).data(Qt::FontRole).value<QFont>().italic());
    // The filter and the sort still see the verdict, not the marking.
    t.proxy.setText(QStringLiteral("absent"));
    QCOMPARE(t.proxy.rowCount(), 2);
    t.model.setStale(false, {});
    QCOMPARE(verdict.data().toString(), QStringLiteral("ABSENT"));
}

void TestUiModels::freshnessFollowsTheRuns()
{
    const QDateTime t0 = QDateTime(QDate(2024, 5, 1), QTime(3, 0), Qt::UTC);
    RunReport completed = syntheticReport({}, t0);
    Freshness f = Freshness::after({}, completed);
    QVERIFY(!f.stale());
    QVERIFY(f.approvalHold(t0).isEmpty());

    RunReport skipped;
    skipped.outcome = RunReport::Outcome::SkippedLockHeld;
    skipped.startedAt = t0.addSecs(300);
    skipped.lock.token = QStringLiteral("reclaim;host=daemon-1;pid=77;since=x;nonce=1");
    f = Freshness::after(f, skipped);
    QVERIFY(f.stale());
    QCOMPARE(f.shownRunAt, completed.startedAt);
    QVERIFY2(f.explanation(t0.addSecs(720)).contains(QStringLiteral("12 min ago")),
             qPrintable(f.explanation(t0.addSecs(720))));
    QVERIFY(f.why.contains(QStringLiteral("daemon-1, pid 77")));

    RunReport failed;
    failed.outcome = RunReport::Outcome::Failed;
    failed.startedAt = t0.addSecs(600);
    failed.outcomeDetail = QStringLiteral("connect to postgresql://ops:s3cret@db/app failed");
    f = Freshness::after(f, failed);
    QVERIFY(f.stale());
    QCOMPARE(f.shownRunAt, completed.startedAt); // still the last completed run
    QVERIFY(!f.why.contains(QStringLiteral("s3cret")));

    f = Freshness::after(f, syntheticReport({}, t0.addSecs(900)));
    QVERIFY(!f.stale());
    // Never stale without rows to be stale: a skipped first run leaves nothing on screen.
    QVERIFY(!Freshness::after({}, skipped).stale());
}

void TestUiModels::csvQuotesAndDefusesFormulas()
{
    CandidateVerdict c = syntheticCandidate(u"slide"_s, u"a"_s, Verdict::Unknown);
    c.evidence[0].error = QStringLiteral("=cmd|' /C calc'!A0, \"x\"\nsecond line");
    c.unknownReason = *c.evidence[0].error;
    CandidateVerdict formula = syntheticCandidate(u"slide"_s, u"f"_s, Verdict::Scheduled);
    formula.candidate.type = QStringLiteral("=2+3"); // a job type is data the app wrote
    const RunReport report = syntheticReport({c, formula});
    const CandidateRows rows = buildCandidateRows(report);
    ExportedRun run;
    run.runId = QStringLiteral("r1");
    run.ageReference = report.finishedAt;
    const QByteArray csv = candidatesCsv({&rows.rows.at(0), &rows.rows.at(1)}, run);
    const QList<QByteArray> lines = csv.split('\n');
    QVERIFY(lines.at(0).startsWith("domain,id,type,dbStatus"));
    QVERIFY2(
        lines.at(1).startsWith("slide,a,GENERATE,PROCESSING,2024-05-01 10:00:00.000,7200,UNKNOWN,"),
        csv.constData());
    // The evidence cell is quoted (comma, quote, newline inside) and its text cannot start a
    // formula; the row ends with the run and the stale flag.
    QVERIFY2(csv.contains("\"\"x\"\""), csv.constData());
    QVERIFY2(!csv.contains(",=") && !csv.contains(",\"="), csv.constData());
    QVERIFY(csv.contains(",r1,false\r\nslide,f,'=2+3,PROCESSING,"));
    QVERIFY(csv.endsWith(",r1,false\r\n"));
    QCOMPARE(exportFormatFor(QStringLiteral("/tmp/a.JSON")), ExportFormat::Json);
    QCOMPARE(exportFormatFor(QStringLiteral("/tmp/a.csv")), ExportFormat::Csv);
}

namespace {

HeldAction heldFixture(qint64 id, const QString &domain)
{
    HeldAction h;
    h.id = id;
    h.action.domain = domain;
    h.action.rowId = QStringLiteral("row-%1").arg(id);
    h.action.kind = ActionKind::Fail;
    h.heldLimit = QStringLiteral("policy");
    h.heldAt = QDateTime::currentDateTimeUtc();
    return h;
}

} // namespace

// The listing that follows a decision no longer has it: what this console decided stays, with
// its outcome, until the operator clears it; a decision the listing still has (held again) gives
// way to the listed entry, which can be decided again.
void TestUiModels::heldDecisionsStayAcrossListingsUntilCleared()
{
    HeldActionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setHeld({heldFixture(1, QStringLiteral("image")), heldFixture(2, QStringLiteral("image")),
                   heldFixture(3, QStringLiteral("image"))});
    QCOMPARE(model.waitingCount(), 3);

    HeldDecision taken{2, HeldDecision::Outcome::AlreadyTaken, QStringLiteral("taken"),
                       heldFixture(2, QStringLiteral("image")), std::nullopt};
    taken.current->state = HeldState::Executed;
    taken.current->stateBy = QStringLiteral("alice@ops");
    model.applyDecision(taken);
    model.applyDecision({3, HeldDecision::Outcome::HeldAgain, QStringLiteral("no lock"),
                         std::nullopt, std::nullopt});
    QCOMPARE(model.decidedCount(), 2);
    QCOMPARE(model.decisionText(2), QStringLiteral("already executed by alice@ops"));

    // The next listing: 2 is executed (not listed), 3 held again (listed), 4 is new.
    model.setHeld({heldFixture(1, QStringLiteral("image")), heldFixture(3, QStringLiteral("image")),
                   heldFixture(4, QStringLiteral("image"))});
    QCOMPARE(model.rowCount(), 1);
    const QModelIndex group = model.index(0, 0);
    QCOMPARE(model.rowCount(group), 4);
    QCOMPARE(model.index(3, 0, group).data(HeldActionsModel::IdRole).toLongLong(), 2);
    QCOMPARE(model.decisionText(2), QStringLiteral("already executed by alice@ops"));
    QVERIFY(!model.isDecidable(2));
    QCOMPARE(model.decisionText(3), QString());
    QVERIFY(model.isDecidable(3));
    QCOMPARE(model.waitingCount(), 3);
    QCOMPARE(model.summary(group).openIds, (QList<qint64>{1, 3, 4}));
    QCOMPARE(model.decidedCount(), 1);

    // Kept across another listing, then cleared.
    model.setHeld({heldFixture(1, QStringLiteral("image"))});
    QCOMPARE(model.decidedCount(), 1);
    model.clearDecided();
    QCOMPARE(model.decidedCount(), 0);
    QCOMPARE(model.rowCount(model.index(0, 0)), 1);
    QVERIFY(!model.indexOf(2).isValid());
}

// A mass approval answers 20,000 decisions: applied together they are one change per group (the
// group's changed rows, then its row), each row still found by id and showing its own outcome.
// One change per decision made the console's thread spend seconds on a 20,000-action approval.
void TestUiModels::aMassDecisionIsOneChangePerGroup()
{
    constexpr int kEach = 10000;
    QList<HeldAction> held;
    for (int i = 0; i < 2 * kEach; ++i) {
        HeldAction h = heldFixture(i + 1, QStringLiteral("image"));
        h.heldLimit = i < kEach ? QStringLiteral("policy") : QStringLiteral("no-trace");
        held << h;
    }
    HeldActionsModel model;
    model.setHeld(held);
    QCOMPARE(model.rowCount(), 2);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QList<HeldDecision> decisions;
    for (int i = 0; i < 2 * kEach; i += 2) // every other one, in both groups
        decisions << HeldDecision{i + 1, HeldDecision::Outcome::Executed, QString(), std::nullopt,
                                  std::nullopt};
    model.applyDecisions(decisions);
    QCOMPARE(changed.count(), 4);
    for (int g = 0; g < 2; ++g) {
        const QModelIndex group = model.index(g, 0);
        QCOMPARE(model.summary(group).openIds.size(), kEach / 2);
        QCOMPARE(group.siblingAtColumn(HeldActionsModel::StateColumn).data().toString(),
                 QStringLiteral("%1 of %2 waiting")
                     .arg(QLocale().toString(kEach / 2), QLocale().toString(kEach)));
    }
    for (qint64 id = 1; id <= 2 * kEach; ++id) {
        const QModelIndex at = model.indexOf(id);
        QCOMPARE(at.data(HeldActionsModel::IdRole).toLongLong(), id);
        QCOMPARE(model.decisionText(id), id % 2 ? QStringLiteral("executed") : QString());
    }
    QCOMPARE(model.waitingCount(), kEach);
}

// The model shows a listing without copying its entries (it keeps the list the signal carried):
// what the sender does with its own list afterwards changes nothing shown, and a decision's
// entry outlives the listing it replaced. Fails if the model points into a list it does not
// keep (the sender's write lands in what the model shows).
void TestUiModels::aListingShowsWhatArrivedWhateverItsSenderDoesNext()
{
    HeldActionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QList<HeldAction> sent{heldFixture(1, QStringLiteral("image")),
                           heldFixture(2, QStringLiteral("image"))};
    model.setHeld(sent);
    sent[0].action.rowId = QStringLiteral("changed by the sender");
    sent.clear();
    sent.squeeze();
    const QModelIndex group = model.index(0, 0);
    QCOMPARE(model.index(0, HeldActionsModel::WhatColumn, group).data().toString(),
             QStringLiteral("#1  row-1"));
    QCOMPARE(model.heldAction(2)->action.rowId, QStringLiteral("row-2"));

    // A decision's entry as it stands now, kept across two listings that no longer have it.
    HeldDecision taken{2, HeldDecision::Outcome::AlreadyTaken, QString(),
                       heldFixture(2, QStringLiteral("image")), std::nullopt};
    taken.current->stateBy = QStringLiteral("bob@ops");
    taken.current->state = HeldState::Rejected;
    model.applyDecision(taken);
    taken = {};
    for (int listing = 0; listing < 2; ++listing) {
        QList<HeldAction> next{heldFixture(1, QStringLiteral("image"))};
        model.setHeld(next);
        next[0].action.rowId = QStringLiteral("changed again");
    }
    QCOMPARE(model.heldAction(1)->action.rowId, QStringLiteral("row-1"));
    QCOMPARE(model.decisionText(2), QStringLiteral("already rejected by bob@ops"));
    QCOMPARE(model.heldAction(2)->action.rowId, QStringLiteral("row-2"));
    model.clearDecided();
    QCOMPARE(model.heldAction(2), nullptr);
    QCOMPARE(model.heldAction(1)->action.rowId, QStringLiteral("row-1"));
}

QTEST_MAIN(TestUiModels)
#include "test_ui_models.moc"
