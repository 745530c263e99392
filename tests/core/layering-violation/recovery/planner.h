// The stage a misplaced port includes (see ../ports/jobstore.h).
#pragma once
