// The seeded reference incident prepared for the console's integration tests: sandbox reset,
// schema migrated, the incident seeded with live workers holding their jobs, and one candidate
// made UNKNOWN for real (its job key holds a string, so Redis answers WRONGTYPE).
#pragma once

#include "connectionprofile.h"
#include "support/refapp.h"

#include <memory>

namespace reclaim::test {

class ConsoleIncident final
{
public:
    // Fails the calling test if a step fails; skips it when no sandbox is configured.
    explicit ConsoleIncident(int seed);
    ~ConsoleIncident();
    Q_DISABLE_COPY_MOVE(ConsoleIncident)

    bool sandboxAvailable() const { return !m_env.pgUrl.isEmpty(); }
    bool ready() const { return m_ready; }
    const SandboxEnv &env() const { return m_env; }
    const SeededIncident &incident() const { return *m_incident; }
    // The first manifest row of `kind` (in `domain`, when given).
    QJsonObject row(const QString &kind, const QString &domain = {}) const;
    static QString keyOf(const QJsonObject &row);
    QString unknownKey() const { return m_unknownKey; }

    // The sandbox as a console profile: URLs without passwords, the password in memory only.
    ui::ConnectionProfile profile() const;

private:
    SandboxEnv m_env;
    std::unique_ptr<SeededIncident> m_incident;
    QString m_unknownKey;
    bool m_ready = false;
};

} // namespace reclaim::test
