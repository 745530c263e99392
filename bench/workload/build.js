#!/usr/bin/env node
'use strict';
// Builds one benchmark workload on top of what refapp/seed.js already put there.
//
//   node bench/workload/build.js incident --pg URL --redis URL --candidates N --jobs N --rows N
//        [--direct-fraction F] [--seeder-manifest FILE] [--part pg|redis|both] [--seed N] --summary FILE
//   node bench/workload/build.js lookup --redis URL --candidates N --wait N [--seed N] [--prefix P] --ids FILE --summary FILE
//
// incident: job tables totalling --rows rows with --candidates candidates (the seeder's included),
//   --direct-fraction of them resolvable by a direct lookup and the rest only by the payload scan;
//   queues holding --jobs BullMQ jobs in every state, 10 % under legacy auto-numbered ids.
// lookup: one queue (image-render) whose wait list holds --wait jobs, for the direct-lookup race.

const fs = require('fs');
const { common, refRequire, D } = require('./common');
const { incidentPlan, lookupPlan, seederSummary } = require('./plan');
const { BullWriter } = require('./bullwrites');
const { RowSink, copyAll } = require('./pgload');

const IORedis = refRequire('ioredis');
const { Queue } = refRequire('bullmq');

async function openRedis(url) {
  const { opts } = common.redisOptions(url);
  const r = new IORedis(Object.assign({}, opts, { lazyConnect: true, retryStrategy: () => null }));
  r.on('error', () => {});
  await r.connect();
  return r;
}

/** Pauses a queue through bullmq itself (as the app does), unless it already is. */
async function pauseQueue(url, name) {
  const { opts } = common.redisOptions(url);
  const q = new Queue(name, { connection: opts, prefix: D.PREFIX });
  try {
    if (!(await q.isPaused())) await q.pause();
  } finally {
    await q.close();
  }
}

async function buildIncident(args, log = () => {}) {
  const manifest = args['seeder-manifest'] ? JSON.parse(fs.readFileSync(args['seeder-manifest'], 'utf8')) : null;
  const seeder = seederSummary(manifest);
  const plan = incidentPlan({
    seed: args.seed, candidates: args.candidates, jobs: args.jobs, rows: args.rows,
    directFraction: args['direct-fraction'] != null ? Number(args['direct-fraction']) : 0.8, seeder,
  });
  const part = args.part || 'both';
  const now = Date.now();
  const summary = { kind: 'incident', seed: args.seed, builtAt: new Date(now).toISOString(), counts: plan.counts, seeder };
  if (manifest) {
    summary.seeder.absent = manifest.counts.byVerdict.ABSENT || 0;
    summary.seeder.scanFound = manifest.rows.filter((r) => r.candidate && r.foundBy === 'scan').length;
  }

  const pgPart = async () => {
    const t0 = Date.now();
    const sink = new RowSink(now);
    for (const c of plan.candidates) {
      sink.parent(c.parent);
      for (const p of c.extraParents) sink.parent(p);
      sink.job(c.row);
      for (const r of c.extraRows) sink.job(r);
    }
    const bgRows = Math.min(plan.background.rowBudget, Number.MAX_SAFE_INTEGER);
    for (let j = 0; j < bgRows; j++) {
      const b = plan.background.at(j);
      sink.parent(b.parent, `${b.parent.table}:${b.parentKey}`);
      sink.job(b.row);
    }
    for (let h = 0; h < plan.history.count; h++) {
      const x = plan.history.at(h);
      sink.parent(x.parent, `${x.parent.table}:h:${x.parentKey}`);
      sink.job(x.row);
    }
    const planned = Date.now();
    await copyAll(args.pg, sink);
    summary.pg = { rows: sink.rowCount + seeder.jobRows, bulkRows: sink.rowCount, planSeconds: (planned - t0) / 1000, copySeconds: (Date.now() - planned) / 1000 };
    log(`workload: ${sink.rowCount} rows copied in ${summary.pg.copySeconds.toFixed(1)} s (planned in ${summary.pg.planSeconds.toFixed(1)} s)`);
  };

  const redisPart = async () => {
    const t0 = Date.now();
    if (!manifest) for (const q of ['narration-tts']) await pauseQueue(args.redis, q); // the seeder pauses it otherwise
    const redis = await openRedis(args.redis);
    const w = new BullWriter(redis, { prefix: D.PREFIX, now, url: args.redis, samplesPerKind: args.samples || undefined });
    for (const c of plan.candidates) for (const j of c.jobs) await w.add(j);
    for (let j = 0; j < plan.background.count; j++) await w.add(plan.background.at(j).job);
    await w.finish();
    const seconds = (Date.now() - t0) / 1000;
    const dbsize = await redis.dbsize();
    const mem = await redis.info('memory');
    redis.disconnect();
    summary.redis = {
      bulkJobs: w.written, seconds, jobsPerSecond: Math.round(w.written / Math.max(seconds, 0.001)), keys: dbsize,
      usedMemoryBytes: Number((/used_memory:(\d+)/.exec(mem) || [])[1] || 0),
      bulkCounts: w.counts(), seederCounts: manifest ? manifest.counts.redis : {},
    };
    summary.samples = w.samples;
    log(`workload: ${w.written} jobs written in ${seconds.toFixed(1)} s (${summary.redis.jobsPerSecond} jobs/s), ${dbsize} keys`);
  };

  // The two stores are independent: fill them at the same time.
  await Promise.all([part === 'redis' ? null : pgPart(), part === 'pg' ? null : redisPart()]);
  return summary;
}

