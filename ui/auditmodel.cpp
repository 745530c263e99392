#include "auditmodel.h"

#include "config/connectionurl.h"

#include <QTimeZone>

namespace reclaim::ui {

AuditModel::AuditModel(QObject *parent) : QAbstractTableModel(parent) {}

int AuditModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int AuditModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

QString operatorText(const AuditEntry &e)
{
    // As the rejection names its operator: the user, or the kind where no user name is known.
    const QString who = e.actorUser.isEmpty() ? e.actorKind : e.actorUser;
    const QString where = e.actorHost.isEmpty() ? who : who + u'@' + e.actorHost;
    return e.actorUser.isEmpty() ? where : QStringLiteral("%1 (%2)").arg(where, e.actorKind);
}

} // namespace

QVariant AuditModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const AuditEntry &e = m_entries.at(index.row());
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case TimeColumn:
            return m_timeTexts.at(index.row());
        case ResultColumn:
            return e.result;
        case JobColumn:
            return e.domain + u'/' + e.rowId;
        case ActionColumn:
            return e.action;
        case OperatorColumn:
            return operatorText(e);
        case PreconditionColumn:
            return QStringLiteral("%1 \u00b7 %2").arg(e.observedStatus, e.observedUpdatedAt);
        case DetailColumn:
            return redactSecrets(e.detail);
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
        case PreconditionColumn:
            return QStringLiteral("The row as Reclaim saw it: status %1, updatedAt %2; generation "
                                  "%3")
                .arg(e.observedStatus, e.observedUpdatedAt)
                .arg(e.generation);
        case OperatorColumn:
            return QStringLiteral("%1, run %2").arg(operatorText(e), e.runId);
        case TimeColumn:
            return e.at.toUTC().toString(Qt::ISODateWithMs);
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    return {};
}

QVariant AuditModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
        section >= ColumnCount)
        return {};
    static const char *const names[] = {"Time",     "Result",       "Job",   "Action",
                                        "Operator", "Precondition", "Detail"};
    return QString::fromLatin1(names[section]);
}

bool AuditModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && m_more && !m_loading && !m_failed;
}

void AuditModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    m_loading = true;
    emit moreRequested();
}

void AuditModel::clear()
{
    beginResetModel();
    m_entries.clear();
    m_timeTexts.clear();
    m_more = false;
    m_loading = false;
    m_failed = false;
    endResetModel();
}

void AuditModel::appendPage(const AuditPage &page)
{
    m_loading = false;
    m_more = page.more;
    if (page.entries.isEmpty())
        return;
    const int first = static_cast<int>(m_entries.size());
    beginInsertRows({}, first, first + static_cast<int>(page.entries.size()) - 1);
    m_entries << page.entries;
    const QTimeZone local = QTimeZone::systemTimeZone();
    for (const AuditEntry &e : page.entries)
        m_timeTexts << e.at.toTimeZone(local).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    endInsertRows();
}

void AuditModel::setFailed(bool failed)
{
    m_failed = failed;
    m_loading = false;
}

} // namespace reclaim::ui
