#include "domain/locktoken.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QHostInfo>
#include <QRandomGenerator>
#include <QStringList>

namespace reclaim {

QString makeLockToken()
{
    return QStringLiteral("reclaim;host=%1;pid=%2;since=%3;nonce=%4")
        .arg(QHostInfo::localHostName())
        .arg(QCoreApplication::applicationPid())
        .arg(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs))
        .arg(QRandomGenerator::system()->generate64(), 16, 16, QLatin1Char('0'));
}

bool isThisProcess(const LockHolder &holder)
{
    return holder.parsed && holder.pid == QCoreApplication::applicationPid() &&
           holder.host == QHostInfo::localHostName();
}

LockHolder parseLockToken(const QString &token)
{
    LockHolder h;
    const QStringList parts = token.split(QLatin1Char(';'));
    if (parts.value(0) != QLatin1String("reclaim"))
        return h;
    for (const QString &part : parts) {
        const qsizetype eq = part.indexOf(QLatin1Char('='));
        if (eq < 0)
            continue;
        const QString k = part.left(eq);
        const QString v = part.mid(eq + 1);
        if (k == QLatin1String("host"))
            h.host = v;
        else if (k == QLatin1String("pid"))
            h.pid = v.toLongLong();
        else if (k == QLatin1String("since"))
            h.since = v;
    }
    h.parsed = !h.host.isEmpty();
    return h;
}

} // namespace reclaim
