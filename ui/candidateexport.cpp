#include "candidateexport.h"

#include "actionsmodel.h"
#include "util/csvcell.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace reclaim::ui {

namespace {

const QStringList kColumns{
    QStringLiteral("domain"),       QStringLiteral("id"),           QStringLiteral("type"),
    QStringLiteral("dbStatus"),     QStringLiteral("updatedAt"),    QStringLiteral("ageSeconds"),
    QStringLiteral("verdict"),      QStringLiteral("evidence"),     QStringLiteral("plannedAction"),
    QStringLiteral("actionResult"), QStringLiteral("precondition"), QStringLiteral("runId"),
    QStringLiteral("stale")};

qint64 ageOf(const CandidateRow &r, const ExportedRun &run)
{
    if (!r.updatedAtSecs || !run.ageReference.isValid())
        return -1;
    return run.ageReference.toSecsSinceEpoch() - *r.updatedAtSecs;
}

QStringList fieldsOf(const CandidateRow &r, const ExportedRun &run)
{
    const Candidate &c = r.verdict->candidate;
    return {c.domain,
            c.id,
            c.type,
            c.status,
            c.updatedAtText,
            QString::number(ageOf(r, run)),
            verdictName(r.verdict->verdict),
            r.summary(),
            r.planned,
            r.action ? actionResultName(r.action->result) : QString(),
            r.action ? preconditionText(r.action->precondition) : QString(),
            run.runId,
            run.stale ? QStringLiteral("true") : QStringLiteral("false")};
}

} // namespace

ExportFormat exportFormatFor(const QString &path)
{
    return path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) ? ExportFormat::Json
                                                                       : ExportFormat::Csv;
}

QByteArray candidatesCsv(const QList<const CandidateRow *> &rows, const ExportedRun &run)
{
    QString out = kColumns.join(QLatin1Char(',')) + QStringLiteral("\r\n");
    for (const CandidateRow *r : rows) {
        QStringList cells;
        for (const QString &f : fieldsOf(*r, run))
            cells << csvCell(f);
        out += cells.join(QLatin1Char(',')) + QStringLiteral("\r\n");
    }
    return out.toUtf8();
}

QByteArray candidatesJson(const QList<const CandidateRow *> &rows, const ExportedRun &run)
{
    QJsonArray candidates;
    for (const CandidateRow *r : rows) {
        const Candidate &c = r->verdict->candidate;
        QJsonObject o{{QStringLiteral("domain"), c.domain},
                      {QStringLiteral("id"), c.id},
                      {QStringLiteral("type"), c.type},
                      {QStringLiteral("dbStatus"), c.status},
                      {QStringLiteral("updatedAt"), c.updatedAtText},
                      {QStringLiteral("ageSeconds"), ageOf(*r, run)},
                      {QStringLiteral("verdict"), verdictName(r->verdict->verdict)},
                      {QStringLiteral("evidence"), r->summary()},
                      {QStringLiteral("plannedAction"), r->planned}};
        if (r->action) {
            const Action &a = *r->action;
            o.insert(QStringLiteral("action"),
                     QJsonObject{
                         {QStringLiteral("kind"), actionKindName(a.kind)},
                         {QStringLiteral("result"), actionResultName(a.result)},
                         {QStringLiteral("detail"), actionDetailText(a)},
                         {QStringLiteral("precondition"),
                          QJsonObject{{QStringLiteral("status"), a.precondition.status},
                                      {QStringLiteral("updatedAt"), a.precondition.updatedAtText},
                                      {QStringLiteral("generation"), a.precondition.generation}}}});
        }
        candidates.append(o);
    }
    QJsonObject runObject{
        {QStringLiteral("id"), run.runId},
        {QStringLiteral("startedAt"), run.startedAt.toUTC().toString(Qt::ISODateWithMs)},
        {QStringLiteral("stale"), run.stale}};
    if (run.stale)
        runObject.insert(QStringLiteral("staleBecause"), run.staleWhy);
    const QJsonObject root{{QStringLiteral("run"), runObject},
                           {QStringLiteral("count"), static_cast<int>(rows.size())},
                           {QStringLiteral("candidates"), candidates}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

bool writeCandidates(const QString &path, const QList<const CandidateRow *> &rows,
                     const ExportedRun &run, QString *error)
{
    const QByteArray bytes = exportFormatFor(path) == ExportFormat::Json ? candidatesJson(rows, run)
                                                                         : candidatesCsv(rows, run);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error)
            *error = QStringLiteral("could not write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace reclaim::ui
