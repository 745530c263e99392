#include "consolemode.h"
#include "daemonmode.h"
#include "exitcodes.h"
#include "oncecommand.h"

#include <QTextStream>

namespace reclaim {

int runInteractiveOrDaemon(int argc, char **argv, const CommandLine &cmd)
{
    if (cmd.mode == CommandLine::Mode::Daemon)
        return runDaemon(argc, argv, cmd);
    if (cmd.mode == CommandLine::Mode::Console)
        return runConsole(argc, argv, cmd);
    QTextStream(stderr) << "reclaim: "
                        << (cmd.mode == CommandLine::Mode::Daemon ? "--daemon" : "the console")
                        << " is not available in this build yet; use --once\n";
    return exitcode::Usage;
}

} // namespace reclaim
