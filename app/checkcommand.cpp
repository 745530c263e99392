#include "checkcommand.h"

#include "checkprinter.h"
#include "config/configloader.h"
#include "exitcodes.h"
#include "preflight/preflight.h"

#include <QJsonDocument>
#include <QTextStream>

namespace reclaim {

int runCheck(const CommandLine &cmd)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    auto config = ConfigLoader::loadFile(cmd.configPath);
    if (!config) {
        // The same error and exit code as every mode; --json still gets its one-item report so
        // a pipeline reading stdout sees why.
        err << "reclaim: configuration error: " << config.error().toString() << "\n";
        if (cmd.json)
            out << QJsonDocument(configFailureReport(config.error()).toJson())
                       .toJson(QJsonDocument::Indented);
        return exitcode::ConfigError;
    }
    const CheckReport report = runPreflight(*config);
    if (cmd.json)
        out << QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented);
    else
        out << formatCheckReport(report);
    return exitCodeForCheck(report);
}

} // namespace reclaim
