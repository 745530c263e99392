#include "benchutil.h"

#include "config/configloader.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>
#include <algorithm>

namespace reclaim::bench {

Args::Args(const QStringList &argv, const QStringList &flags)
{
    for (qsizetype i = 0; i < argv.size(); ++i) {
        const QString &a = argv.at(i);
        if (!a.startsWith(QLatin1String("--"))) {
            m_error = QStringLiteral("unexpected argument '%1'").arg(a);
            return;
        }
        const QString name = a.mid(2);
        if (flags.contains(name)) {
            m_flags << name;
            continue;
        }
        if (i + 1 >= argv.size()) {
            m_error = QStringLiteral("--%1 needs a value").arg(name);
            return;
        }
        m_values.insert(name, argv.at(++i));
    }
}

QString Args::value(const QString &name, const QString &fallback) const
{
    return m_values.value(name, fallback);
}

int Args::number(const QString &name, int fallback) const
{
    bool ok = false;
    const int n = m_values.value(name).toInt(&ok);
    return ok ? n : fallback;
}

Expected<ReclaimConfig, QString> loadConfig(const QString &path)
{
    auto config = ConfigLoader::loadFile(path);
    if (!config)
        return unexpected(config.error().toString());
    return *config;
}

Expected<QList<Candidate>, QString> candidatesFromFile(const QString &path, const QString &domain)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
        return unexpected(QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    QList<Candidate> out;
    const QList<QByteArray> lines = f.readAll().split('\n');
    for (const QByteArray &line : lines) {
        const QString id = QString::fromUtf8(line.trimmed());
        if (id.isEmpty())
            continue;
        Candidate c;
        c.domain = domain;
        c.id = id;
        c.status = QStringLiteral("QUEUED");
        out << c;
    }
    return out;
}

double median(QList<double> values)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    const qsizetype n = values.size();
    return n % 2 ? values.at(n / 2) : (values.at(n / 2 - 1) + values.at(n / 2)) / 2;
}

QJsonObject summarize(const QList<double> &values)
{
    QJsonArray samples;
    for (double v : values)
        samples.append(v);
    return {{QStringLiteral("median"), median(values)},
            {QStringLiteral("min"),
             values.isEmpty() ? 0 : *std::min_element(values.begin(), values.end())},
            {QStringLiteral("max"),
             values.isEmpty() ? 0 : *std::max_element(values.begin(), values.end())},
            {QStringLiteral("samples"), samples}};
}

namespace {

qint64 statusField(const char *name)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray prefix = QByteArray(name) + ':';
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith(prefix))
            return line.mid(prefix.size()).trimmed().split(' ').value(0).toLongLong();
    return -1;
}

} // namespace

qint64 peakRssKiB()
{
    return statusField("VmHWM");
}

qint64 rssKiB()
{
    return statusField("VmRSS");
}

void printJson(const QJsonObject &object)
{
    QTextStream(stdout) << QJsonDocument(object).toJson(QJsonDocument::Compact) << "\n";
}

int fail(const QString &message)
{
    QTextStream(stderr) << "reclaim_bench: " << message << "\n";
    return 1;
}

} // namespace reclaim::bench
