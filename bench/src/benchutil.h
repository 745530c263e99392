// Small helpers every measurement shares: arguments, configuration, medians, memory figures and
// the one JSON object each subcommand prints.
#pragma once

#include "config/reclaimconfig.h"
#include "domain/candidate.h"
#include "util/expected.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace reclaim::bench {

// `--name value` pairs and bare `--flag`s after the subcommand.
class Args final
{
public:
    Args(const QStringList &argv, const QStringList &flags);

    QString value(const QString &name, const QString &fallback = {}) const;
    int number(const QString &name, int fallback) const;
    bool flag(const QString &name) const { return m_flags.contains(name); }
    // The first problem found (unknown option, missing value), empty when there is none.
    QString error() const { return m_error; }

private:
    QHash<QString, QString> m_values;
    QStringList m_flags;
    QString m_error;
};

Expected<ReclaimConfig, QString> loadConfig(const QString &path);

// Candidates of `domain` from a file of row ids (one a line), as the job store would return them.
Expected<QList<Candidate>, QString> candidatesFromFile(const QString &path, const QString &domain);

double median(QList<double> values);
// {"median": m, "min": a, "max": b, "samples": [...]}
QJsonObject summarize(const QList<double> &values);

// Peak and current resident set size of this process, from /proc/self/status (KiB).
qint64 peakRssKiB();
qint64 rssKiB();

void printJson(const QJsonObject &object);
int fail(const QString &message);

} // namespace reclaim::bench
