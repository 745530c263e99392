// A port that reaches up into the stages above it: the layering check must refuse this tree.
#pragma once

#include "recovery/planner.h"
