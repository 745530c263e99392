#!/usr/bin/env node
'use strict';
// The seed-style peer of the mass-recovery benchmark (issue 30): the obvious script an app team
// writes after a Redis lost its data, with the real bullmq and pg clients. It reads the candidate
// rows once (status QUEUED/PROCESSING, updatedAt older than the threshold), then per candidate:
// queue.getJob(id) + job.getState(); if the job is absent (or not runnable):
//   requeue: SELECT payload::text … WHERE id = $1, queue.add(name, payload, { jobId }), then in
//            one transaction the conditional UPDATE (id, status, updatedAt as read) and one
//            INSERT into peer_audit;
//   fail:    in one transaction the conditional UPDATE to FAILED, the parent row set FAILED while
//            it is still in progress (only after a 1-row write, as Reclaim's parent rule does),
//            and one INSERT into peer_audit.
// A parent rule does nothing on a requeue (Reclaim's does not either).
//
//   node bench/node/peer-recover.js --pg URL --redis URL --kind requeue|fail --concurrency 1|64
//        [--pool N] [--threshold-seconds 3600] [--parents]
// Prints one JSON line: counts, wall time, peak RSS, Redis commands sent (counted client-side).

const { refRequire, common } = require('../workload/common');
const { QUEUE, JOB_NAME, JOB_ID_PREFIX } = require('../workload/incident');

const IORedis = refRequire('ioredis');
const { Pipeline } = IORedis;
const { Queue } = refRequire('bullmq');
const pg = refRequire('pg');

// Every command this process sends to Redis, counted once each (ioredis re-sends a command
// queued while connecting through sendCommand again). A pipelined command is sent with a stream
// argument; a pipeline (or MULTI) is one round trip however many commands it carries.
const redisCount = { commands: 0, pipelinedCommands: 0, pipelines: 0 };
const seen = new WeakSet();
const sendCommand = IORedis.prototype.sendCommand;
IORedis.prototype.sendCommand = function counted(command, stream) {
  if (command && typeof command === 'object' && !seen.has(command)) {
    seen.add(command);
    redisCount.commands++;
    if (stream) redisCount.pipelinedCommands++;
  }
  return sendCommand.apply(this, arguments);
};
const exec = Pipeline.prototype.exec;
Pipeline.prototype.exec = function counted() {
  redisCount.pipelines++;
  return exec.apply(this, arguments);
};

const RUNNABLE = new Set(['waiting', 'waiting-children', 'delayed', 'active', 'prioritized', 'paused']);

async function main() {
  const args = common.parseArgs(process.argv.slice(2), {
    pg: 'string', redis: 'string', kind: 'string', concurrency: 'int', pool: 'int', 'threshold-seconds': 'int', parents: 'bool',
  });
  if (!args.pg || !args.redis) throw new common.UsageError('--pg URL and --redis URL are required');
  const kind = args.kind || 'requeue';
  if (kind !== 'requeue' && kind !== 'fail') throw new common.UsageError('--kind is requeue or fail');
  const concurrency = args.concurrency || 1;
  const threshold = args['threshold-seconds'] || 3600;
  const t0 = process.hrtime.bigint();

  const { cfg } = common.pgOptions(args.pg);
  cfg.application_name = 'reclaim-bench-peer';
  const pool = new pg.Pool(Object.assign({}, cfg, { max: args.pool || (concurrency > 1 ? 16 : 1) }));
  const { opts } = common.redisOptions(args.redis);
  const queue = new Queue(QUEUE, { connection: opts, prefix: 'bull' });

  const counts = { candidates: 0, recovered: 0, scheduled: 0, stale: 0, noPayload: 0, parentsFailed: 0 };
  try {
    const { rows } = await pool.query(
      `SELECT id, status, "updatedAt"::text AS "updatedAt" FROM "IncidentJob"
        WHERE status IN ('QUEUED', 'PROCESSING') AND "updatedAt" < now() - make_interval(secs => $1) ORDER BY "updatedAt"`, [threshold]);
    counts.candidates = rows.length;

    const recoverOne = async (row) => {
      const jobId = `${JOB_ID_PREFIX}${row.id}`;
      const job = await queue.getJob(jobId);
      if (job && RUNNABLE.has(await job.getState())) {
        counts.scheduled++;
        return;
      }
      if (kind === 'requeue') {
        const p = await pool.query('SELECT payload::text AS payload FROM "IncidentJob" WHERE id = $1', [row.id]);
        if (!p.rows.length || p.rows[0].payload === null) {
          counts.noPayload++;
          return;
        }
        await queue.add(JOB_NAME, JSON.parse(p.rows[0].payload), { jobId });
      }
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const u = kind === 'requeue'
          ? await client.query(`UPDATE "IncidentJob" SET status = 'QUEUED', progress = 0, error = NULL, "updatedAt" = now()
                                 WHERE id = $1 AND status = $2 AND "updatedAt" = $3::timestamp(3)`, [row.id, row.status, row.updatedAt])
          : await client.query(`UPDATE "IncidentJob" SET status = 'FAILED', error = $4, "updatedAt" = now()
                                 WHERE id = $1 AND status = $2 AND "updatedAt" = $3::timestamp(3)`,
          [row.id, row.status, row.updatedAt, 'the job was lost from Redis and cannot be rebuilt']);
        const applied = u.rowCount === 1;
        let detail = null;
        if (applied && kind === 'fail' && args.parents) {
          const pr = await client.query(`UPDATE "IncidentBatch" SET status = 'FAILED', "updatedAt" = now()
                                          WHERE id = (SELECT "parentId" FROM "IncidentJob" WHERE id = $1) AND status = ANY($2)`, [row.id, ['PENDING', 'PROCESSING']]);
          detail = `parent rows=${pr.rowCount}`;
          counts.parentsFailed += pr.rowCount;
        }
        await client.query(`INSERT INTO peer_audit (row_id, action, observed_status, observed_updated_at, result, detail)
                            VALUES ($1, $2, $3, $4, $5, $6)`, [row.id, kind, row.status, row.updatedAt, applied ? 'applied' : 'stale', detail]);
        await client.query('COMMIT');
        if (applied) counts.recovered++;
        else counts.stale++;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    };

    let next = 0;
    const worker = async () => {
      while (next < rows.length) await recoverOne(rows[next++]);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, rows.length)) }, worker));
  } finally {
    await queue.close();
    await pool.end();
  }
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(`${JSON.stringify({
    kind, concurrency, pool: args.pool || (concurrency > 1 ? 16 : 1), ...counts, wallMs,
    peakRssKiB: process.resourceUsage().maxRSS, redis: Object.assign({ roundTrips: redisCount.commands - redisCount.pipelinedCommands + redisCount.pipelines }, redisCount),
  })}\n`);
  return 0;
}

if (require.main === module) common.runMain('peer-recover', main);