async function buildLookup(args, log = () => {}) {
  const plan = lookupPlan({ seed: args.seed, candidates: args.candidates, waitSize: args.wait });
  const now = Date.now();
  const t0 = now;
  const redis = await openRedis(args.redis);
  // --prefix: the same fixture under another key prefix, e.g. {bull} for a Redis Cluster (every key
  // of the queue then shares one slot, and --redis names the master that serves it).
  const prefix = args.prefix || D.PREFIX;
  const w = new BullWriter(redis, { prefix, now, url: args.redis, samplesPerKind: args.samples || undefined });
  // Old jobs first: the candidates' jobs sit nearest the tail of the wait list, the fresh
  // background in front of them, as bullmq's LPUSH leaves a backlog.
  for (const j of plan.jobs) await w.add(j);
  for (const j of plan.background) await w.add(j);
  await w.finish();
  const seconds = (Date.now() - t0) / 1000;
  const waitLen = await redis.llen(`${prefix}:image-render:wait`);
  redis.disconnect();
  fs.writeFileSync(args.ids, `${plan.candidates.map((c) => c.id).join('\n')}\n`);
  const byKind = {};
  for (const c of plan.candidates) byKind[c.kind] = (byKind[c.kind] || 0) + 1;
  log(`workload: lookup fixture with a wait list of ${waitLen}: ${w.written} jobs in ${seconds.toFixed(1)} s`);
  return {
    kind: 'lookup', prefix, seed: args.seed, builtAt: new Date(now).toISOString(), candidates: plan.candidates.length,
    direct: plan.candidates.filter((c) => c.expected === 'direct').length, byKind, waitLength: waitLen,
    redis: { bulkJobs: w.written, seconds, bulkCounts: w.counts(), seederCounts: {} }, samples: w.samples,
  };
}

async function main() {
  const [mode, ...rest] = process.argv.slice(2);
  const args = common.parseArgs(rest, {
    pg: 'string', redis: 'string', seed: 'int', candidates: 'int', jobs: 'int', rows: 'int', 'direct-fraction': 'string',
    'seeder-manifest': 'string', part: 'string', summary: 'string', wait: 'int', ids: 'string', quiet: 'bool', samples: 'int',
    prefix: 'string',
  });
  if (args.seed == null) args.seed = 7;
  const log = args.quiet ? () => {} : (s) => process.stderr.write(`${s}\n`);
  if (!args.redis && (mode === 'lookup' || args.part !== 'pg')) throw new common.UsageError('--redis URL is required');
  let summary;
  if (mode === 'incident') {
    for (const k of ['candidates', 'jobs', 'rows']) if (args[k] == null) throw new common.UsageError(`--${k} is required`);
    if (!args.pg && args.part !== 'redis') throw new common.UsageError('--pg URL is required');
    summary = await buildIncident(args, log);
  } else if (mode === 'lookup') {
    for (const k of ['candidates', 'wait', 'ids']) if (args[k] == null) throw new common.UsageError(`--${k} is required`);
    summary = await buildLookup(args, log);
  } else {
    throw new common.UsageError('usage: build.js incident|lookup ...');
  }
  if (args.summary) fs.writeFileSync(args.summary, `${JSON.stringify(summary, null, 1)}\n`);
  return 0;
}

module.exports = { buildIncident, buildLookup };

if (require.main === module) common.runMain('workload', main);
