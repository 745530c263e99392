// The result of `reclaim --check`: one item per thing checked, each pass, warn or fail with one
// line of why and the fix, and its stable JSON form (version 1) that deployment pipelines gate on.
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace reclaim {

enum class CheckStatus
{
    Pass,
    Warn,
    Fail // also "could not check": an item that could not be looked at never passes
};

struct CheckItem
{
    QString id; // stable, e.g. "redis.maxmemory-policy", "postgres.index.video"
    CheckStatus status = CheckStatus::Fail;
    QString summary; // what was seen, one line
    QString fix;     // what to do about it; empty when there is nothing to do
};

struct CheckReport
{
    static constexpr int kJsonVersion = 1;

    QList<CheckItem> items;
    qint64 elapsedMs = 0;

    // Adds an item; summary and fix are passed through redactSecrets on the way in.
    void add(const QString &id, CheckStatus status, const QString &summary,
             const QString &fix = {});
    // The same failure for every id: they depend on something that could not be looked at.
    void couldNotCheck(const QStringList &ids, const QString &why, const QString &fix = {});

    // The worst status of any item (Fail for a report without items: nothing was checked).
    CheckStatus result() const;
    const CheckItem *item(const QString &id) const;
    // The ids of the items in `status`.
    QStringList ids(CheckStatus status) const;

    // {"version": 1, "result": "pass|warn|fail", "elapsedMs": n,
    //  "items": [{"id", "status", "summary", "fix"}, ...]}
    QJsonObject toJson() const;

    static QString statusName(CheckStatus status); // "pass", "warn", "fail"
};

} // namespace reclaim
