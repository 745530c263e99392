// Renders one candidate's evidence, planned action, payloads and database row as HTML for the
// details panel: what Reclaim saw, why it decided so, and what it would do.
#pragma once

#include "domain/action.h"
#include "domain/verdict.h"

#include <QByteArray>
#include <QString>

namespace reclaim::ui {

// JSON pretty-printed (indented); anything that is not JSON comes back as it was.
QString prettyJson(const QByteArray &bytes);

// `action`: the planned action, null when none is planned.
QString evidenceHtml(const CandidateVerdict &verdict, const Action *action, bool approving);

} // namespace reclaim::ui
