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
#   preflight `reclaim --check`: read-only checks of the deployment against the real servers
#
# config may read domain values (the policy an action carries, domain/policy.h) and never the
# other way round: domain stays free of configuration.
#
# preflight is a folder of its own above the adapters rather than checks spread beside each
# adapter: a check reads what several adapters know at once (the fence row in PostgreSQL against
# the lock's counter in Redis, the commands of every script with every queue's keys), and none of
# it may leak into a run's code path. It sits under service/, which runs it on a worker thread.
set(RECLAIM_LAYER_util     "")
set(RECLAIM_LAYER_config   "util;domain")
set(RECLAIM_LAYER_domain   "util")
set(RECLAIM_LAYER_ports    "util;config;domain")
set(RECLAIM_LAYER_redis    "util;config;ports")
set(RECLAIM_LAYER_fencing  "util;config;domain;ports;redis")
set(RECLAIM_LAYER_recovery "util;config;domain;ports;fencing")
set(RECLAIM_LAYER_bullmq   "util;config;domain;ports;redis")
set(RECLAIM_LAYER_postgres "util;config;domain;ports;fencing")
set(RECLAIM_LAYER_preflight "util;config;domain;ports;redis;fencing;bullmq;postgres")
set(RECLAIM_LAYER_service  "util;config;domain;ports;redis;fencing;recovery;bullmq;postgres;preflight")
