#include "preflight/checkreport.h"

#include "config/connectionurl.h"

#include <QJsonArray>

namespace reclaim {

void CheckReport::add(const QString &id, CheckStatus status, const QString &summary,
                      const QString &fix)
{
    items.append(CheckItem{id, status, redactSecrets(summary), redactSecrets(fix)});
}

void CheckReport::couldNotCheck(const QStringList &ids, const QString &why, const QString &fix)
{
    for (const QString &id : ids)
        add(id, CheckStatus::Fail, QStringLiteral("could not check: %1").arg(why), fix);
}

CheckStatus CheckReport::result() const
{
    if (items.isEmpty())
        return CheckStatus::Fail;
    CheckStatus worst = CheckStatus::Pass;
    for (const CheckItem &i : items)
        if (static_cast<int>(i.status) > static_cast<int>(worst))
            worst = i.status;
    return worst;
}

const CheckItem *CheckReport::item(const QString &id) const
{
    for (const CheckItem &i : items)
        if (i.id == id)
            return &i;
    return nullptr;
}

QStringList CheckReport::ids(CheckStatus status) const
{
    QStringList out;
    for (const CheckItem &i : items)
        if (i.status == status)
            out << i.id;
    return out;
}

QString CheckReport::statusName(CheckStatus status)
{
    switch (status) {
    case CheckStatus::Pass:
        return QStringLiteral("pass");
    case CheckStatus::Warn:
        return QStringLiteral("warn");
    case CheckStatus::Fail:
        break;
    }
    return QStringLiteral("fail");
}

QJsonObject CheckReport::toJson() const
{
    QJsonArray list;
    for (const CheckItem &i : items)
        list.append(QJsonObject{{QStringLiteral("id"), i.id},
                                {QStringLiteral("status"), statusName(i.status)},
                                {QStringLiteral("summary"), i.summary},
                                {QStringLiteral("fix"), i.fix}});
    return QJsonObject{{QStringLiteral("version"), kJsonVersion},
                       {QStringLiteral("result"), statusName(result())},
                       {QStringLiteral("elapsedMs"), elapsedMs},
                       {QStringLiteral("items"), list}};
}

} // namespace reclaim
