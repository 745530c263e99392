# Which folder of core/ may include which: the arrows run one way, from the composition root down
# to the domain values. A folder not listed here, or an include of a folder not in its list, fails
# the core_layering test (tests/core/checklayering.cmake).
#
#   service   the composition root and the worker thread
#   postgres  the job store on PostgreSQL          bullmq  the queue ports on BullMQ's Redis layout
#   recovery  the stages of a run                  fencing lock, lease and fence
#   redis     the hiredis connection               ports   what the stages need from the outside
#   domain    candidates, verdicts, actions, reports
#   config    configuration types and loader       util    small helpers
set(RECLAIM_LAYER_util     "")
set(RECLAIM_LAYER_config   "util")
set(RECLAIM_LAYER_domain   "util")
set(RECLAIM_LAYER_ports    "util;config;domain")
set(RECLAIM_LAYER_redis    "util;config;ports")
set(RECLAIM_LAYER_fencing  "util;config;domain;ports;redis")
set(RECLAIM_LAYER_recovery "util;config;domain;ports;fencing")
set(RECLAIM_LAYER_bullmq   "util;config;domain;ports;redis")
set(RECLAIM_LAYER_postgres "util;config;domain;ports;fencing")
set(RECLAIM_LAYER_service  "util;config;domain;ports;redis;fencing;recovery;bullmq;postgres")
