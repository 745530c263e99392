#!/usr/bin/env node
'use strict';
// A plain, unmodified bullmq Worker, as the reference app runs it.
//
//   node refapp/worker.js --queue Q [--redis URL] [--count N] [--timeout-ms T]
//                         [--pg URL --table T] [--require FIELD[,FIELD...]] [--concurrency N]
//                         [--until-id ID] [--validate]
//
// For every job it completes it prints one JSON line on stdout:
//   {"event":"completed","queue":Q,"id":ID,"name":NAME,"data":{...}}
// Failures go to stderr as {"event":"failed",...} lines. With --pg/--table it first marks the
// row data.jobId of table T as the app does (status='COMPLETED', progress=100,
// "updatedAt"=now); a missing row fails the job. --require lists data fields that must be
// present in every job; --validate checks each job against the app's payload shape for its
// queue and job name (lib/domains.js PAYLOAD_FIELDS; a compose needs complete tracks) and fails
// it otherwise, as the app's input validation would.
// Exits 0 after N completions (--count) or once job ID completed (--until-id; bullmq takes jobs
// oldest first, so everything queued before ID is processed too); exits 3 when --timeout-ms
// passes first. Without --count/--until-id it runs until the timeout or SIGTERM/SIGINT (exit 0).
// With the default concurrency 1, no job beyond the N-th (or beyond ID) is taken.
// Note: like any bullmq worker it also runs the stalled-job check on Q, so an active job whose
// lock has expired is moved back to wait (and may then be processed) within ~2 stalled intervals.

const { Worker } = require('bullmq');
const { Client } = require('pg');
const { parseArgs, UsageError, redisOptions, pgOptions, errText } = require('./lib/common');
const { PREFIX, JOB_TABLES, payloadProblem } = require('./lib/domains');

async function main() {
  const args = parseArgs(process.argv.slice(2), {
    queue: 'string', redis: 'string', count: 'int', 'timeout-ms': 'int', pg: 'string', table: 'string',
    require: 'string', concurrency: 'int', 'until-id': 'string', validate: 'bool',
  });
  if (!args.queue) throw new UsageError('--queue Q is required');
  if (args.pg && !args.table) throw new UsageError('--pg needs --table T (the job table to update)');
  if (args.table && !JOB_TABLES[args.table]) throw new UsageError(`--table must be one of ${Object.keys(JOB_TABLES).join(', ')}`);
  if (args.count !== undefined && args.count < 1) throw new UsageError('--count must be at least 1');
  const required = args.require ? args.require.split(',').map((s) => s.trim()).filter(Boolean) : [];
  const { opts } = redisOptions(args.redis || process.env.RECLAIM_REDIS_URL);

  let pg = null;
  if (args.table) {
    const { cfg, label } = pgOptions(args.pg || process.env.RECLAIM_PG_URL);
    pg = new Client(cfg);
    pg.on('error', () => {});
    try {
      await pg.connect();
    } catch (e) {
      throw new Error(`cannot connect to ${label}: ${errText(e)}`);
    }
  }

  let completed = 0;
  let willComplete = 0;
  let finishing = false;
  const worker = new Worker(
    args.queue,
    async (job) => {
      if (args.validate) {
        const problem = payloadProblem(args.queue, job.name, job.data);
        if (problem) throw new Error(problem);
      }
      for (const f of required) {
        if (job.data == null || job.data[f] === undefined) throw new Error(`job data lacks required field "${f}"`);
      }
      if (pg) {
        const rowId = job.data && job.data.jobId;
        if (rowId == null) throw new Error('job data has no jobId');
        const r = await pg.query(
          `UPDATE "${args.table}" SET "status" = 'COMPLETED', "progress" = 100, "updatedAt" = LOCALTIMESTAMP(3) WHERE "id" = $1`,
          [String(rowId)],
        );
        if (r.rowCount !== 1) throw new Error(`no ${args.table} row ${rowId}`);
      }
      // Stop fetching once the last wanted job is about to complete: otherwise bullmq would
      // atomically take the next job with this completion and a further job would be processed.
      willComplete++;
      if ((args.count !== undefined && willComplete >= args.count) || job.id === args['until-id']) await worker.pause(true);
      return { ok: true };
    },
    { connection: opts, prefix: PREFIX, concurrency: args.concurrency || 1 },
  );
  worker.on('error', (e) => process.stderr.write(`worker: ${errText(e)}\n`));
  worker.on('failed', (job, err) => {
    if (!job) return;
    process.stderr.write(`${JSON.stringify({ event: 'failed', queue: args.queue, id: job.id, name: job.name, reason: errText(err) })}\n`);
  });

  const finish = async (code) => {
    if (finishing) return;
    finishing = true;
    const guard = setTimeout(() => process.exit(code), 10000);
    await worker.close().catch(() => {});
    if (pg) await pg.end().catch(() => {});
    clearTimeout(guard);
    process.stdout.write('', () => process.exit(code));
  };

  worker.on('completed', (job) => {
    if (finishing) return;
    completed++;
    process.stdout.write(`${JSON.stringify({ event: 'completed', queue: args.queue, id: job.id, name: job.name, data: job.data })}\n`);
    if (args.count !== undefined && completed >= args.count) finish(0);
    else if (args['until-id'] !== undefined && job.id === args['until-id']) finish(0);
  });
  if (args['timeout-ms'] !== undefined) {
    setTimeout(() => {
      const bounded = args.count !== undefined || args['until-id'] !== undefined;
      if (bounded) process.stderr.write(`worker: timeout after ${args['timeout-ms']} ms with ${completed} completion(s)\n`);
      finish(bounded ? 3 : 0);
    }, args['timeout-ms']);
  }
  process.on('SIGTERM', () => finish(0));
  process.on('SIGINT', () => finish(0));
}

main().catch((e) => {
  process.stderr.write(`worker: ${errText(e)}\n`);
  process.exit(e instanceof UsageError ? 2 : 1);
});
