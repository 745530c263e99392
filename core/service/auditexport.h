// Writes audit rows to a file as CSV (one header line, cells as util/csvcell.h writes them) or JSON
// (an array of objects), for the console's "Export audit".
#pragma once

#include "ports/audittrail.h"

#include <QSaveFile>
#include <QString>

namespace reclaim {

class AuditFileWriter final
{
public:
    // JSON for a ".json" name, CSV otherwise. False, and why in `error`, when it cannot open.
    bool open(const QString &path, QString *error);
    void write(const QList<AuditEntry> &entries);
    // Completes the file (the JSON array's end) and puts it in place. False on a write error.
    bool finish(QString *error);
    // Leaves whatever was at the path untouched.
    void cancel();
    qint64 written() const { return m_written; }

private:
    QSaveFile m_file;
    bool m_json = false;
    qint64 m_written = 0;
};

} // namespace reclaim
