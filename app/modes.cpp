#include "oncecommand.h"

#include "exitcodes.h"

#include <QTextStream>

namespace reclaim {

int runInteractiveOrDaemon(int, char **, const CommandLine &cmd)
{
    QTextStream(stderr) << "reclaim: "
                        << (cmd.mode == CommandLine::Mode::Daemon ? "--daemon" : "the console")
                        << " is not available in this build yet; use --once\n";
    return exitcode::Usage;
}

} // namespace reclaim
