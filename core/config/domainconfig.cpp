#include "config/domainconfig.h"

namespace reclaim {

namespace {
bool appliesTo(const QStringList &types, const QString &type)
{
    return types.isEmpty() || types.contains(type);
}
} // namespace

QString DomainConfig::currentJobId(const QString &rowId, const QString &type) const
{
    QString id = jobIdTemplate;
    // Made for every candidate of a run, twice: the type lowered only where it is used.
    if (id.contains(QLatin1String("{type}")))
        id.replace(QStringLiteral("{type}"), type.toLower());
    id.replace(QStringLiteral("{id}"), rowId);
    return id;
}

const RestoreRule *DomainConfig::restoreFor(const QString &type) const
{
    return restore && appliesTo(restore->types, type) ? &*restore : nullptr;
}

const ParentRule *DomainConfig::parentFor(const QString &type) const
{
    for (const ParentRule &rule : parents)
        if (appliesTo(rule.types, type))
            return &rule;
    return nullptr;
}

} // namespace reclaim
