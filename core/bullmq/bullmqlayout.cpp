#include "bullmq/bullmqlayout.h"

#include <QRegularExpression>

namespace reclaim {

BullmqLayout BullmqLayout::fromMetaVersion(const QString &version)
{
    BullmqLayout layout;
    layout.version = version;
    if (version.isEmpty())
        return layout;
    // "bullmq:<major>.<minor>.<patch>[-pre]": BullMQ's Queue writes `${libName}:${version}`.
    // A fork or a pro build names another library, whose layout is not BullMQ's to assume.
    static const QRegularExpression stamp(QStringLiteral("^bullmq:(\\d+)\\.\\d+\\.\\d+(-\\S+)?$"));
    const QRegularExpressionMatch m = stamp.match(version);
    layout.family = Family::Unknown;
    if (!m.hasMatch())
        return layout;
    const int major = m.captured(1).toInt();
    if (major == 4)
        layout.family = Family::Bullmq4;
    else if (major == 5)
        layout.family = Family::Bullmq5;
    else if (major == 6)
        layout.family = Family::Bullmq6;
    return layout;
}

BullmqLayout BullmqLayout::forWriting(const QString &version, const QString &ifUnstamped)
{
    BullmqLayout layout = fromMetaVersion(version);
    if (layout.family != Family::Unstamped || ifUnstamped.isEmpty())
        return layout;
    if (ifUnstamped == QLatin1String("4"))
        layout.family = Family::Bullmq4;
    else if (ifUnstamped == QLatin1String("5"))
        layout.family = Family::Bullmq5;
    else if (ifUnstamped == QLatin1String("6"))
        layout.family = Family::Bullmq6;
    else
        return layout; // the loader accepts nothing else; never guess
    layout.assumed = true;
    return layout;
}

QString BullmqLayout::describe() const
{
    if (family == Family::Unstamped)
        return QStringLiteral("no stamp");
    if (family == Family::Unknown)
        return QStringLiteral("unknown layout '%1'").arg(version);
    if (assumed)
        return QStringLiteral(
                   "bullmq %1.x (no stamp in its meta hash: domains[].bullmqIfUnstamped)")
            .arg(familyTag());
    return QStringLiteral("bullmq %1.x (stamp %2)").arg(familyTag(), version);
}

bool BullmqLayout::writable() const
{
    return !familyTag().isEmpty();
}

QString BullmqLayout::familyTag() const
{
    switch (family) {
    case Family::Bullmq4:
        return QStringLiteral("4");
    case Family::Bullmq5:
        return QStringLiteral("5");
    case Family::Bullmq6:
        return QStringLiteral("6");
    case Family::Unstamped:
    case Family::Unknown:
        break;
    }
    return {};
}

QString BullmqLayout::refusal(const QString &queue) const
{
    if (family == Family::Unstamped)
        return QStringLiteral("queue %1: its meta hash has no BullMQ version (no BullMQ Queue has "
                              "opened it since it was created or since Redis lost its data), so "
                              "which layout an add writes is not known; nothing written. Set "
                              "domains[].bullmqIfUnstamped to the BullMQ major the application "
                              "runs (4, 5 or 6) to requeue into it anyway")
            .arg(queue);
    if (family == Family::Unknown)
        return QStringLiteral("queue %1: unknown BullMQ layout '%2' (Reclaim knows bullmq 4.x, "
                              "5.x and 6.x); not read and nothing written")
            .arg(queue, version);
    return {};
}

} // namespace reclaim
