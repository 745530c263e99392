// reclaim: parse the command line first, then build the application object the mode needs —
// QCoreApplication headless (--once, --check, --daemon), QApplication for the console.
#include "checkcommand.h"
#include "commandline.h"
#include "exitcodes.h"
#include "heldcommand.h"
#include "oncecommand.h"

#include <QCoreApplication>
#include <QTextStream>
#include <cstdio>

int main(int argc, char **argv)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    const reclaim::CommandLineResult parsed = reclaim::parseCommandLine(arguments);
    QTextStream err(stderr);
    if (!parsed.options) {
        err << "reclaim: " << parsed.error << "\n(see reclaim --help)\n";
        return reclaim::exitcode::Usage;
    }
    const reclaim::CommandLine &cmd = *parsed.options;
    switch (cmd.mode) {
    case reclaim::CommandLine::Mode::Help:
        QTextStream(stdout) << parsed.helpText;
        return reclaim::exitcode::Ran;
    case reclaim::CommandLine::Mode::Version:
        QTextStream(stdout) << "reclaim " << RECLAIM_VERSION << "\n";
        return reclaim::exitcode::Ran;
    case reclaim::CommandLine::Mode::Once: {
        QCoreApplication app(argc, argv);
        return reclaim::runOnce(cmd);
    }
    case reclaim::CommandLine::Mode::Check: {
        QCoreApplication app(argc, argv);
        return reclaim::runCheck(cmd);
    }
    case reclaim::CommandLine::Mode::Held:
    case reclaim::CommandLine::Mode::Approve:
    case reclaim::CommandLine::Mode::Reject: {
        QCoreApplication app(argc, argv);
        return reclaim::runHeldCommand(cmd);
    }
    case reclaim::CommandLine::Mode::Daemon:
    case reclaim::CommandLine::Mode::Console:
        break;
    }
    return reclaim::runInteractiveOrDaemon(argc, argv, cmd);
}
