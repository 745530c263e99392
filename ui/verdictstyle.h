// How verdicts and action results look on screen: a word, a glyph, a shape and a colour, so that
// none of them is ever told by colour alone.
#pragma once

#include "domain/action.h"
#include "domain/verdict.h"

#include <QColor>
#include <QIcon>
#include <QString>

namespace reclaim::ui {

// Worst first: UNKNOWN (could not look) 0, ABSENT (orphaned) 1, SCHEDULED (fine) 2.
int verdictSeverity(Verdict v);
QString verdictGlyph(Verdict v);
QColor verdictColor(Verdict v);
QIcon verdictIcon(Verdict v);
// What the verdict means for the operator, for tooltips.
QString verdictMeaning(Verdict v);

QString actionResultText(ActionResult r);
// The one word the actions table shows ("awaiting" rather than "awaiting approval"); the full
// text and the meaning are in its tooltip.
QString actionResultShortText(ActionResult r);
QColor actionResultColor(ActionResult r);
QIcon actionResultIcon(ActionResult r);
QString actionResultMeaning(ActionResult r);
// The result as the operator reads it: "rejected by alice@ops1" for a rejection, else the text.
QString actionOutcomeText(const Action &a);

// The "approval in flight" state, which is the console's, not the core's.
QIcon runningIcon();
// A pending action held back because the tables show an earlier run (the latest was skipped).
QIcon heldIcon();
// Text of rows that are what an earlier run saw, not the latest.
QColor staleColor();

} // namespace reclaim::ui
