#include "service/auditexport.h"

#include "config/connectionurl.h"
#include "util/csvcell.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace reclaim {

namespace {

QStringList fields(const AuditEntry &e)
{
    return {QString::number(e.id),
            e.at.toUTC().toString(Qt::ISODateWithMs),
            e.domain,
            e.rowId,
            e.action,
            e.result,
            e.actorKind,
            e.actorUser,
            e.actorHost,
            e.runId,
            QString::number(e.generation),
            e.observedStatus,
            e.observedUpdatedAt,
            redactSecrets(e.detail)};
}

const QStringList &names()
{
    static const QStringList n{QStringLiteral("id"),
                               QStringLiteral("at"),
                               QStringLiteral("domain"),
                               QStringLiteral("rowId"),
                               QStringLiteral("action"),
                               QStringLiteral("result"),
                               QStringLiteral("actorKind"),
                               QStringLiteral("actorUser"),
                               QStringLiteral("actorHost"),
                               QStringLiteral("runId"),
                               QStringLiteral("generation"),
                               QStringLiteral("observedStatus"),
                               QStringLiteral("observedUpdatedAt"),
                               QStringLiteral("detail")};
    return n;
}

} // namespace

bool AuditFileWriter::open(const QString &path, QString *error)
{
    m_json = path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive);
    m_file.setFileName(path);
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, m_file.errorString());
        return false;
    }
    m_written = 0;
    if (m_json)
        m_file.write("[\n");
    else
        m_file.write(names().join(QLatin1Char(',')).toUtf8() + "\r\n");
    return true;
}

void AuditFileWriter::write(const QList<AuditEntry> &entries)
{
    for (const AuditEntry &e : entries) {
        const QStringList f = fields(e);
        if (m_json) {
            QJsonObject o;
            for (qsizetype i = 0; i < f.size(); ++i)
                o.insert(names().at(i), f.at(i));
            o.insert(QStringLiteral("id"), e.id);
            o.insert(QStringLiteral("generation"), e.generation);
            if (m_written > 0)
                m_file.write(",\n");
            m_file.write(QJsonDocument(o).toJson(QJsonDocument::Compact));
        } else {
            QStringList quoted;
            quoted.reserve(f.size());
            for (const QString &s : f)
                quoted << csvCell(s);
            m_file.write(quoted.join(QLatin1Char(',')).toUtf8() + "\r\n");
        }
        ++m_written;
    }
}

bool AuditFileWriter::finish(QString *error)
{
    if (m_json)
        m_file.write("\n]\n");
    const bool ok = m_file.commit();
    if (!ok && error)
        *error = QStringLiteral("%1: %2").arg(m_file.fileName(), m_file.errorString());
    return ok;
}

void AuditFileWriter::cancel()
{
    m_file.cancelWriting();
    m_file.commit(); // after cancelWriting: discards the temporary file, leaves the target alone
}

} // namespace reclaim
