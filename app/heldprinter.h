// How held actions and the decisions about them are shown on a terminal and in --json.
#pragma once

#include "recovery/heldapproval.h"

#include <QString>

namespace reclaim {

class JsonWriter;

// One entry, or one decision, as a JSON object (--list-held --json, --approve/--reject --json).
void writeHeldAction(JsonWriter &w, const HeldAction &h);
void writeHeldDecision(JsonWriter &w, const HeldDecision &d);

// Grouped by domain and the guard's limit (or the policy), oldest first, one line per action.
QString formatHeldList(const QList<HeldAction> &held);
// One line: "41 image/ij_1 FAIL: executed — applied: ...".
QString formatHeldDecision(const HeldDecision &d);

} // namespace reclaim
