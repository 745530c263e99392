// reclaim_bench: the measuring half of the benchmark (bench/run.js drives it). One subcommand
// per measurement; each prints one JSON object on stdout.
#include "auditbench.h"
#include "benchutil.h"
#include "consolebench.h"
#include "heldpanelbench.h"
#include "lookupbench.h"
#include "pickupbench.h"
#include "plot.h"
#include "querybench.h"
#include "runbench.h"
#include "scanbench.h"
#include "service/recoveryworker.h"

#include <QApplication>
#include <QCoreApplication>
#include <QTextStream>
#include <memory>

using namespace reclaim::bench;

namespace {

const char *const kUsage =
    "usage: reclaim_bench query   --config F [--reps N]\n"
    "       reclaim_bench lookup  --config F --ids FILE [--domain D] [--reps N]\n"
    "       reclaim_bench scan    --config F [--ids FILE [--domain D]] [--reps N] "
    "[--unresolved-out FILE]\n"
    "       reclaim_bench run     --config F [--apply]\n"
    "       reclaim_bench console --config F [--reps N]\n"
    "       reclaim_bench held-panel [--synthetic N] [--reps N]\n"
    "       reclaim_bench audit   --config F [--rows N] [--reps N] [--scroll-pages N] [--idle-ms "
    "MS]\n"
    "       reclaim_bench plot    --in latest.json --out plot.png\n"
    "       reclaim_bench pickup  --config F --versions-dir refapp/bullmq-versions [--versions "
    "4,5,6] [--n 200] [--redis URL]\n";

} // namespace

int main(int argc, char **argv)
{
    const QString command = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QString();
    const bool gui = command == QLatin1String("console") || command == QLatin1String("audit") ||
                     command == QLatin1String("held-panel") || command == QLatin1String("plot");
    if (gui && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    std::unique_ptr<QCoreApplication> app(gui ? new QApplication(argc, argv)
                                              : new QCoreApplication(argc, argv));
    reclaim::registerMetaTypes();
    const QStringList rest = QCoreApplication::arguments().mid(2);
    const Args args(rest, {QStringLiteral("apply")});
    if (!args.error().isEmpty()) {
        QTextStream(stderr) << "reclaim_bench: " << args.error() << "\n" << kUsage;
        return 2;
    }
    if (command == QLatin1String("query"))
        return runQueryBench(args);
    if (command == QLatin1String("lookup"))
        return runLookupBench(args);
    if (command == QLatin1String("scan"))
        return runScanBench(args);
    if (command == QLatin1String("run"))
        return runRunBench(args);
    if (command == QLatin1String("console"))
        return runConsoleBench(args);
    if (command == QLatin1String("held-panel"))
        return runHeldPanelBench(args);
    if (command == QLatin1String("audit"))
        return runAuditBench(args);
    if (command == QLatin1String("pickup"))
        return runPickupBench(args);
    if (command == QLatin1String("plot"))
        return runPlot(args);
    QTextStream(stderr) << kUsage;
    return 2;
}
